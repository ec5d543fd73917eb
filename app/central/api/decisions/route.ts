// POST /central/api/decisions – one decision: {"request_id", "fingerprint", "nonce", "decision": "approve"|"deny",
// "password"?, "confirmed"?}. The broker checks session, authority, step-up, nonce and fingerprint; the answer names
// the request it decided, so the page can check it is the one it shows.
import { ApprovalRefusal } from '@/lib/approvals/broker';
import { decideInCentral } from '@/lib/approvals/central';
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { db } from '@/lib/runtime';
import { centralBinding, centralSessionToken, jsonError, readJsonObject, sameOrigin } from '../../_lib/central';

export const dynamic = 'force-dynamic';

const STATUS: Partial<Record<ApprovalRefusal['code'], number>> = { session: 401, not_authorized: 404, not_found: 404, step_up: 403, nonce: 409, not_pending: 409, expired: 409, fingerprint_mismatch: 409, not_eligible: 403 };

export async function POST(request: Request): Promise<Response> {
  if (!sameOrigin(request)) return jsonError(403, 'forbidden', 'cross-origin request refused');
  const body = await readJsonObject(request, 8192);
  if (!body) return jsonError(400, 'invalid_request', 'the body must be a JSON object');
  const { request_id: requestId, fingerprint, nonce, decision, password, confirmed } = body;
  if (typeof requestId !== 'string' || typeof fingerprint !== 'string' || typeof nonce !== 'string' || (decision !== 'approve' && decision !== 'deny')) {
    return jsonError(400, 'invalid_request', 'request_id, fingerprint, nonce and decision (approve or deny) are required');
  }
  if (password !== undefined && (typeof password !== 'string' || password.length > 1024)) return jsonError(400, 'invalid_request', 'password must be a string');
  try {
    const outcome = await decideInCentral(
      db(),
      { sessionToken: await centralSessionToken(), requestId, fingerprint, nonce, decision, password: password as string | undefined, confirmed: confirmed === true, ip: clientIpFromHeaders(request.headers) },
      centralBinding(),
    );
    return Response.json(
      { request_id: outcome.request.id, state: outcome.request.state, grant_id: outcome.grant?.id ?? null, grant_expires_at: outcome.grant?.expiresAt?.toISOString() ?? null },
      { headers: { 'Cache-Control': 'no-store' } },
    );
  } catch (error) {
    if (error instanceof ApprovalRefusal) return jsonError(STATUS[error.code] ?? 400, error.code, error.message);
    throw error;
  }
}
