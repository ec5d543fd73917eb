// The decision endpoints both centrals serve (external under /central/api, embedded under /embedded-central/api):
// the same checks, each with its own session cookie and binding.
import 'server-only';
import { relyingPartyOf } from '@/lib/accounts/factors/passkeys';
import { stepUpFactorOf, stepUpPasskeyOptions } from '@/lib/accounts/factors/step-up';
import { decideInCentral, decisionStepUpContext, findCentralRequest, issueDecisionNonce, stepUpCoveredUntil } from '@/lib/approvals/central';
import { oauthError, readJsonObject } from '@/lib/http/errors';
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { db, runtime } from '@/lib/runtime';
import { centralBinding, centralSessionToken, currentCentralSession, refusalResponse, sameOrigin, sessionEndedResponse, type CentralSurface } from './central';


/** POST …/api/nonce {"request_id"}: a decision nonce (single use, 60 s) for this session and request, with the fingerprint it is bound to. */
export function nonceHandler(surface: CentralSurface) {
  return async (request: Request): Promise<Response> => {
    if (!sameOrigin(request)) return oauthError(403, 'forbidden', 'cross-origin request refused');
    const session = await currentCentralSession(surface);
    if (!session) return sessionEndedResponse();
    const read = await readJsonObject(request, 4096);
    const body = read.ok ? read.value : undefined;
    if (typeof body?.request_id !== 'string') return oauthError(400, 'invalid_request', 'send {"request_id": "apr_…"}');
    try {
      const nonce = await issueDecisionNonce(db(), session, body.request_id, centralBinding(surface));
      const view = await findCentralRequest(db(), session.user, body.request_id);
      // Approving work or compose needs step-up by the strongest factor; a passkey's options are bound to this nonce.
      const factor = view!.stepUp ? await stepUpFactorOf(db(), session.user.id) : undefined;
      // The factor proven at this session's sign-in may still count (covered_until): nothing to ask, not even a passkey.
      const coveredUntil = factor ? await stepUpCoveredUntil(db(), session) : undefined;
      const passkeyOptions =
        factor === 'passkey' && !coveredUntil ? await stepUpPasskeyOptions(db(), relyingPartyOf(runtime().env.PORTICO_ISSUER), { user: session.user, context: decisionStepUpContext(nonce) }) : undefined;
      const stepUp = factor ? { factor, ...(coveredUntil ? { covered_until: coveredUntil.toISOString() } : {}), ...(passkeyOptions ? { passkey_options: passkeyOptions } : {}) } : undefined;
      return Response.json(
        { request_id: body.request_id, nonce, fingerprint: view!.fingerprint, ...(stepUp ? { step_up: stepUp } : {}) },
        { headers: { 'Cache-Control': 'no-store' } },
      );
    } catch (error) {
      // The same status as the decision's: an ended session is 401 here too (the page signs the operator in again).
      const answer = await refusalResponse(error);
      if (answer) return answer;
      throw error;
    }
  };
}

/**
 * POST …/api/decisions {"request_id", "fingerprint", "nonce", "decision": "approve"|"deny", "password"? | "code"? | "passkey"?, "confirmed"?}:
 * one decision. The broker checks session, authority, step-up, nonce and fingerprint; the answer names the request it
 * decided, so the page can check it is the one it shows.
 */
export function decisionHandler(surface: CentralSurface) {
  return async (request: Request): Promise<Response> => {
    if (!sameOrigin(request)) return oauthError(403, 'forbidden', 'cross-origin request refused');
    const read = await readJsonObject(request, 32 * 1024);
    const body = read.ok ? read.value : undefined;
    if (!body) return oauthError(400, 'invalid_request', 'the body must be a JSON object');
    const { request_id: requestId, fingerprint, nonce, decision, password, code, passkey, confirmed } = body;
    if (typeof requestId !== 'string' || typeof fingerprint !== 'string' || typeof nonce !== 'string' || (decision !== 'approve' && decision !== 'deny')) {
      return oauthError(400, 'invalid_request', 'request_id, fingerprint, nonce and decision (approve or deny) are required');
    }
    if (password !== undefined && (typeof password !== 'string' || password.length > 1024)) return oauthError(400, 'invalid_request', 'password must be a string');
    if (code !== undefined && (typeof code !== 'string' || code.length > 16)) return oauthError(400, 'invalid_request', 'code must be the 6 digits of an authenticator app');
    if (passkey !== undefined && (typeof passkey !== 'string' || passkey.length > 16 * 1024)) return oauthError(400, 'invalid_request', 'passkey must be the assertion, as JSON text');
    try {
      const outcome = await decideInCentral(
        db(),
        {
          sessionToken: await centralSessionToken(surface),
          requestId,
          fingerprint,
          nonce,
          decision,
          proof: { password: password as string | undefined, code: code as string | undefined, passkey: passkey as string | undefined },
          atRestKey: runtime().atRestKey,
          confirmed: confirmed === true,
          ip: clientIpFromHeaders(request.headers),
        },
        centralBinding(surface),
      );
      // The request as the page shows it, read after the decision: the one source of its count and state on screen.
      const session = await currentCentralSession(surface);
      const view = session ? await findCentralRequest(db(), session.user, outcome.request.id) : undefined;
      return Response.json(
        { request_id: outcome.request.id, state: outcome.request.state, grant_id: outcome.grant?.id ?? null, grant_expires_at: outcome.grant?.expiresAt?.toISOString() ?? null, approvals: outcome.approvals, quorum: outcome.quorum, ...(view ? { request: view } : {}) },
        { headers: { 'Cache-Control': 'no-store' } },
      );
    } catch (error) {
      const answer = await refusalResponse(error);
      if (answer) return answer;
      throw error;
    }
  };
}
