// The "Forgot password?" form's POST, shared by the console's and central's recovery page (/account/recover) and
// the app sign-in card's (/auth/app/<uid>/recover): same answer whether or not the email has an account, 429 with
// Retry-After when the per-address or per-client limit is reached (for any address, existing or not).
import 'server-only';
import { requestPasswordReset } from '@/lib/accounts/password-reset';
import { readCappedForm } from '@/lib/http/body';
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { translator } from '@/lib/i18n/catalogs';
import { requestLocale } from '@/app/_lib/i18n/server';
import { escapeHtml } from '@/lib/util/html';
import { db, runtime } from '@/lib/runtime';

function seeOther(location: string): Response {
  return new Response(null, { status: 303, headers: { Location: location, 'Cache-Control': 'no-store' } });
}

/** The page answering a throttled request, in the request's language (its words escaped like any other text). */
function tooManyRequests(locale: string, retryAfterSeconds: number, back: string): Response {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  const t = translator(locale, 'account.tooManyRequests');
  const title = escapeHtml(t('title'));
  const body = `<!doctype html><html lang="${escapeHtml(locale)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title></head>
<body style="font-family:system-ui,sans-serif;background:#f4f5f7;color:#1d2330;display:grid;place-items:center;min-height:100vh;margin:0">
<main style="background:#fff;border:1px solid #e1e4ea;border-radius:12px;padding:32px;max-width:420px">
<h1 style="font-size:1.25rem;margin:0 0 8px">${title}</h1>
<p>${escapeHtml(t('body', { minutes }))}</p>
<p><a href="${escapeHtml(back)}" style="color:#3346d3">${escapeHtml(t('back'))}</a></p></main></body></html>`;
  return new Response(body, { status: 429, headers: { 'Content-Type': 'text/html; charset=utf-8', 'Retry-After': String(retryAfterSeconds), 'Cache-Control': 'no-store' } });
}

/** `page` is the recovery page to answer on (it shows "check your mail" with ?sent=1). */
export async function handleRecoveryRequest(request: Request, input: { page: string; orgId?: string | null; organizationName?: string }): Promise<Response> {
  // Another site must not make this browser ask for resets (it would spend the visitor's quota).
  if (request.headers.get('origin') !== new URL(runtime().env.PORTICO_ISSUER).origin) {
    return new Response('Cross-origin request refused.', { status: 403, headers: { 'Content-Type': 'text/plain' } });
  }
  const form = await readCappedForm(request, 4 * 1024).catch(() => undefined);
  const email = form?.get('email');
  if (typeof email !== 'string' || !/^[^\s@]{1,200}@[^\s@]{1,200}$/.test(email.trim())) return seeOther(`${input.page}?error=email`);
  const { env, atRestKey } = runtime();
  const outcome = await requestPasswordReset(
    db(),
    { issuer: env.PORTICO_ISSUER, atRestKey },
    { email, ip: clientIpFromHeaders(request.headers), orgId: input.orgId, organizationName: input.organizationName },
  );
  if (outcome.status === 'throttled') return tooManyRequests(await requestLocale(), outcome.retryAfterSeconds, input.page);
  return seeOther(`${input.page}?sent=1`);
}
