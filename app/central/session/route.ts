// POST /central/session – the central's own sign-in (independent of the console's): the operator's password, under
// the same throttle as every sign-in, opens a 15-minute central session.
import { passwordlessSignIn, relyingPartyOf } from '@/lib/accounts/factors/passkeys';
import { requiredPasswordChangePath } from '@/lib/accounts/self-service';
import { recordSignInRefusal, recordSignInSuccess } from '@/lib/accounts/sign-in-events';
import { throttledPasswordCheck } from '@/lib/accounts/factors/throttled-password-check';
import { openCentralSession } from '@/lib/approvals/central';
import { centralRequestUrl, isApprovalRequestId } from '@/lib/approvals/central-urls';
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { readCappedForm } from '@/lib/http/body';
import { db, runtime } from '@/lib/runtime';
import { beginSecondStep, ENROLLMENT_SECONDS, secondStepCookie, stepAfterPassword, TWO_STEP_SETUP_PATH } from '@/lib/accounts/sign-in-second-step';
import { centralBinding, centralCookie, sameOrigin } from '../_lib/central';
import { forgetTypedEmail, keepTypedEmail } from '../../auth/_lib/typed-email';
import { federatedStart } from '../../auth/federation/_lib/start';

export const dynamic = 'force-dynamic';

function seeOther(location: string, ...cookies: (string | undefined)[]): Response {
  const headers = new Headers({ Location: location, 'Cache-Control': 'no-store' });
  for (const cookie of cookies) if (cookie) headers.append('Set-Cookie', cookie);
  return new Response(null, { status: 303, headers });
}

export async function POST(request: Request): Promise<Response> {
  // Login CSRF: another site must not sign this browser in to someone else's central session.
  if (!sameOrigin(request)) return new Response('Cross-origin request refused.', { status: 403, headers: { 'Content-Type': 'text/plain' } });
  const form = await readCappedForm(request, 32 * 1024);
  const email = form?.get('email');
  const password = form?.get('password');
  const next = form?.get('next');
  // Back to the central, or to one request's page in it: nothing else (no open redirect).
  const back = typeof next === 'string' && isApprovalRequestId(next.replace(/^\/central\/requests\//, '')) && next === centralRequestUrl(next.slice('/central/requests/'.length)) ? next : '/central';
  const ip = clientIpFromHeaders(request.headers);
  const passkey = form?.get('passkey');
  if (passkey) {
    // "Sign in with a passkey": no email, no password; the passkey (user verification required) says who.
    const assertion = await passwordlessSignIn(db(), relyingPartyOf(runtime().env.PORTICO_ISSUER), passkey);
    if (!assertion) return seeOther(`/central?error=passkey${back === '/central' ? '' : `&next=${encodeURIComponent(back)}`}`);
    if (assertion.user.passwordChangeRequired) return seeOther(await requiredPasswordChangePath(db(), assertion.user, '/central'));
    await recordSignInSuccess(db(), { surface: 'central', ip }, assertion.user);
    // A passkey with user verification: the same proof a decision's step-up asks for, so it counts as one for a few minutes.
    return seeOther(back, centralCookie(await openCentralSession(db(), assertion.user, centralBinding(), 'passkey')));
  }
  // The address first (home realm discovery): to the company's identity provider, or back for the password.
  if (form?.get('step') === 'email' && !password) {
    if (typeof email !== 'string' || !email || email.length > 320) return seeOther('/central?error=invalid_request');
    const federated = await federatedStart(email, { surface: 'central', next: back, events: { surface: 'central', ip } }, '/central?step=password');
    return federated ?? seeOther(`/central?step=password${back === '/central' ? '' : `&next=${encodeURIComponent(back)}`}`, keepTypedEmail('/central', email, runtime().env.issuerIsHttps));
  }
  if (!email || !password || email.length > 320 || password.length > 1024) return seeOther(`/central?error=invalid_request`, keepTypedEmail('/central', email, runtime().env.issuerIsHttps));
  const check = await throttledPasswordCheck(db(), email, password, ip, { signIn: true });
  if (!check.ok) {
    await recordSignInRefusal(db(), { surface: 'central', ip }, email, check);
    return seeOther(`/central?error=${check.reason}${back === '/central' ? '' : `&next=${encodeURIComponent(back)}`}`, keepTypedEmail('/central', email, runtime().env.issuerIsHttps));
  }
  if (check.user.passwordChangeRequired) return seeOther(await requiredPasswordChangePath(db(), check.user, '/central'));
  // The password was right: an email kept by an earlier refusal is forgotten.
  const forget = forgetTypedEmail('/central', runtime().env.issuerIsHttps, request.headers.get('cookie'));
  const step = await stepAfterPassword(db(), check.user.id, {});
  if (step !== 'none') {
    const token = await beginSecondStep(db(), { userId: check.user.id, continuation: { surface: 'central', next: back, events: { surface: 'central', ip }, ...(step === 'enroll' ? { enroll: true } : {}) } });
    return step === 'enroll'
      ? seeOther(TWO_STEP_SETUP_PATH, secondStepCookie(token, runtime().env.issuerIsHttps, ENROLLMENT_SECONDS), forget)
      : seeOther('/central', secondStepCookie(token, runtime().env.issuerIsHttps), forget);
  }
  await recordSignInSuccess(db(), { surface: 'central', ip }, check.user);
  return seeOther(back, centralCookie(await openCentralSession(db(), check.user, centralBinding())), forget);
}
