// The "Forgot password?" form's POST, shared by the console's and central's recovery page (/account/recover) and
// the app sign-in card's (/auth/app/<uid>/recover): same answer whether or not the email has an account, 429 with
// Retry-After when the per-address or per-client limit is reached (for any address, existing or not).
import 'server-only';
import { requestPasswordReset } from '@/lib/accounts/password-reset';
import { readCappedForm } from '@/lib/http/body';
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { escapeHtml } from '@/lib/oidc/provider-pages';
import { db, runtime } from '@/lib/runtime';

function seeOther(location: string): Response {
  return new Response(null, { status: 303, headers: { Location: location, 'Cache-Control': 'no-store' } });
}

function tooManyRequests(retryAfterSeconds: number, back: string): Response {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  const body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Too many requests</title></head>
<body style="font-family:system-ui,sans-serif;background:#f4f5f7;color:#1d2330;display:grid;place-items:center;min-height:100vh;margin:0">
<main style="background:#fff;border:1px solid #e1e4ea;border-radius:12px;padding:32px;max-width:420px">
<h1 style="font-size:1.25rem;margin:0 0 8px">Too many requests</h1>
<p>Too many password reset requests came for this address or from this network. Try again in about ${minutes} minute${minutes === 1 ? '' : 's'}.</p>
<p><a href="${escapeHtml(back)}" style="color:#3346d3">Back</a></p></main></body></html>`;
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
  if (outcome.status === 'throttled') return tooManyRequests(outcome.retryAfterSeconds, input.page);
  runtime().mail.kick();
  return seeOther(`${input.page}?sent=1`);
}
