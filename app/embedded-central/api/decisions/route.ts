// POST /embedded-central/api/decisions – one decision from the embedded central, checked by the broker exactly like
// the external central's (app/central/_lib/handlers.ts).
import { EMBEDDED_CENTRAL } from '../../../central/_lib/central';
import { decisionHandler } from '../../../central/_lib/handlers';

export const dynamic = 'force-dynamic';
export const POST = decisionHandler(EMBEDDED_CENTRAL);
