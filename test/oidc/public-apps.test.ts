// Single-page and native apps (issue 54): an app whose own client is public — PKCE, no secret, exact redirect URIs
// (a native app's private-use scheme, or loopback http with any port, RFC 8252 §7), refresh tokens rotated and living
// 7 days, its token endpoint answering its redirect URIs' origins (CORS) — signing in on the app's own card with no
// extra consent. The browser-level test with oidc-client-ts is e2e/relying-parties.spec.ts.
import { randomBytes } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import * as oidc from 'openid-client';
import { describe, expect, it } from 'vitest';
import { appClientRegistration, createApp, setNonceWithoutPkce, type AppProfile } from '../../lib/clients/apps';
import { validateRedirectUri } from '../../lib/clients/validation';
import { createOrganization } from '../../lib/accounts/organizations';
import { clientSecrets, clients, oidcPayloads } from '../../lib/db/schema';
import { hashStoredId } from '../../lib/oidc/stored-ids';
import { PUBLIC_APP_REFRESH_TOKEN_TTL_SECONDS, TOKEN_TTL } from '../../lib/oidc/token-ttl';
import { createMember, signIn, useProviderHarness, type AppFixture } from '../support/provider-harness';

describe('single-page and native apps', () => {
  const suite = useProviderHarness();

  async function publicApp(profile: AppProfile, redirectUris: string[]) {
    const tag = randomBytes(4).toString('hex');
    const org = await createOrganization(suite.database.db, { slug: `public-${tag}`, name: `Public ${tag}` });
    const origin = `https://${profile}-${tag}.apps.test`;
    const created = await createApp(suite.database.db, { orgId: org.id, slug: 'app', name: `${profile} ${tag}`, publishOrigin: origin, redirectUris: redirectUris.map((uri) => uri.replace('{origin}', origin)), profile });
    const email = `p-${tag}@example.com`;
    await createMember(suite.database, org.id, email);
    const config = await oidc.discovery(new URL(suite.harness.issuer), created.clientId, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
    const fixture = (redirectUri: string): AppFixture => ({ ...created, clientSecret: '', orgId: org.id, redirectUri, resource: `${origin}/api/mcp` });
    return { created, origin, email, config, fixture };
  }

  it('a single-page app: a public client with no secret signs in with PKCE, gets a refresh token of 7 days that rotates', async () => {
    const { created, origin, email, config, fixture } = await publicApp('spa', ['{origin}/callback']);
    expect(created.clientSecret).toBeUndefined();
    const [row] = await suite.database.db.select().from(clients).where(eq(clients.id, created.clientId));
    expect(row).toMatchObject({ kind: 'app', type: 'public', tokenEndpointAuthMethod: 'none', secretGeneration: null });
    expect(await suite.database.db.select().from(clientSecrets).where(eq(clientSecrets.clientId, created.clientId))).toEqual([]);
    expect(await appClientRegistration(suite.database.db, created.clientId)).toMatchObject({ profile: 'spa' });

    const attempt = await signIn(suite.harness, suite.database, config, fixture(`${origin}/callback`), { email }, { scope: 'openid email profile offline_access', prompt: 'consent' });
    // The app's own card, no consent screen: the sign-in goes straight back to the app.
    expect(attempt.outcome.kind).toBe('continue');
    const tokens = await oidc.authorizationCodeGrant(config, attempt.callbackUrl!, attempt.checks);
    expect(tokens.claims()).toMatchObject({ email, aud: created.clientId });
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const lifetime = async (refreshToken: string) => {
      const [stored] = await suite.database.db.select({ expiresAt: oidcPayloads.expiresAt }).from(oidcPayloads).where(and(eq(oidcPayloads.kind, 'RefreshToken'), eq(oidcPayloads.id, hashStoredId(refreshToken))));
      return (stored!.expiresAt!.getTime() - Date.now()) / 1000;
    };
    const first = await lifetime(tokens.refresh_token!);
    expect(first).toBeGreaterThan(PUBLIC_APP_REFRESH_TOKEN_TTL_SECONDS - 60);
    expect(first).toBeLessThanOrEqual(PUBLIC_APP_REFRESH_TOKEN_TTL_SECONDS);
    expect(PUBLIC_APP_REFRESH_TOKEN_TTL_SECONDS).toBeLessThan(TOKEN_TTL.RefreshToken);
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect(await lifetime(refreshed.refresh_token!)).toBeGreaterThan(PUBLIC_APP_REFRESH_TOKEN_TTL_SECONDS - 60);
  });

  it('a single-page app never signs in without PKCE (no nonce exception for a public client), and its token endpoint answers only its own origin', async () => {
    const { created, origin, email, config, fixture } = await publicApp('spa', ['{origin}/callback']);
    // The exception is for confidential clients only: the switch does not even take.
    expect(await setNonceWithoutPkce(suite.database.db, created.clientId, true)).toBe(false);
    const withoutPkce = await signIn(suite.harness, suite.database, config, fixture(`${origin}/callback`), { email }, { code_challenge: '', code_challenge_method: '' });
    expect(withoutPkce.callbackUrl?.searchParams.get('error')).toBe('invalid_request');

    // CORS (the browser calls the token endpoint itself): its redirect URIs' origin is allowed, another is not.
    const attempt = await signIn(suite.harness, suite.database, config, fixture(`${origin}/callback`), { email });
    const code = attempt.callbackUrl!.searchParams.get('code')!;
    const tokenRequest = (from: string) =>
      fetch(`${suite.harness.issuer}/oidc/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: from },
        body: new URLSearchParams({ grant_type: 'authorization_code', client_id: created.clientId, code, redirect_uri: `${origin}/callback`, code_verifier: attempt.checks.pkceCodeVerifier }),
      });
    const elsewhere = await tokenRequest('https://elsewhere.example');
    expect(elsewhere.headers.get('access-control-allow-origin')).toBeNull();
    const own = await tokenRequest(origin);
    expect(own.headers.get('access-control-allow-origin')).toBe(origin);
  });

  it('a native app returns to its private-use scheme, or to loopback http on whatever port it listens (RFC 8252 §7.1, §7.3)', async () => {
    const { created, email, config, fixture } = await publicApp('native', ['com.example.notes:/callback', 'http://127.0.0.1/callback']);
    expect(await appClientRegistration(suite.database.db, created.clientId)).toMatchObject({ profile: 'native' });
    for (const redirectUri of ['com.example.notes:/callback', 'http://127.0.0.1:53123/callback']) {
      const attempt = await signIn(suite.harness, suite.database, config, fixture(redirectUri), { email });
      expect(attempt.outcome.kind, redirectUri).toBe('continue');
      expect(attempt.callbackUrl!.href.startsWith(`${redirectUri}?`), attempt.callbackUrl!.href).toBe(true);
      const tokens = await oidc.authorizationCodeGrant(config, attempt.callbackUrl!, attempt.checks, { redirect_uri: redirectUri });
      expect(tokens.claims()).toMatchObject({ email });
    }
    // Another path on loopback, or another scheme, is not registered.
    const wrong = await signIn(suite.harness, suite.database, config, fixture('http://127.0.0.1:53123/elsewhere'), { email });
    expect(wrong.callbackUrl).toBeUndefined();
  });

  it('accepts each kind of app only the redirect URIs it can use', () => {
    expect(validateRedirectUri('com.example.notes:/callback', 'native')).toEqual({ ok: true, value: 'com.example.notes:/callback' });
    for (const [uri, profile] of [
      ['com.example.notes:/callback', 'spa'],
      ['com.example.notes:/callback', 'web'],
      ['notes:/callback', 'native'],
      ['javascript:alert(1)', 'native'],
      ['com.example.notes:/callback#x', 'native'],
      ['https://localhost/callback', 'native'],
      ['http://notes.example/callback', 'native'],
    ] as const) {
      expect(validateRedirectUri(uri, profile).ok, `${profile} ${uri}`).toBe(false);
    }
  });
});
