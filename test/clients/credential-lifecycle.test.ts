// Secret rotation with an overlap window, revocation of a client's sessions and codes, dev-only redirect URIs —
// at the real token endpoint, with openid-client.
import { and, eq, sql } from 'drizzle-orm';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../lib/organizations/memberships';
import { createOrganization } from '../../lib/organizations/organizations';
import { addRedirectUri, appResource, createApp } from '../../lib/clients/apps';
import { setDevEnvironment } from '../../lib/clients/dev-environment';
import { endClientAccess as revokeClientAccess } from '../../lib/grants';
import { cancelRotation, completeRotation, credentialState, startRotation } from '../../lib/clients/rotation';
import { clientSecrets, clients } from '../../lib/db/schema';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { createMember, relyingParty, signIn, startProviderHarness, type AppFixture, type Harness } from '../support/provider-harness';

describe('client credential lifecycle', () => {
  let database: TestDatabase;
  let harness: Harness;
  let basicApp: AppFixture;
  let postApp: AppFixture;
  const email = 'rotator@lifecycle.test';

  async function makeApp(slug: string, method: 'client_secret_basic' | 'client_secret_post', orgId: string): Promise<AppFixture> {
    const origin = `https://${slug}.lifecycle.test`;
    const created = await createApp(database.db, { orgId, slug, name: slug, publishOrigin: origin, redirectUris: [`${origin}/cb`], tokenEndpointAuthMethod: method });
    return { ...created, orgId, redirectUri: `${origin}/cb`, resource: appResource(origin) };
  }

  beforeAll(async () => {
    database = await openTestDatabase();
    harness = await startProviderHarness(database);
    const org = await createOrganization(database.db, { slug: 'lifecycle', name: 'Lifecycle' });
    basicApp = await makeApp('basic', 'client_secret_basic', org.id);
    postApp = await makeApp('post', 'client_secret_post', org.id);
    const person = await createMember(database, org.id, email);
    await addMember(database.db, { orgId: org.id, userId: person.id, role: 'member' });
  });
  afterAll(async () => {
    await harness?.close();
    await database?.close();
  });

  function configWith(app: AppFixture, secret: string) {
    const auth = app === postApp ? oidc.ClientSecretPost(secret) : oidc.ClientSecretBasic(secret);
    return oidc.discovery(new URL(harness.issuer), app.clientId, undefined, auth, { execute: [oidc.allowInsecureRequests] });
  }

  /** Whether a secret authenticates at the token endpoint right now: a sign-in, then the code exchange with it. */
  async function authenticates(app: AppFixture, secret: string): Promise<boolean> {
    const attempt = await signIn(harness, database, await relyingParty(harness, app), app, { email });
    try {
      await oidc.authorizationCodeGrant(await configWith(app, secret), attempt.callbackUrl!, attempt.checks);
      return true;
    } catch (error) {
      if ((error as { error?: string; status?: number }).status === 401) return false;
      throw error;
    }
  }

  for (const method of ['client_secret_basic', 'client_secret_post'] as const) {
    it(`overlap (${method}): both secrets work during the window; after complete only the new one; after cancel only the old`, async () => {
      const app = method === 'client_secret_post' ? postApp : basicApp;
      const state = await credentialState(database.db, app.clientId);
      const started = await startRotation(database.db, app.clientId, state!.generation, 3600);
      expect(started.ok).toBe(true);
      if (!started.ok) return;
      expect(await authenticates(app, app.clientSecret)).toBe(true);
      expect(await authenticates(app, started.secret)).toBe(true);
      expect(await completeRotation(database.db, app.clientId, started.generation)).toMatchObject({ ok: true });
      expect(await authenticates(app, app.clientSecret)).toBe(false);
      expect(await authenticates(app, started.secret)).toBe(true);

      // Rotate again and cancel: the new one is discarded, the current one stays, without an end.
      const again = await startRotation(database.db, app.clientId, started.generation + 1, 3600);
      if (!again.ok) throw new Error(again.message);
      expect(await cancelRotation(database.db, app.clientId, again.generation)).toMatchObject({ ok: true });
      expect(await authenticates(app, again.secret)).toBe(false);
      expect(await authenticates(app, started.secret)).toBe(true);
      expect((await credentialState(database.db, app.clientId))?.secrets).toEqual([expect.objectContaining({ validUntil: null })]);
      app.clientSecret = started.secret;
    });
  }

  it('the old secret stops by itself when the overlap window ends', async () => {
    const state = await credentialState(database.db, basicApp.clientId);
    const started = await startRotation(database.db, basicApp.clientId, state!.generation, 3600);
    if (!started.ok) throw new Error(started.message);
    // The window ends now (as if an hour had passed).
    await database.db.update(clients).set({ rotationEndsAt: sql`now() - interval '1 second'` }).where(eq(clients.id, basicApp.clientId));
    await database.db.update(clientSecrets).set({ validUntil: sql`now() - interval '1 second'` }).where(and(eq(clientSecrets.clientId, basicApp.clientId), sql`${clientSecrets.validUntil} is not null`));
    expect(await authenticates(basicApp, basicApp.clientSecret)).toBe(false);
    expect(await authenticates(basicApp, started.secret)).toBe(true);
    // An ended window is a completed rotation: cancelling it must not bring the old (maybe leaked) secret back.
    expect(await cancelRotation(database.db, basicApp.clientId, started.generation)).toMatchObject({ ok: false, reason: 'not_rotating' });
    expect(await authenticates(basicApp, basicApp.clientSecret)).toBe(false);
    expect((await credentialState(database.db, basicApp.clientId))?.rotationEndsAt).toBeNull();
    // And a new rotation may start without anyone completing the old one.
    const next = await startRotation(database.db, basicApp.clientId, started.generation, 3600);
    if (!next.ok) throw new Error(next.message);
    expect(await cancelRotation(database.db, basicApp.clientId, next.generation)).toMatchObject({ ok: true });
    expect(await authenticates(basicApp, started.secret)).toBe(true);
    basicApp.clientSecret = started.secret;
  });

  it('two concurrent rotations: exactly one wins, the other gets a conflict; a stale generation is refused', async () => {
    const { generation } = (await credentialState(database.db, postApp.clientId))!;
    const results = await Promise.all([startRotation(database.db, postApp.clientId, generation), startRotation(database.db, postApp.clientId, generation)]);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok)).toEqual([expect.objectContaining({ reason: 'conflict' })]);
    const winner = results.find((r) => r.ok) as { ok: true; generation: number; secret: string };

    // Someone who has not seen the rotation (old generation) can neither cancel, complete nor restart it.
    expect(await cancelRotation(database.db, postApp.clientId, generation)).toMatchObject({ ok: false, reason: 'conflict' });
    expect(await completeRotation(database.db, postApp.clientId, generation)).toMatchObject({ ok: false, reason: 'conflict' });
    expect(await startRotation(database.db, postApp.clientId, generation)).toMatchObject({ ok: false, reason: 'conflict' });
    // With the current generation, a second start is refused while one is in progress, and nothing changes.
    expect(await startRotation(database.db, postApp.clientId, winner.generation)).toMatchObject({ ok: false, reason: 'already_rotating' });
    expect((await credentialState(database.db, postApp.clientId))?.generation).toBe(winner.generation);
    expect(await authenticates(postApp, winner.secret)).toBe(true);
    expect(await authenticates(postApp, postApp.clientSecret)).toBe(true);
    // Concurrent completes: one wins.
    const completes = await Promise.all([completeRotation(database.db, postApp.clientId, winner.generation), completeRotation(database.db, postApp.clientId, winner.generation)]);
    expect(completes.filter((r) => r.ok)).toHaveLength(1);
    postApp.clientSecret = winner.secret;
  });

  it('revocation ends refresh tokens and codes in flight; an access token already issued verifies until it expires', async () => {
    const rp = await relyingParty(harness, basicApp);
    const withRefresh = await signIn(harness, database, rp, basicApp, { email }, { scope: 'openid offline_access mcp', prompt: 'consent', resource: basicApp.resource });
    const tokens = await oidc.authorizationCodeGrant(rp, withRefresh.callbackUrl!, withRefresh.checks);
    const inFlight = await signIn(harness, database, rp, basicApp, { email });

    const counts = await revokeClientAccess(database.db, basicApp.clientId);
    expect(counts.Grant).toBeGreaterThan(0);

    await expect(oidc.refreshTokenGrant(rp, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect(oidc.authorizationCodeGrant(rp, inFlight.callbackUrl!, inFlight.checks)).rejects.toMatchObject({ error: 'invalid_grant' });
    // The documented slack: the JWT access token is verified locally, so it stays valid until it expires.
    const { payload } = await jwtVerify(tokens.access_token, createRemoteJWKSet(new URL(`${harness.issuer}/oidc/jwks`)), {
      issuer: harness.issuer,
      audience: basicApp.app.identity,
    });
    expect(payload.exp! - Math.floor(Date.now() / 1000)).toBeLessThanOrEqual(600);
  });

  it('a dev-only redirect URI is accepted while the dev environment is active, refused after its end time', async () => {
    const devUri = 'http://localhost:5173/cb';
    await addRedirectUri(database.db, basicApp.clientId, devUri, true);
    const rp = await relyingParty(harness, basicApp);
    const devApp = { ...basicApp, redirectUri: devUri };
    const refusedBefore = await signIn(harness, database, rp, devApp, { email });
    expect(refusedBefore.outcome.kind).toBe('expired'); // no sign-in card: the provider refused the request

    await setDevEnvironment(database.db, basicApp.app.id, new Date(Date.now() + 60_000));
    const accepted = await signIn(harness, database, rp, devApp, { email });
    expect(accepted.outcome.kind).toBe('continue');
    expect(accepted.callbackUrl?.href.startsWith(devUri)).toBe(true);

    await setDevEnvironment(database.db, basicApp.app.id, new Date(Date.now() - 1_000));
    const start = await fetch(
      oidc.buildAuthorizationUrl(rp, { redirect_uri: devUri, scope: 'openid', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' }),
      { redirect: 'manual' },
    );
    // A clear error page from Portico, never a redirect to the URI.
    expect(start.status).toBe(400);
    expect(start.headers.get('location')).toBeNull();
    expect(await start.text()).toContain('redirect_uri did not match');
  });
});
