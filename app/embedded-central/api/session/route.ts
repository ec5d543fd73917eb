// POST /embedded-central/api/session {"email", "password"} – the embedded central's sign-in. JSON over fetch, never
// a native form post: in the minimal sandbox an MCP host gives its views (no allow-forms), a click or Enter still
// signs in. The same throttle as every sign-in; a 15-minute session of its own (SameSite=None, Partitioned).
// GET – whether this frame's cookie names a live session (the page checks the browser kept it).
import { throttledPasswordCheck } from '@/lib/accounts/factors/throttled-password-check';
import { stepAfterPassword } from '@/lib/accounts/sign-in-second-step';
import { openCentralSession } from '@/lib/approvals/central';
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { signInErrorMessage } from '@/lib/oidc/sign-in-errors';
import { oauthError, readJsonObject } from '@/lib/http/errors';
import { recordSignInRefusal, recordSignInSuccess } from '@/lib/accounts/sign-in-events';
import { db, runtime } from '@/lib/runtime';
import { translator } from '@/lib/i18n/catalogs';
import { requestLocale } from '@/app/_lib/i18n/server';
import { centralBinding, centralCookie, currentCentralSession, EMBEDDED_CENTRAL, sameOrigin } from '../../../central/_lib/central';

export const dynamic = 'force-dynamic';

export async function POST(request: Request): Promise<Response> {
  // Login CSRF: only Portico's own page (in its frame) may open a session.
  if (!sameOrigin(request)) return oauthError(403, 'forbidden', 'cross-origin request refused');
  const read = await readJsonObject(request, 8 * 1024);
  const { email, password } = read.ok ? read.value : {};
  if (typeof email !== 'string' || typeof password !== 'string' || email === '' || password === '' || email.length > 320 || password.length > 1024) {
    return oauthError(400, 'invalid_request', 'send {"email", "password"}');
  }
  const ip = clientIpFromHeaders(request.headers);
  // What the frame shows the person: in the page's language (the codes stay as they are).
  const locale = await requestLocale();
  const t = translator(locale, 'embeddedCentral.session');
  const check = await throttledPasswordCheck(db(), email, password, ip, { signIn: true });
  if (!check.ok) {
    await recordSignInRefusal(db(), { surface: 'central', ip }, email, check);
    return oauthError(check.reason === 'throttled' ? 429 : 401, check.reason, signInErrorMessage(check.reason, locale));
  }
  // Someone else once knew this password: the new one is chosen in Portico's own tab, not inside another site's frame.
  if (check.user.passwordChangeRequired) {
    return oauthError(403, 'password_change_required', t('passwordChangeRequired', { central: `${runtime().env.PORTICO_ISSUER}/central` }));
  }
  // A second factor is typed into Portico's own tab, never inside another site's frame.
  const step = await stepAfterPassword(db(), check.user.id, {});
  if (step !== 'none') {
    return oauthError(
      403,
      'second_factor_required',
      step === 'enroll'
        ? t('twoStepRequired', { central: `${runtime().env.PORTICO_ISSUER}/central` })
        : t('twoStep', { central: `${runtime().env.PORTICO_ISSUER}/central` }),
    );
  }
  await recordSignInSuccess(db(), { surface: 'central', ip }, check.user);
  const token = await openCentralSession(db(), check.user, centralBinding(EMBEDDED_CENTRAL));
  return Response.json({ signed_in: true }, { headers: { 'Cache-Control': 'no-store', 'Set-Cookie': centralCookie(token, EMBEDDED_CENTRAL) } });
}

export async function GET(): Promise<Response> {
  const session = await currentCentralSession(EMBEDDED_CENTRAL);
  return Response.json({ signed_in: session !== undefined }, { status: session ? 200 : 401, headers: { 'Cache-Control': 'no-store' } });
}
