// Runs before every Next.js request: a fresh CSP nonce per response and the shared security headers.
import { NextResponse, type NextRequest } from 'next/server';
import { runtime } from './lib/runtime';
import { pageContentSecurityPolicy, securityHeaders } from './lib/security/headers';

export function proxy(request: NextRequest) {
  const { env } = runtime();
  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('base64');
  const csp = pageContentSecurityPolicy(nonce, env.NODE_ENV !== 'production');
  // Next.js reads the nonce for its own scripts from the request's CSP header.
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set('Content-Security-Policy', csp);
  requestHeaders.set('x-nonce', nonce);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  for (const [name, value] of Object.entries(securityHeaders({ https: env.issuerIsHttps, contentSecurityPolicy: csp }))) {
    response.headers.set(name, value);
  }
  return response;
}

export const config = {
  matcher: ['/((?!_next/static|_next/image).*)'],
};
