// Security headers shared by every response Portico sends: the Next.js pages (proxy.ts) and oidc-provider's
// own responses (lib/oidc/bridge.ts). Later issues open explicit, listed framing exceptions; by default nothing
// may frame Portico (clickjacking, RFC 9700 §4.16).

export interface SecurityHeaderOptions {
  /** Send HSTS: only when the issuer is https. */
  https: boolean;
  contentSecurityPolicy: string;
  /** The embedded central with listed frame ancestors: no X-Frame-Options (it cannot list origins; CSP does). */
  frameable?: boolean;
}

export function securityHeaders(options: SecurityHeaderOptions): Record<string, string> {
  return {
    'Content-Security-Policy': options.contentSecurityPolicy,
    ...(options.frameable ? {} : { 'X-Frame-Options': 'DENY' }),
    'X-Content-Type-Options': 'nosniff',
    // Authorization URLs carry state and codes: never leak them to another origin through Referer. Not
    // 'no-referrer': with it browsers send `Origin: null` on same-origin form posts, defeating origin checks.
    'Referrer-Policy': 'same-origin',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=()',
    ...(options.https ? { 'Strict-Transport-Security': 'max-age=63072000; includeSubDomains' } : {}),
  };
}

/**
 * CSP for pages rendered by Next.js: scripts only with this response's nonce. Framing: none, except for the
 * embedded central, which the listed https origins (PORTICO_OPERATOR_FRAME_ANCESTORS) may frame.
 */
export function pageContentSecurityPolicy(nonce: string, development: boolean, frameAncestors: readonly string[] = []): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${development ? " 'unsafe-eval'" : ''}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: https:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    `frame-ancestors ${frameAncestors.length > 0 ? frameAncestors.join(' ') : "'none'"}`,
  ].join('; ');
}

/**
 * CSP for oidc-provider's responses (JSON, error and logout pages, form_post). oidc-provider appends the hash of
 * its own inline form_post script to script-src. No form-action: form_post must reach the client's redirect URI.
 */
export const PROVIDER_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'unsafe-inline'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** CSP for JSON API responses (/api/*): nothing to run, nothing to frame. */
export const API_CONTENT_SECURITY_POLICY = ["default-src 'none'", "frame-ancestors 'none'"].join('; ');

/** Set by proxy.ts on every page request: the path and query asked for (a console sign-in returns there). */
export const REQUESTED_PATH_HEADER = 'x-portico-requested-path';
