// POST /embedded-central/api/session {"email", "password"} – the embedded central's sign-in. JSON over fetch, never
// a native form post: in the minimal sandbox an MCP host gives its views (no allow-forms), a click or Enter still
// signs in. The same throttle as every sign-in; a 15-minute session of its own (SameSite=None, Partitioned).
// GET – whether this frame's cookie names a live session (the page checks the browser kept it).
import { throttledPasswordCheck } from '@/lib/accounts/throttled-password-check';
import { openCentralSession } from '@/lib/approvals/central';
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { SIGN_IN_ERRORS } from '@/lib/oidc/sign-in-errors';
import { db } from '@/lib/runtime';
import { centralBinding, centralCookie, currentCentralSession, EMBEDDED_CENTRAL, jsonError, readJsonObject, sameOrigin } from '../../../central/_lib/central';

export const dynamic = 'force-dynamic';

export async function POST(request: Request): Promise<Response> {
  // Login CSRF: only Portico's own page (in its frame) may open a session.
  if (!sameOrigin(request)) return jsonError(403, 'forbidden', 'cross-origin request refused');
  const body = await readJsonObject(request, 8 * 1024);
  const { email, password } = body ?? {};
  if (typeof email !== 'string' || typeof password !== 'string' || email === '' || password === '' || email.length > 320 || password.length > 1024) {
    return jsonError(400, 'invalid_request', 'send {"email", "password"}');
  }
  const check = await throttledPasswordCheck(db(), email, password, clientIpFromHeaders(request.headers));
  if (!check.ok) return jsonError(check.reason === 'throttled' ? 429 : 401, check.reason, SIGN_IN_ERRORS[check.reason]);
  const token = await openCentralSession(db(), check.user, centralBinding(EMBEDDED_CENTRAL));
  return Response.json({ signed_in: true }, { headers: { 'Cache-Control': 'no-store', 'Set-Cookie': centralCookie(token, EMBEDDED_CENTRAL) } });
}

export async function GET(): Promise<Response> {
  const session = await currentCentralSession(EMBEDDED_CENTRAL);
  return Response.json({ signed_in: session !== undefined }, { status: session ? 200 : 401, headers: { 'Cache-Control': 'no-store' } });
}
