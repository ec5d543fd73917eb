// Runs before every Next.js request: a fresh CSP nonce per response and the shared security headers. Nothing may
// frame Portico, except the embedded central by the origins listed in PORTICO_OPERATOR_FRAME_ANCESTORS.
import { NextResponse, type NextRequest } from 'next/server';
import { runtime } from './lib/runtime';
import { pageContentSecurityPolicy, REQUESTED_PATH_HEADER, securityHeaders } from './lib/security/headers';

const isUnder = (pathname: string, prefix: string) => pathname === prefix || pathname.startsWith(`${prefix}/`);

export function proxy(request: NextRequest) {
  const { env } = runtime();
  const { pathname } = request.nextUrl;
  const central = isUnder(pathname, '/central');
  const embedded = isUnder(pathname, '/embedded-central');
  if ((central || embedded) && !env.PORTICO_CENTRAL_ENABLED) {
    return new NextResponse('The operator central is turned off here: requests are decided with the operator CLI.', { status: 404, headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
  }
  const frameAncestors = embedded ? env.PORTICO_OPERATOR_FRAME_ANCESTORS : [];
  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('base64');
  const csp = pageContentSecurityPolicy(nonce, env.NODE_ENV !== 'production', frameAncestors);
  // Next.js reads the nonce for its own scripts from the request's CSP header.
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set('Content-Security-Policy', csp);
  requestHeaders.set('x-nonce', nonce);
  // The page asked for, for a sign-in to come back to (set here, so a client's own header never counts).
  requestHeaders.set(REQUESTED_PATH_HEADER, `${pathname}${request.nextUrl.search}`);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  for (const [name, value] of Object.entries(securityHeaders({ https: env.issuerIsHttps, contentSecurityPolicy: csp, frameable: frameAncestors.length > 0 }))) {
    response.headers.set(name, value);
  }
  return response;
}

// Not for Portico's JSON API under /api: those responses render no page (no CSP nonce to make) and get the same
// security headers statically from next.config.ts, which spares every API call a middleware round.
export const config = {
  matcher: ['/((?!_next/static|_next/image|api/).*)'],
};
