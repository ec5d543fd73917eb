// POST /auth/passkey/options – the options of a passkey assertion for a sign-in form: {"purpose": "sign_in"} for
// "Sign in with a passkey" (no email: the passkey says who; user verification required), or {"purpose":
// "second_factor"} for the second step of the sign-in this browser is in (its cookie names it; only that person's
// passkeys, bound to that pending sign-in). The challenge is kept in PostgreSQL and used once. Same-origin only; at
// most 30 passwordless ceremonies per client network per 10 minutes (each writes a row).
import { cookies } from 'next/headers';
import { passkeyAssertionOptions, relyingPartyOf } from '@/lib/accounts/factors/passkeys';
import { pendingSecondStep, SECOND_STEP_COOKIE, secondStepPasskeyContext } from '@/lib/accounts/sign-in-second-step';
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { NO_STORE, oauthError, oauthRefusalAnswer, readJsonObject } from '@/lib/http/errors';
import { hitRateLimit, type RateLimitRule } from '@/lib/rate-limit/fixed-window';
import { db, runtime } from '@/lib/runtime';

export const dynamic = 'force-dynamic';

const PASSWORDLESS_OPTIONS: RateLimitRule = { name: 'passkey_options:ip', limit: 30, windowSeconds: 10 * 60, perClientNetwork: true };

export async function POST(request: Request): Promise<Response> {
  const { env } = runtime();
  if (request.headers.get('origin') !== env.PORTICO_ISSUER) return oauthError(403, 'invalid_request', 'cross-origin request refused');
  const body = await readJsonObject(request, 1024);
  if (!body.ok) return oauthError(body.status, 'invalid_request', body.description);
  const rp = relyingPartyOf(env.PORTICO_ISSUER);
  try {
    if (body.value.purpose === 'sign_in') {
      const hit = await hitRateLimit(db(), PASSWORDLESS_OPTIONS, clientIpFromHeaders(request.headers));
      if (hit.limited) return oauthError(429, 'slow_down', 'too many passkey sign-ins from this network: wait a few minutes', { 'Retry-After': '600' });
      return Response.json(await passkeyAssertionOptions(db(), rp, { purpose: 'sign_in' }), { headers: NO_STORE });
    }
    if (body.value.purpose === 'second_factor') {
      const token = (await cookies()).get(SECOND_STEP_COOKIE)?.value;
      const pending = await pendingSecondStep(db(), token);
      if (!pending || !token) return oauthError(400, 'invalid_request', 'this sign-in expired: sign in again with your password');
      return Response.json(await passkeyAssertionOptions(db(), rp, { purpose: 'second_factor', userId: pending.user.id, context: secondStepPasskeyContext(token) }), { headers: NO_STORE });
    }
  } catch (error) {
    // A passkey refusal (no passkey for this account, …): 400 invalid_request, its English words.
    const refused = oauthRefusalAnswer(error);
    if (refused) return refused;
    throw error;
  }
  return oauthError(400, 'invalid_request', 'purpose must be sign_in or second_factor');
}
