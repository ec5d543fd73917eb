// POST /central/api/decisions – one decision, checked by the broker (app/central/_lib/handlers.ts).
import { EXTERNAL_CENTRAL } from '../../_lib/central';
import { decisionHandler } from '../../_lib/handlers';

export const dynamic = 'force-dynamic';
export const POST = decisionHandler(EXTERNAL_CENTRAL);
