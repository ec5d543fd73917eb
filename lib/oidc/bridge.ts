// The one bridge between HTTP and oidc-provider.
//
// oidc-provider is a Koa application that wants Node's req/res. Portico's HTTP server (server.ts) hands it every
// request for the issuer's endpoints directly, in the same process as Next.js, instead of through an App Router
// route handler: converting each request from Web Request to Node and back would cost a large share of a refresh
// grant's budget (docs/benchmarks.md), and Koa would still need a synthetic socket. Everything else goes to
// Next.js. The Next.js side reaches the same Provider instance through lib/runtime.ts.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import { PROVIDER_CONTENT_SECURITY_POLICY, securityHeaders } from '../security/headers';
import { OIDC_PREFIX } from './provider';

/** Paths oidc-provider serves: its endpoints and the two discovery documents (RFC 8414 §3, OIDC Discovery §4). */
export function isProviderPath(pathname: string): boolean {
  return (
    pathname === OIDC_PREFIX ||
    pathname.startsWith(`${OIDC_PREFIX}/`) ||
    pathname === '/.well-known/openid-configuration' ||
    pathname === '/.well-known/oauth-authorization-server'
  );
}

export function createProviderHandler(provider: Provider, options: { https: boolean }) {
  const headers = securityHeaders({ https: options.https, contentSecurityPolicy: PROVIDER_CONTENT_SECURITY_POLICY });
  // Set before oidc-provider runs so that it can append the hash of its form_post script to script-src.
  provider.use(async (ctx, next) => {
    ctx.set(headers);
    await next();
  });
  const callback = provider.callback();
  return (req: IncomingMessage, res: ServerResponse) => callback(req, res);
}
