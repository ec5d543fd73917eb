// POST /embedded-central/api/nonce – a decision nonce for the embedded central's session (app/central/_lib/handlers.ts).
import { EMBEDDED_CENTRAL } from '../../../central/_lib/central';
import { nonceHandler } from '../../../central/_lib/handlers';

export const dynamic = 'force-dynamic';
export const POST = nonceHandler(EMBEDDED_CENTRAL);
