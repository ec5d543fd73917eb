import { expect, test } from './support/test';
import { E2E_ISSUER } from './support/constants';

test.describe('discovery', () => {
  test('both discovery documents are byte-identical and declare the OAuth 2.1 profile', async ({ request }) => {
    const openid = await request.get('/.well-known/openid-configuration');
    const oauth = await request.get('/.well-known/oauth-authorization-server');
    expect(openid.status()).toBe(200);
    expect(oauth.status()).toBe(200);
    const openidBody = await openid.body();
    expect(openidBody.equals(await oauth.body())).toBe(true);

    const metadata = JSON.parse(openidBody.toString());
    expect(metadata).toMatchObject({
      issuer: E2E_ISSUER,
      authorization_endpoint: `${E2E_ISSUER}/oidc/auth`,
      token_endpoint: `${E2E_ISSUER}/oidc/token`,
      jwks_uri: `${E2E_ISSUER}/oidc/jwks`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
      // One per catalog in messages/ (OpenID Connect Discovery §3).
      ui_locales_supported: ['en', 'pt-BR'],
    });
    expect(metadata.grant_types_supported).not.toContain('implicit');
  });

  test('the JWKS serves an ES256 signing key with a kid, and no private material', async ({ request }) => {
    const response = await request.get('/oidc/jwks');
    expect(response.status()).toBe(200);
    const { keys } = (await response.json()) as { keys: Record<string, string>[] };
    const es256 = keys.find((key) => key.alg === 'ES256');
    expect(es256).toMatchObject({ kty: 'EC', crv: 'P-256', use: 'sig' });
    expect(es256?.kid).toBeTruthy();
    for (const key of keys) expect(key).not.toHaveProperty('d');
  });

  test('health and readiness answer for load balancers', async ({ request }) => {
    expect(await (await request.get('/api/health')).json()).toEqual({ status: 'ok' });
    const ready = await request.get('/api/ready');
    expect(ready.status()).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', database: { outage: null, lastOutage: null } });
  });
});
