// The one bridge between HTTP and oidc-provider.
//
// oidc-provider is a Koa application that wants Node's req/res. Portico's HTTP server (server.ts) hands it every
// request for the issuer's endpoints directly, in the same process as Next.js, instead of through an App Router
// route handler: converting each request from Web Request to Node and back would cost a large share of a refresh
// grant's budget (docs/benchmarks.md), and Koa would still need a synthetic socket. Everything else goes to
// Next.js. The Next.js side reaches the same Provider instance through lib/runtime.ts.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type Provider from 'oidc-provider';
import { PROVIDER_CONTENT_SECURITY_POLICY, securityHeaders } from '../security/headers';
import { readStreamCapped } from '../http/body';
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
  return (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'POST' && (req.url ?? '').split('?', 1)[0] === AUTHORIZATION_PATH) {
      void answerAuthorizationPost(req, res, headers);
      return;
    }
    void callback(req, res);
  };
}

const AUTHORIZATION_PATH = `${OIDC_PREFIX}/auth`;
/** Within what a GET's request line may carry (Node's header limit is 16 KB). */
const AUTHORIZATION_FORM_LIMIT = 8 * 1024;

/**
 * An authorization request sent with POST (OpenID Connect Core §3.1.2.1: the endpoint MUST support GET and POST,
 * the parameters form-serialized). oidc-provider serves POST only with its session cookie on SameSite=None, which a
 * loopback http issuer cannot set (None needs Secure) and which would send the session on every cross-site
 * subrequest. So the form's parameters are answered with a 303 to the same request as a GET: the browser's
 * top-level navigation then carries the Lax session cookie, and oidc-provider validates the request as usual.
 */
async function answerAuthorizationPost(req: IncomingMessage, res: ServerResponse, headers: Record<string, string>): Promise<void> {
  const refuse = (status: number, message: string) => {
    res.writeHead(status, { ...headers, 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
    res.end(`${message}\n`);
  };
  if (!(req.headers['content-type'] ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded')) {
    refuse(415, 'An authorization request sent with POST must be a form (application/x-www-form-urlencoded).');
    return;
  }
  if (Number(req.headers['content-length'] ?? '0') > AUTHORIZATION_FORM_LIMIT) {
    refuse(413, 'This authorization request is too large.');
    req.resume();
    return;
  }
  const body = await readStreamCapped(Readable.toWeb(req) as ReadableStream<Uint8Array>, AUTHORIZATION_FORM_LIMIT).catch(() => undefined);
  if (body === undefined) {
    refuse(413, 'This authorization request is too large.');
    return;
  }
  // Re-serialized, so that only well-formed form fields go on (and nothing from the POST's own query string).
  const parameters = new URLSearchParams(body.toString('utf8'));
  res.writeHead(303, { ...headers, Location: `${AUTHORIZATION_PATH}?${parameters.toString()}`, 'Cache-Control': 'no-store' });
  res.end();
}
