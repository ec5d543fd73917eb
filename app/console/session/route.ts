// POST /console/session – the console sign-in form: checks the password and sets the console session cookie.
import { consoleSessionCookie } from '@/lib/accounts/console-sessions';
import { consoleReturnPath, signInToConsole, signInToConsoleWithPasskey } from '@/lib/accounts/console-sign-in';
import { relyingPartyOf } from '@/lib/accounts/factors/passkeys';
import { ENROLLMENT_SECONDS, secondStepCookie, TWO_STEP_SETUP_PATH } from '@/lib/accounts/sign-in-second-step';
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { db, runtime } from '@/lib/runtime';
import { forgetTypedEmail, keepTypedEmail } from '../../auth/_lib/typed-email';
import { federatedStart } from '../../auth/federation/_lib/start';

export const dynamic = 'force-dynamic';

function seeOther(location: string, ...cookies: (string | undefined)[]): Response {
  const headers = new Headers({ Location: location, 'Cache-Control': 'no-store' });
  for (const cookie of cookies) if (cookie) headers.append('Set-Cookie', cookie);
  return new Response(null, { status: 303, headers });
}

export async function POST(request: Request) {
  // Login CSRF: another site must not sign this browser in to someone else's console account.
  if (request.headers.get('origin') !== runtime().env.PORTICO_ISSUER) {
    return new Response('Cross-origin request refused.', { status: 403, headers: { 'Content-Type': 'text/plain' } });
  }
  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    return seeOther('/console/login?error=invalid_request');
  }
  const next = consoleReturnPath(form.get('next'));
  // A refusal keeps where the sign-in was going (and the email typed), so the person retries in place.
  const again = (query: string) => `/console/login?${query}${next === '/console' ? '' : `&next=${encodeURIComponent(next)}`}`;
  const passkey = form.get('passkey');
  if (typeof passkey === 'string' && passkey !== '') {
    const result = await signInToConsoleWithPasskey(db(), relyingPartyOf(runtime().env.PORTICO_ISSUER), {
      answer: passkey.slice(0, 16 * 1024),
      ip: clientIpFromHeaders(request.headers),
      userAgent: request.headers.get('user-agent') ?? undefined,
    });
    if (result.kind === 'refused') return seeOther(again(`error=${result.error}`));
    if (result.kind === 'change_password') return seeOther(result.path);
    if (result.kind === 'signed_in') return seeOther(next, consoleSessionCookie(result.token, runtime().env.issuerIsHttps));
  }
  const email = form.get('email');
  const password = form.get('password');
  // The address first (home realm discovery): to the company's identity provider, or back for the password.
  if (form.get('step') === 'email' && !password) {
    if (typeof email !== 'string' || !email || email.length > 320) return seeOther(again('error=invalid_request'));
    const ip = clientIpFromHeaders(request.headers);
    const federated = await federatedStart(email, { surface: 'console', next, events: { surface: 'console', ip } }, '/console/login?step=password');
    return federated ?? seeOther(again('step=password'), keepTypedEmail('/console/login', email, runtime().env.issuerIsHttps));
  }
  if (typeof email !== 'string' || typeof password !== 'string' || !email || !password || email.length > 320 || password.length > 1024) {
    return seeOther(again('error=invalid_request'), keepTypedEmail('/console/login', email, runtime().env.issuerIsHttps));
  }
  const result = await signInToConsole(db(), {
    email,
    password,
    ip: clientIpFromHeaders(request.headers),
    userAgent: request.headers.get('user-agent') ?? undefined,
    next,
  });
  if (result.kind === 'refused') return seeOther(again(`error=${result.error}`), keepTypedEmail('/console/login', email, runtime().env.issuerIsHttps));
  if (result.kind === 'change_password') return seeOther(result.path);
  // The password was right: an email kept by an earlier refusal is forgotten.
  const forget = forgetTypedEmail('/console/login', runtime().env.issuerIsHttps, request.headers.get('cookie'));
  if (result.kind === 'second_factor') return seeOther('/console/login', secondStepCookie(result.token, runtime().env.issuerIsHttps), forget);
  if (result.kind === 'enroll') return seeOther(TWO_STEP_SETUP_PATH, secondStepCookie(result.token, runtime().env.issuerIsHttps, ENROLLMENT_SECONDS), forget);
  return seeOther(next, consoleSessionCookie(result.token, runtime().env.issuerIsHttps), forget);
}
