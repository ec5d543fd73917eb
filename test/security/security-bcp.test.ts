// The OAuth 2.0 Security BCP (RFC 9700) as a checklist, one test an item, against the real provider configuration
// and database with openid-client as the relying party. The clickjacking item is checked on every interactive page
// by e2e/security-headers.spec.ts (it needs the Next.js pages); tokens in a server process's logs by
// e2e/instances.spec.ts.
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { createMember, createOrgWithApp, relyingParty, signIn, startProviderHarness, type AppFixture, type Harness } from '../support/provider-harness';

describe('RFC 9700 checklist', () => {
  let database: TestDatabase;
  let harness: Harness;
  let app: AppFixture;
  let config: oidc.Configuration;
  const email = 'bcp@checklist.test';

  beforeAll(async () => {
    database = await openTestDatabase();
    // No grace for refresh token reuse here: the first reuse is theft (identity-core.test.ts covers the grace).
    harness = await startProviderHarness(database, { refreshTokenReuseGraceSeconds: 0 });
    app = await createOrgWithApp(database, 'Checklist');
    await createMember(database, app.orgId, email);
    config = await relyingParty(harness, app);
  });
  afterAll(async () => {
    await harness?.close();
    await database?.close();
  });

  const basic = () => `Basic ${Buffer.from(`${encodeURIComponent(app.clientId)}:${encodeURIComponent(app.clientSecret)}`).toString('base64')}`;
  async function tokenEndpoint(parameters: Record<string, string>) {
    const response = await fetch(`${harness.issuer}/oidc/token`, { method: 'POST', headers: { Authorization: basic() }, body: new URLSearchParams(parameters) });
    return { status: response.status, body: (await response.json()) as Record<string, string> };
  }
  /** The authorization endpoint's first answer, without following it. */
  async function authorize(parameters: Record<string, string>) {
    const url = new URL(`${harness.issuer}/oidc/auth`);
    url.search = new URLSearchParams({ client_id: app.clientId, response_type: 'code', scope: 'openid', redirect_uri: app.redirectUri, state: 's', ...parameters }).toString();
    const response = await fetch(url, { redirect: 'manual' });
    return { status: response.status, location: response.headers.get('location'), body: await response.text() };
  }
  const challengeOf = (verifier: string) => oidc.calculatePKCECodeChallenge(verifier);

  it('§4.2.4 / §2.1.1: a replayed authorization code is refused and revokes the tokens issued from it', async () => {
    const attempt = await signIn(harness, database, config, app, { email }, { scope: 'openid offline_access', prompt: 'consent' });
    const code = attempt.callbackUrl!.searchParams.get('code')!;
    const tokens = await oidc.authorizationCodeGrant(config, attempt.callbackUrl!, attempt.checks);
    expect(await oidc.fetchUserInfo(config, tokens.access_token, tokens.claims()!.sub)).toMatchObject({ sub: tokens.claims()!.sub });

    const replay = await tokenEndpoint({ grant_type: 'authorization_code', code, redirect_uri: app.redirectUri, code_verifier: attempt.checks.pkceCodeVerifier });
    expect(replay).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    // What the first exchange issued is gone: the opaque access token and the refresh token.
    await expect(oidc.fetchUserInfo(config, tokens.access_token, tokens.claims()!.sub)).rejects.toThrow();
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('§4.1.3: redirect URIs match exactly; a near miss gets an error page, never a redirect (no open redirector)', async () => {
    const registered = new URL(app.redirectUri);
    const nearMisses = [
      `${app.redirectUri}/more`,
      `${app.redirectUri}extra`,
      `${registered.origin}/callback/../evil`,
      `${registered.origin}/%2e%2e/evil`,
      `${app.redirectUri}?next=https://evil.example`,
      `${app.redirectUri}#fragment`,
      app.redirectUri.replace('https://', 'http://'),
      app.redirectUri.replace(registered.hostname, registered.hostname.toUpperCase()),
      `${registered.protocol}//${registered.hostname}:8443${registered.pathname}`,
      'https://evil.example/callback',
    ];
    for (const redirectUri of nearMisses) {
      const answer = await authorize({ redirect_uri: redirectUri, code_challenge: await challengeOf('v'.repeat(43)), code_challenge_method: 'S256' });
      expect(answer.location, redirectUri).toBeNull();
      expect(answer.status, redirectUri).toBe(400);
      expect(answer.body, redirectUri).toContain('redirect_uri');
    }
    // An unknown client is no way around it either.
    const unknown = await authorize({ client_id: 'no-such-client', redirect_uri: 'https://evil.example/callback' });
    expect(unknown.location).toBeNull();
  });

  it('§2.1.1: PKCE is required, S256 only, and a code cannot be redeemed without its verifier (no downgrade)', async () => {
    const missing = await authorize({});
    // An error for the client at its registered redirect URI, with no code.
    expect(missing.location).toContain(app.redirectUri);
    expect(new URL(missing.location!).searchParams.get('error')).toBe('invalid_request');
    expect(new URL(missing.location!).searchParams.get('code')).toBeNull();
    const plain = await authorize({ code_challenge: 'v'.repeat(43), code_challenge_method: 'plain' });
    expect(new URL(plain.location!).searchParams.get('error')).toBe('invalid_request');

    const attempt = await signIn(harness, database, config, app, { email });
    const code = attempt.callbackUrl!.searchParams.get('code')!;
    // Without the verifier, with another one, or with the challenge itself: refused (and the code stays unspent
    // for nobody: a refused exchange does not help an attacker try again with another verifier).
    expect(await tokenEndpoint({ grant_type: 'authorization_code', code, redirect_uri: app.redirectUri })).toMatchObject({ body: { error: 'invalid_grant' } });
    const second = await signIn(harness, database, config, app, { email });
    expect(
      await tokenEndpoint({ grant_type: 'authorization_code', code: second.callbackUrl!.searchParams.get('code')!, redirect_uri: app.redirectUri, code_verifier: oidc.randomPKCECodeVerifier() }),
    ).toMatchObject({ body: { error: 'invalid_grant' } });
  });

  it('§4.4 (RFC 9207): every authorization response names the issuer, success and error alike (mix-up defence)', async () => {
    const metadata = (await (await fetch(`${harness.issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(metadata.authorization_response_iss_parameter_supported).toBe(true);
    const attempt = await signIn(harness, database, config, app, { email });
    expect(attempt.callbackUrl!.searchParams.get('iss')).toBe(harness.issuer);
    const error = await authorize({});
    expect(new URL(error.location!).searchParams.get('iss')).toBe(harness.issuer);
    // openid-client refuses a response that names another issuer.
    const forged = new URL(attempt.callbackUrl!);
    forged.searchParams.set('iss', 'https://attacker.example');
    await expect(oidc.authorizationCodeGrant(config, forged, attempt.checks)).rejects.toThrow();
  });

  it('§4.14: refresh tokens rotate, and the reuse of a rotated one revokes the whole grant', async () => {
    const attempt = await signIn(harness, database, config, app, { email }, { scope: 'openid offline_access', prompt: 'consent' });
    const tokens = await oidc.authorizationCodeGrant(config, attempt.callbackUrl!, attempt.checks);
    const rotated = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(rotated.refresh_token).toBeTruthy();
    expect(rotated.refresh_token).not.toBe(tokens.refresh_token);
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect(oidc.refreshTokenGrant(config, rotated.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('§4.7: state comes back exactly as sent, and a response with another state is refused by the client', async () => {
    const state = `st-${oidc.randomState()}-~._`;
    const url = oidc.buildAuthorizationUrl(config, { redirect_uri: app.redirectUri, scope: 'openid', code_challenge: await challengeOf('w'.repeat(43)), code_challenge_method: 'S256', state });
    expect(url.searchParams.get('state')).toBe(state);
    const attempt = await signIn(harness, database, config, app, { email }, { state });
    expect(attempt.callbackUrl!.searchParams.get('state')).toBe(state);
    const other = await signIn(harness, database, config, app, { email });
    await expect(oidc.authorizationCodeGrant(config, other.callbackUrl!, { ...other.checks, expectedState: 'not-the-one-sent' })).rejects.toThrow();
  });

  it('§2.1.2 / §4.3: tokens never travel in URLs (no implicit grant, no token in any redirect) nor in the provider’s logs', async () => {
    for (const responseType of ['token', 'id_token token', 'code token', 'code id_token']) {
      const answer = await authorize({ response_type: responseType, code_challenge: await challengeOf('x'.repeat(43)), code_challenge_method: 'S256' });
      // Refused: an error page, or an error for the client (in the query, or the fragment a token flow would use).
      const location = answer.location ? new URL(answer.location) : undefined;
      const error = location?.searchParams.get('error') ?? new URLSearchParams(location?.hash.slice(1) ?? '').get('error');
      expect(error ?? (answer.status >= 400 ? 'error page' : undefined), responseType).toMatch(/unsupported_response_type|unauthorized_client|invalid_request|error page/);
      expect(answer.location ?? '', responseType).not.toMatch(/access_token|id_token=/);
    }
    const logged: string[] = [];
    const spies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((level) => vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(' '))));
    try {
      const attempt = await signIn(harness, database, config, app, { email }, { scope: 'openid offline_access', prompt: 'consent' });
      expect([...attempt.callbackUrl!.searchParams.keys()].sort()).toEqual(['code', 'iss', 'state']);
      const tokens = await oidc.authorizationCodeGrant(config, attempt.callbackUrl!, attempt.checks);
      const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
      await oidc.fetchUserInfo(config, refreshed.access_token, tokens.claims()!.sub);
      const secrets = [tokens.access_token, tokens.refresh_token!, tokens.id_token!, refreshed.access_token, refreshed.refresh_token!, attempt.callbackUrl!.searchParams.get('code')!];
      for (const secret of secrets) expect(logged.join('\n')).not.toContain(secret);
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });
});
