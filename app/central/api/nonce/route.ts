// POST /central/api/nonce {"request_id"} – a decision nonce (single use, 60 s) for this session and request, and the
// fingerprint it is bound to. The decision POST must carry both.
import { ApprovalRefusal } from '@/lib/approvals/broker';
import { findCentralRequest, issueDecisionNonce } from '@/lib/approvals/central';
import { db } from '@/lib/runtime';
import { centralBinding, currentCentralSession, jsonError, readJsonObject, sameOrigin } from '../../_lib/central';

export const dynamic = 'force-dynamic';

export async function POST(request: Request): Promise<Response> {
  if (!sameOrigin(request)) return jsonError(403, 'forbidden', 'cross-origin request refused');
  const session = await currentCentralSession();
  if (!session) return jsonError(401, 'session', 'your central session has ended: sign in again');
  const body = await readJsonObject(request, 4096);
  if (typeof body?.request_id !== 'string') return jsonError(400, 'invalid_request', 'send {"request_id": "apr_…"}');
  try {
    const nonce = await issueDecisionNonce(db(), session, body.request_id, centralBinding());
    const view = await findCentralRequest(db(), session.user, body.request_id);
    return Response.json({ request_id: body.request_id, nonce, fingerprint: view!.fingerprint }, { headers: { 'Cache-Control': 'no-store' } });
  } catch (error) {
    if (error instanceof ApprovalRefusal) return jsonError(404, error.code, error.message);
    throw error;
  }
}
