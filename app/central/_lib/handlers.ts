// The decision endpoints both centrals serve (external under /central/api, embedded under /embedded-central/api):
// the same checks, each with its own session cookie and binding.
import 'server-only';
import { ApprovalRefusal } from '@/lib/approvals/broker';
import { decideInCentral, findCentralRequest, issueDecisionNonce } from '@/lib/approvals/central';
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { db } from '@/lib/runtime';
import { centralBinding, centralSessionToken, currentCentralSession, jsonError, readJsonObject, sameOrigin, type CentralSurface } from './central';

const DECISION_STATUS: Partial<Record<ApprovalRefusal['code'], number>> = { session: 401, not_authorized: 404, not_found: 404, step_up: 403, nonce: 409, not_pending: 409, expired: 409, fingerprint_mismatch: 409, not_eligible: 403 };

/** POST …/api/nonce {"request_id"}: a decision nonce (single use, 60 s) for this session and request, with the fingerprint it is bound to. */
export function nonceHandler(surface: CentralSurface) {
  return async (request: Request): Promise<Response> => {
    if (!sameOrigin(request)) return jsonError(403, 'forbidden', 'cross-origin request refused');
    const session = await currentCentralSession(surface);
    if (!session) return jsonError(401, 'session', 'your central session has ended: sign in again');
    const body = await readJsonObject(request, 4096);
    if (typeof body?.request_id !== 'string') return jsonError(400, 'invalid_request', 'send {"request_id": "apr_…"}');
    try {
      const nonce = await issueDecisionNonce(db(), session, body.request_id, centralBinding(surface));
      const view = await findCentralRequest(db(), session.user, body.request_id);
      return Response.json({ request_id: body.request_id, nonce, fingerprint: view!.fingerprint }, { headers: { 'Cache-Control': 'no-store' } });
    } catch (error) {
      if (error instanceof ApprovalRefusal) return jsonError(404, error.code, error.message);
      throw error;
    }
  };
}

/**
 * POST …/api/decisions {"request_id", "fingerprint", "nonce", "decision": "approve"|"deny", "password"?, "confirmed"?}:
 * one decision. The broker checks session, authority, step-up, nonce and fingerprint; the answer names the request it
 * decided, so the page can check it is the one it shows.
 */
export function decisionHandler(surface: CentralSurface) {
  return async (request: Request): Promise<Response> => {
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
        { sessionToken: await centralSessionToken(surface), requestId, fingerprint, nonce, decision, password: password as string | undefined, confirmed: confirmed === true, ip: clientIpFromHeaders(request.headers) },
        centralBinding(surface),
      );
      return Response.json(
        { request_id: outcome.request.id, state: outcome.request.state, grant_id: outcome.grant?.id ?? null, grant_expires_at: outcome.grant?.expiresAt?.toISOString() ?? null },
        { headers: { 'Cache-Control': 'no-store' } },
      );
    } catch (error) {
      if (error instanceof ApprovalRefusal) return jsonError(DECISION_STATUS[error.code] ?? 400, error.code, error.message);
      throw error;
    }
  };
}
