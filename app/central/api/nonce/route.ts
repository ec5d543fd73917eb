// POST /central/api/nonce {"request_id"} – a decision nonce for this session and request (app/central/_lib/handlers.ts).
import { EXTERNAL_CENTRAL } from '../../_lib/central';
import { nonceHandler } from '../../_lib/handlers';

export const dynamic = 'force-dynamic';
export const POST = nonceHandler(EXTERNAL_CENTRAL);
