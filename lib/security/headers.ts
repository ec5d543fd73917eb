// Security headers shared by every response Portico sends: the Next.js pages (proxy.ts) and oidc-provider's
// own responses (lib/oidc/bridge.ts). Later issues open explicit, listed framing exceptions; by default nothing
// may frame Portico (clickjacking, RFC 9700 §4.16).

export interface SecurityHeaderOptions {
  /** Send HSTS: only when the issuer is https. */
  https: boolean;
  contentSecurityPolicy: string;
}

export function securityHeaders(options: SecurityHeaderOptions): Record<string, string> {
  return {
    'Content-Security-Policy': options.contentSecurityPolicy,
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    // Authorization URLs carry state and codes: never leak them to another origin through Referer. Not
    // 'no-referrer': with it browsers send `Origin: null` on same-origin form posts, defeating origin checks.
    'Referrer-Policy': 'same-origin',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=()',
    ...(options.https ? { 'Strict-Transport-Security': 'max-age=63072000; includeSubDomains' } : {}),
  };
}

/** CSP for pages rendered by Next.js: scripts only with this response's nonce. */
export function pageContentSecurityPolicy(nonce: string, development: boolean): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${development ? " 'unsafe-eval'" : ''}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: https:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
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
