// The protected-resource gate shared by Portico's API and the app kit: every way a token can be wrong gets the
// RFC 6750 answer, and only a token for this exact audience, from this issuer, signed with a known key, passes.
import { createLocalJWKSet, exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { authorizeBearer, bearerChallenge, protectedResourceMetadataUrl, verifyAccessToken, type ProtectedResourceConfig } from '../../app-kit/protected-resource';
import { tamperedToken } from '../support/tamper';

const config: ProtectedResourceConfig = {
  resource: 'https://app.example/api/mcp',
  issuer: 'https://portico.example',
  audience: 'urn:portico:app:1',
  scopesSupported: ['mcp'],
};

describe('the bearer gate', () => {
  let privateKey: CryptoKey;
  let otherKey: CryptoKey;
  let keys: ReturnType<typeof createLocalJWKSet>;

  beforeAll(async () => {
    const pair = await generateKeyPair('ES256');
    privateKey = pair.privateKey;
    otherKey = (await generateKeyPair('ES256')).privateKey;
    const jwk: JWK = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256' };
    keys = createLocalJWKSet({ keys: [jwk] });
  });

  function token(claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}, key = privateKey) {
    const now = Math.floor(Date.now() / 1000);
    // The overrides come last, so each test case changes exactly one claim.
    return new SignJWT({ iss: config.issuer, aud: config.audience, sub: 'person-1', iat: now, exp: now + 300, client_id: 'c1', scope: 'mcp', ...claims })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'k1', ...header })
      .sign(key);
  }

  const call = (authorization?: string) =>
    authorizeBearer(new Request(config.resource, { method: 'POST', headers: authorization ? { Authorization: authorization } : {} }), config, keys, ['mcp']);

  afterEach(() => vi.useRealTimers());

  it('serves a verified token from its cache only until its exp, and never for another token', async () => {
    const now = Date.now();
    const jwt = await token({ exp: Math.floor(now / 1000) + 60 });
    expect((await verifyAccessToken(jwt, config, keys)).ok).toBe(true);
    expect((await verifyAccessToken(jwt, config, keys)).ok).toBe(true);
    // The same token for another audience is checked again (and refused): the cache key names the audience.
    expect((await verifyAccessToken(jwt, { ...config, audience: 'urn:portico:app:2' }, keys)).ok).toBe(false);
    // One byte changed in the signature: another key, a full verification, a refusal.
    const tampered = tamperedToken(jwt);
    expect((await verifyAccessToken(tampered, config, keys)).ok).toBe(false);
    // Past its exp the cached entry is dropped and the token refused.
    vi.useFakeTimers({ now: now + 120_000 });
    const expired = await verifyAccessToken(jwt, config, keys);
    expect(expired).toMatchObject({ ok: false, error: { error: 'invalid_token', description: 'the access token has expired' } });
  });

  it('publishes its metadata at the RFC 9728 path-suffixed address and names it in every challenge', () => {
    expect(protectedResourceMetadataUrl(config.resource)).toBe('https://app.example/.well-known/oauth-protected-resource/api/mcp');
    expect(bearerChallenge(config, ['mcp'])).toBe('Bearer resource_metadata="https://app.example/.well-known/oauth-protected-resource/api/mcp", scope="mcp"');
  });

  it('accepts a good token and reads sub, act and azp (azp is not a gate)', async () => {
    const result = await call(`Bearer ${await token({ act: { sub: 'agt_1234567890abcdef' }, azp: 'someone-else' })}`);
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.token).toMatchObject({ subject: 'person-1', actor: 'agt_1234567890abcdef', authorizedParty: 'someone-else', clientId: 'c1' });
  });

  it('without a token: 401 with the challenge and no error code (RFC 6750 §3.1)', async () => {
    const result = await call();
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.response.status).toBe(401);
    expect(result.response.headers.get('www-authenticate')).not.toContain('error=');
  });

  it('refuses every kind of wrong token with 401 invalid_token', async () => {
    const [header, payload] = (await token()).split('.');
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url')}.${payload}.`;
    const hs256 = await new SignJWT({ client_id: 'c1', scope: 'mcp' })
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: 'k1' })
      .setIssuer(config.issuer).setAudience(config.audience).setSubject('p').setExpirationTime('5m')
      .sign(new TextEncoder().encode('a shared secret that is long enough!'));
    const wrong = [
      await token({ aud: 'urn:portico:app:2' }),
      await token({ iss: 'https://evil.example' }),
      await token({ exp: Math.floor(Date.now() / 1000) - 60 }),
      await token({}, { kid: 'unknown' }),
      await token({}, { typ: 'JWT' }),
      await token({}, {}, otherKey),
      unsigned,
      hs256,
      `${header}.${payload}.${'A'.repeat(86)}`,
    ];
    for (const jwt of wrong) {
      const result = await call(`Bearer ${jwt}`);
      expect(result.ok, jwt.slice(0, 40)).toBe(false);
      if (result.ok) continue;
      expect(result.response.status).toBe(401);
      expect(result.response.headers.get('www-authenticate')).toContain('error="invalid_token"');
    }
  });

  it('answers a token without the scope with 403 insufficient_scope naming it, and a malformed header with 400', async () => {
    const narrow = await call(`Bearer ${await token({ scope: 'openid' })}`);
    expect(narrow.ok).toBe(false);
    if (!narrow.ok) {
      expect(narrow.response.status).toBe(403);
      expect(narrow.response.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
      // Only what is needed (RFC 6750 §3.1; MCP 2026-07-28): the client adds it to what it already asked for.
      expect(narrow.response.headers.get('www-authenticate')).toContain('scope="mcp"');
      expect(narrow.response.headers.get('www-authenticate')).not.toContain('openid');
    }
    const malformed = await call('Basic dXNlcjpwYXNz');
    expect(malformed.ok).toBe(false);
    if (!malformed.ok) expect(malformed.response.status).toBe(400);
  });
});
