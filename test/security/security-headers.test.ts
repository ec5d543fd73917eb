import { describe, expect, it } from 'vitest';
import { pageContentSecurityPolicy, PROVIDER_CONTENT_SECURITY_POLICY, securityHeaders } from '../../lib/security/headers';

describe('security headers', () => {
  it('send HSTS only when the issuer is https', () => {
    expect(securityHeaders({ https: true, contentSecurityPolicy: 'x' })['Strict-Transport-Security']).toMatch(/^max-age=\d{8,}/);
    expect(securityHeaders({ https: false, contentSecurityPolicy: 'x' })).not.toHaveProperty('Strict-Transport-Security');
  });

  it('forbid framing everywhere by default', () => {
    for (const csp of [pageContentSecurityPolicy('n', false), PROVIDER_CONTENT_SECURITY_POLICY]) {
      expect(csp).toContain("frame-ancestors 'none'");
      expect(securityHeaders({ https: false, contentSecurityPolicy: csp })['X-Frame-Options']).toBe('DENY');
    }
  });

  it('allow page scripts by nonce only; eval only in development', () => {
    expect(pageContentSecurityPolicy('abc', false)).toContain("script-src 'self' 'nonce-abc' 'strict-dynamic';");
    expect(pageContentSecurityPolicy('abc', false)).not.toContain('unsafe-eval');
    expect(pageContentSecurityPolicy('abc', true)).toContain("'unsafe-eval'");
  });
});
