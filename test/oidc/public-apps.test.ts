// Single-page and native apps (issue 54): an app whose own client is public — PKCE, no secret, exact redirect URIs
// (a native app's private-use scheme, or loopback http with any port, RFC 8252 §7), refresh tokens rotated and living
// 7 days, its token endpoint answering its redirect URIs' origins (CORS) — signing in on the app's own card with no
// extra consent. The browser-level test with oidc-client-ts is e2e/relying-parties.spec.ts.
import { randomBytes } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import * as oidc from 'openid-client';
import { describe, expect, it } from 'vitest';
import { appClientRegistration, assertPublishOriginAvailable, createApp, findAppByResource, findOrgApp, setNonceWithoutPkce, type AppProfile } from '../../lib/clients/apps';
import { setAppBackchannelApproval, setAppNonceWithoutPkce, startSecretRotation } from '../../lib/clients/app-commands';
import { validateRedirectUri } from '../../lib/clients/validation';
import { createOrganization } from '../../lib/organizations/organizations';
import { clientSecrets, clients, oidcPayloads } from '../../lib/db/schema';
import { hashStoredId } from '../../lib/oidc/stored-ids';
import { PUBLIC_APP_REFRESH_TOKEN_TTL_SECONDS, TOKEN_TTL } from '../../lib/oidc/token-ttl';
import { CookieJar, createMember, signIn, useProviderHarness, type AppFixture } from '../support/provider-harness';

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

  it('refuses what needs a secret for a single-page app, at the command every door calls: the nonce exception, backend approvals (CIBA), a secret rotation', async () => {
    const { created } = await publicApp('spa', ['{origin}/callback']);
    const listing = (await findOrgApp(suite.database.db, created.app.orgId, created.app.id))!;
    const audited: string[] = [];
    const ctx = { tx: suite.database.db, audit: async (record: { action: string }) => void audited.push(record.action) };
    for (const attempt of [() => setAppNonceWithoutPkce(ctx, listing, true), () => setAppBackchannelApproval(ctx, listing, true), () => startSecretRotation(ctx, listing, { overlapSeconds: 3600 })]) {
      await expect(attempt()).rejects.toMatchObject({ status: 409, text: { key: expect.stringMatching(/publicClient|appNoSecret/) } });
    }
    expect(audited).toEqual([]);
  });

  it("lets two organizations' native apps both return to loopback (RFC 8252 §7.3): it names no resource and claims no origin", async () => {
    const first = await publicApp('native', ['http://127.0.0.1/callback']);
    const second = await publicApp('native', ['http://127.0.0.1/callback', 'com.example.second:/callback']);
    expect(first.created.clientId).not.toBe(second.created.clientId);
    expect(await findAppByResource(suite.database.db, 'http://127.0.0.1/api/mcp')).toBeUndefined();
    // A web app may still be published at a loopback address of its own (development), and owns it.
    const tag = randomBytes(4).toString('hex');
    const org = await createOrganization(suite.database.db, { slug: `loop-${tag}`, name: 'Loop' });
    await assertPublishOriginAvailable(suite.database.db, { origin: 'http://127.0.0.1', issuer: suite.harness.issuer, orgId: org.id });
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
    // Another path on loopback, or another scheme, is not registered: no redirect at all (RFC 6749 §4.1.2.1).
    for (const unregistered of ['http://127.0.0.1:53123/elsewhere', 'com.example.other:/callback', 'https://127.0.0.1/callback']) {
      const wrong = await signIn(suite.harness, suite.database, config, fixture(unregistered), { email });
      expect(wrong.callbackUrl, unregistered).toBeUndefined();
    }
  });

  it('a native app is never signed in from an existing session alone (RFC 8252 §8.6): the card every time, and prompt=none gets login_required; a single-page app is', async () => {
    const native = await publicApp('native', ['com.example.notes:/callback']);
    const jar = new CookieJar();
    const first = await signIn(suite.harness, suite.database, native.config, native.fixture('com.example.notes:/callback'), { email: native.email }, {}, jar);
    expect(first.outcome.kind).toBe('continue');
    // Signed in at Portico now; the next request still goes through the card (the password again).
    const again = await signIn(suite.harness, suite.database, native.config, native.fixture('com.example.notes:/callback'), { email: native.email }, {}, jar);
    expect(again.outcome.kind).toBe('continue');
    const silent = await signIn(suite.harness, suite.database, native.config, native.fixture('com.example.notes:/callback'), { email: native.email }, { prompt: 'none' }, jar);
    expect(silent.callbackUrl?.searchParams.get('error')).toBe('login_required');

    // The same person's session signs them in to a single-page app of the same organization without the card.
    const spa = await publicApp('spa', ['{origin}/callback']);
    const spaJar = new CookieJar();
    await signIn(suite.harness, suite.database, spa.config, spa.fixture(`${spa.origin}/callback`), { email: spa.email }, {}, spaJar);
    const spaAgain = await signIn(suite.harness, suite.database, spa.config, spa.fixture(`${spa.origin}/callback`), { email: spa.email }, { prompt: 'none' }, spaJar);
    expect(spaAgain.callbackUrl?.searchParams.get('code')).toEqual(expect.any(String));
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
      ['http://127.0.0.2/callback', 'native'],
      ['http://app.localhost/callback', 'native'],
    ] as const) {
      expect(validateRedirectUri(uri, profile).ok, `${profile} ${uri}`).toBe(false);
    }
  });
});
