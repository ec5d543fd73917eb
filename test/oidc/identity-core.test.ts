// Apps as OIDC clients, tokens bound to one app, membership re-checked at every step — with openid-client as the
// relying party against the real provider configuration and database.
import { and, eq, sql } from 'drizzle-orm';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { rowsOf } from '../../lib/db/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, removeMember } from '../../lib/organizations/memberships';
import { endAccountSession, endOtherAccountSessions, listAccountSessions, listSessions, signOutEverywhere } from '../../lib/accounts/sessions';
import { createConsoleSession, findConsoleSession } from '../../lib/accounts/console-sessions';
import { openCentralSession } from '../../lib/approvals/central';
import { memberships, oidcPayloads, users } from '../../lib/db/schema';
import { hashStoredId } from '../../lib/oidc/stored-ids';
import { addPostLogoutRedirectUri, appClientRegistration, removePostLogoutRedirectUri, setIdTokenAlg } from '../../lib/clients/apps';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { CookieJar, createMember, createOrgWithApp, relyingParty, signIn, startProviderHarness, type AppFixture, type Harness } from '../support/provider-harness';

describe('identity core', () => {
  let database: TestDatabase;
  let harness: Harness;
  let appA: AppFixture;
  let appB: AppFixture;
  let configA: oidc.Configuration;
  let personId: string;
  const email = 'ada@acme.test';

  beforeAll(async () => {
    database = await openTestDatabase();
    harness = await startProviderHarness(database, { refreshTokenReuseGraceSeconds: 2 });
    appA = await createOrgWithApp(database, 'Acme');
    appB = await createOrgWithApp(database, 'Globex');
    personId = (await createMember(database, appA.orgId, email)).id;
    configA = await relyingParty(harness, appA);
  });
  afterAll(async () => {
    await harness?.close();
    await database?.close();
  });

  async function tokensFor(config: oidc.Configuration, app: AppFixture, parameters: Record<string, string> = {}) {
    const attempt = await signIn(harness, database, config, app, { email }, parameters);
    expect(attempt.outcome.kind).toBe('continue');
    return oidc.authorizationCodeGrant(config, attempt.callbackUrl!, attempt.checks);
  }

  it("issues a JWT access token for the app's resource: ES256, at most 10 minutes, aud = app identity, azp, sub, org", async () => {
    const tokens = await tokensFor(configA, appA, { resource: appA.resource, scope: 'openid mcp' });
    expect(decodeProtectedHeader(tokens.access_token)).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
    const jwks = createRemoteJWKSet(new URL(`${harness.issuer}/oidc/jwks`));
    const { payload } = await jwtVerify(tokens.access_token, jwks, { issuer: harness.issuer, audience: appA.app.identity });
    expect(payload).toMatchObject({ sub: personId, azp: appA.clientId, client_id: appA.clientId, org: appA.orgId, scope: 'mcp' });
    expect(payload.exp! - payload.iat!).toBeLessThanOrEqual(600);
    expect(tokens.expires_in).toBeLessThanOrEqual(600);
  });

  it("never lets one app's token pass as another's: the audience differs, and the client cannot ask for the other app", async () => {
    const tokens = await tokensFor(configA, appA, { resource: appA.resource, scope: 'openid mcp' });
    const jwks = createRemoteJWKSet(new URL(`${harness.issuer}/oidc/jwks`));
    // What app B does with any bearer token: verify it with its own identity as the expected audience.
    await expect(jwtVerify(tokens.access_token, jwks, { issuer: harness.issuer, audience: appB.app.identity })).rejects.toMatchObject({
      code: 'ERR_JWT_CLAIM_VALIDATION_FAILED',
      claim: 'aud',
    });

    // App A's client asking for app B's resource is refused at the authorization endpoint (RFC 8707 invalid_target).
    const attempt = await signIn(harness, database, configA, appA, { email }, { resource: appB.resource, scope: 'openid mcp' });
    expect(attempt.callbackUrl?.searchParams.get('error')).toBe('invalid_target');
    expect(`${attempt.callbackUrl!.origin}${attempt.callbackUrl!.pathname}`).toBe(appA.redirectUri);
  });

  it('validates the ID token and serves userinfo with the opaque token issued without a resource', async () => {
    const tokens = await tokensFor(configA, appA);
    expect(tokens.claims()).toMatchObject({ iss: harness.issuer, aud: appA.clientId, sub: personId });
    const userinfo = await oidc.fetchUserInfo(configA, tokens.access_token, personId);
    expect(userinfo).toMatchObject({ sub: personId, email });
  });

  it('takes the authorization request by POST as well as GET (OIDC Core §3.1.2.1), and every ID token names its session (sid)', async () => {
    const attempt = await signIn(harness, database, configA, appA, { email }, { scope: 'openid offline_access', prompt: 'consent' }, undefined, 'POST');
    expect(attempt.outcome.kind).toBe('continue');
    const tokens = await oidc.authorizationCodeGrant(configA, attempt.callbackUrl!, attempt.checks);
    const sid = tokens.claims()?.sid;
    expect(sid).toEqual(expect.any(String));
    // The refresh grant's ID token names the same session.
    expect((await oidc.refreshTokenGrant(configA, tokens.refresh_token!)).claims()?.sid).toBe(sid);
    // Not a form: refused in plain words, nothing redirected.
    const notForm = await fetch(`${harness.issuer}/oidc/auth`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', redirect: 'manual' });
    expect(notForm.status).toBe(415);
    const tooLarge = await fetch(`${harness.issuer}/oidc/auth`, { method: 'POST', body: new URLSearchParams({ request: 'x'.repeat(9000) }), redirect: 'manual' });
    expect(tooLarge.status).toBe(413);
  });

  it('RP-initiated logout returns to a sign-out address registered for the app, exactly matched, and to no other', async () => {
    const jar = new CookieJar();
    const attempt = await signIn(harness, database, configA, appA, { email }, {}, jar);
    const tokens = await oidc.authorizationCodeGrant(configA, attempt.callbackUrl!, attempt.checks);
    const signedOut = `${new URL(appA.redirectUri).origin}/signed-out`;
    expect(await addPostLogoutRedirectUri(database.db, appA.clientId, signedOut)).toBe(true);
    expect(await addPostLogoutRedirectUri(database.db, appA.clientId, signedOut)).toBe(false);
    expect((await appClientRegistration(database.db, appA.clientId)).postLogoutRedirectUris).toEqual([signedOut]);
    // openid-client builds the request (RP-Initiated Logout 1.0 §2); the person confirms on Portico's page.
    const endSession = async (postLogoutRedirectUri: string) => {
      const url = oidc.buildEndSessionUrl(configA, { id_token_hint: tokens.id_token!, post_logout_redirect_uri: postLogoutRedirectUri, state: 'bye' });
      const page = await fetch(url, { headers: { cookie: jar.header() } });
      jar.store(page);
      return { status: page.status, html: await page.text() };
    };
    const elsewhere = await endSession(`${signedOut}/elsewhere`);
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.html).toContain('post_logout_redirect_uri');
    const confirm = await endSession(signedOut);
    expect(confirm.status).toBe(200);
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(confirm.html)?.[1];
    expect(xsrf).toBeTruthy();
    const done = await fetch(`${harness.issuer}/oidc/session/end/confirm`, { method: 'POST', redirect: 'manual', headers: { cookie: jar.header() }, body: new URLSearchParams({ xsrf: xsrf!, logout: 'yes' }) });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(`${signedOut}?state=bye`);
    expect(await removePostLogoutRedirectUri(database.db, appA.clientId, signedOut)).toBe(true);
    expect((await appClientRegistration(database.db, appA.clientId)).postLogoutRedirectUris).toEqual([]);
  });

  it('rotates refresh tokens; replays inside the grace interval get the same successor (one head), reuse after it revokes the grant', async () => {
    const tokens = await tokensFor(configA, appA, { scope: 'openid offline_access', prompt: 'consent' });
    const first = tokens.refresh_token!;
    const rotated = await oidc.refreshTokenGrant(configA, first);
    expect(rotated.refresh_token).not.toBe(first);
    // Other processes of the same client replay the token they still hold, within the interval: each succeeds, with
    // a fresh access token and the very refresh token the first exchange created.
    const replays = [];
    for (let i = 0; i < 3; i += 1) replays.push(await oidc.refreshTokenGrant(configA, first));
    expect(replays.map((replay) => replay.refresh_token)).toEqual([rotated.refresh_token, rotated.refresh_token, rotated.refresh_token]);
    expect(new Set([rotated, ...replays].map((answer) => answer.access_token)).size).toBe(4);

    await new Promise((resolve) => setTimeout(resolve, 2_500));
    // After the interval the one head still works (and rotates on); the replay of the old token kills the family.
    const next = await oidc.refreshTokenGrant(configA, rotated.refresh_token!);
    await expect(oidc.refreshTokenGrant(configA, first)).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect(oidc.refreshTokenGrant(configA, next.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('concurrent refreshes with one token within the interval all succeed, with one successor between them', async () => {
    const tokens = await tokensFor(configA, appA, { scope: 'openid offline_access', prompt: 'consent' });
    const results = await Promise.all([1, 2, 3].map(() => oidc.refreshTokenGrant(configA, tokens.refresh_token!)));
    expect(new Set(results.map((r) => r.refresh_token)).size).toBe(1);
    const successors = rowsOf<{ n: number }>(
      await database.db.execute(sql`select count(*)::int as n from oidc_payloads where kind = 'RefreshToken' and rotated_from = ${hashStoredId(tokens.refresh_token!)}`),
    );
    expect(successors[0]?.n).toBe(1);
  });

  it('closes the apps of an organization the moment a person leaves it, and reopens them on return', async () => {
    const member = await createMember(database, appA.orgId, 'leaver@acme.test');
    const login = () => signIn(harness, database, configA, appA, { email: 'leaver@acme.test' }, { scope: 'openid offline_access', prompt: 'consent' });
    const attempt = await login();
    const tokens = await oidc.authorizationCodeGrant(configA, attempt.callbackUrl!, attempt.checks);

    const { removed, grantsRevoked } = await removeMember(database.db, appA.orgId, member.id);
    expect(removed).toBe(true);
    expect(grantsRevoked).toBeGreaterThan(0);
    await expect(oidc.refreshTokenGrant(configA, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect((await login()).outcome).toEqual({ kind: 'refused', error: 'not_a_member' });

    await addMember(database.db, { orgId: appA.orgId, userId: member.id, role: 'member' });
    expect((await login()).outcome.kind).toBe('continue');
  });

  it('re-checks membership at every refresh, even where the grant itself survived', async () => {
    const member = await createMember(database, appA.orgId, 'raced@acme.test');
    const attempt = await signIn(harness, database, configA, appA, { email: 'raced@acme.test' }, { scope: 'openid offline_access', prompt: 'consent' });
    const tokens = await oidc.authorizationCodeGrant(configA, attempt.callbackUrl!, attempt.checks);
    // The membership disappears without the grant revocation that removeMember performs (another path, a race).
    await database.db.delete(memberships).where(and(eq(memberships.orgId, appA.orgId), eq(memberships.userId, member.id)));
    await expect(oidc.refreshTokenGrant(configA, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    // findAccount refusing does not consume the token: it works again once the person is back.
    await addMember(database.db, { orgId: appA.orgId, userId: member.id, role: 'member' });
    expect((await oidc.refreshTokenGrant(configA, tokens.refresh_token!)).access_token).toBeTruthy();
  });

  it('refuses the refresh of a person who is still a member but was disabled, without consuming the token', async () => {
    const member = await createMember(database, appA.orgId, 'disabled@acme.test');
    const attempt = await signIn(harness, database, configA, appA, { email: 'disabled@acme.test' }, { scope: 'openid offline_access', prompt: 'consent' });
    const tokens = await oidc.authorizationCodeGrant(configA, attempt.callbackUrl!, attempt.checks);
    await database.db.update(users).set({ disabledAt: new Date() }).where(eq(users.id, member.id));
    await expect(oidc.refreshTokenGrant(configA, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    await database.db.update(users).set({ disabledAt: null }).where(eq(users.id, member.id));
    expect((await oidc.refreshTokenGrant(configA, tokens.refresh_token!)).access_token).toBeTruthy();
  });

  it('a person of another organization cannot sign in to the app', async () => {
    await createMember(database, appB.orgId, 'outsider@globex.test');
    const attempt = await signIn(harness, database, configA, appA, { email: 'outsider@globex.test' });
    expect(attempt.outcome).toEqual({ kind: 'refused', error: 'not_a_member' });
  });

  it("signs a new app's ID tokens with RS256 (what relying parties assume, OIDC Dynamic Client Registration §2), ES256 when the app chose it, and RS256 for an app that registered none", async () => {
    const jwks = createRemoteJWKSet(new URL(`${harness.issuer}/oidc/jwks`));
    const rs = await tokensFor(configA, appA);
    expect(decodeProtectedHeader(rs.id_token!).alg).toBe('RS256');
    expect((await jwtVerify(rs.id_token!, jwks, { issuer: harness.issuer, audience: appA.clientId })).payload.sub).toBe(personId);
    expect(await appClientRegistration(database.db, appA.clientId)).toMatchObject({ idTokenAlg: 'RS256' });
    // The app's page (or apps create) may choose ES256; a second change to the same is refused as nothing to do.
    expect(await setIdTokenAlg(database.db, appA.clientId, 'ES256')).toBe(true);
    expect(await setIdTokenAlg(database.db, appA.clientId, 'ES256')).toBe(false);
    try {
      const es = await tokensFor(configA, appA);
      expect(decodeProtectedHeader(es.id_token!).alg).toBe('ES256');
      await jwtVerify(es.id_token!, jwks, { issuer: harness.issuer, audience: appA.clientId });
      // An app created before any algorithm was registered keeps OIDC's default, so its relying parties keep working.
      await database.db.execute(sql`update clients set metadata = metadata - 'id_token_signed_response_alg' where id = ${appA.clientId}`);
      expect(decodeProtectedHeader((await tokensFor(configA, appA)).id_token!).alg).toBe('RS256');
    } finally {
      await setIdTokenAlg(database.db, appA.clientId, 'RS256');
    }
  });

  it('puts the claims of the granted scopes in the ID token as well as in userinfo (relying parties read the ID token)', async () => {
    const tokens = await tokensFor(configA, appA, { scope: 'openid email profile' });
    const claims = tokens.claims()!;
    expect(claims).toMatchObject({ sub: personId, email: expect.stringContaining('@'), email_verified: expect.any(Boolean), name: expect.any(String) });
    const userinfo = await oidc.fetchUserInfo(configA, tokens.access_token, personId);
    expect(userinfo).toMatchObject({ sub: personId, email: claims.email, name: claims.name });
    expect(claims).not.toHaveProperty('given_name');
    // The parts of the name, once a directory gave them (SCIM name.givenName / familyName), with profile (§5.1).
    await database.db.update(users).set({ givenName: 'Ada', familyName: 'Lovelace' }).where(eq(users.id, personId));
    try {
      const named = await tokensFor(configA, appA, { scope: 'openid email profile' });
      expect(named.claims()).toMatchObject({ given_name: 'Ada', family_name: 'Lovelace' });
      expect(await oidc.fetchUserInfo(configA, named.access_token, personId)).toMatchObject({ given_name: 'Ada', family_name: 'Lovelace' });
      // Without profile, neither.
      expect((await tokensFor(configA, appA, { scope: 'openid email' })).claims()).not.toHaveProperty('given_name');
    } finally {
      await database.db.update(users).set({ givenName: null, familyName: null }).where(eq(users.id, personId));
    }
  });

  it('lists every session of the person with the apps named, and ends one only for its owner and of its kind', async () => {
    await tokensFor(configA, appA);
    const person = (await database.db.select().from(users).where(eq(users.id, personId)))[0]!;
    const consoleToken = await createConsoleSession(database.db, person, { userAgent: 'Test browser' });
    const consoleHash = (await findConsoleSession(database.db, consoleToken))!.tokenHash;
    await openCentralSession(database.db, person, { origin: harness.issuer, installation: harness.issuer, surface: 'external' });
    const otherId = (await createMember(database, appA.orgId, 'grace@acme.test')).id;

    const sessions = await listAccountSessions(database.db, personId, consoleHash);
    expect(sessions[0]).toMatchObject({ kind: 'console', current: true, device: 'Test browser' });
    expect(sessions.some((session) => session.kind === 'central')).toBe(true);
    const appSession = sessions.find((session) => session.kind === 'app')!;
    expect(appSession.apps).toEqual([appA.app.name]);

    // Another person naming this session, or the right id under another kind, ends nothing.
    expect(await endAccountSession(database.db, otherId, 'app', appSession.id)).toBe(false);
    expect(await endAccountSession(database.db, personId, 'central', consoleHash)).toBe(false);
    expect(await endAccountSession(database.db, personId, 'app', `${appSession.id}x`)).toBe(false);
    expect((await listAccountSessions(database.db, personId)).length).toBe(sessions.length);

    expect(await endAccountSession(database.db, personId, 'app', appSession.id)).toBe(true);
    const after = await listAccountSessions(database.db, personId, consoleHash);
    expect(after.some((session) => session.id === appSession.id)).toBe(false);
    expect(after.length).toBe(sessions.length - 1);

    // "Everywhere else": only this console session stays.
    await tokensFor(configA, appA);
    expect(await endOtherAccountSessions(database.db, personId, consoleHash)).toMatchObject({ centralSessions: 1, appSessions: expect.any(Number) });
    expect((await listAccountSessions(database.db, personId, consoleHash)).map((session) => session.kind)).toEqual(['console']);
  });

  it('lists a person’s sessions and signs them out everywhere', async () => {
    await tokensFor(configA, appA);
    await tokensFor(configA, appA);
    const sessions = await listSessions(database.db, personId);
    expect(sessions.length).toBeGreaterThanOrEqual(2);
    expect(sessions[0]?.clientIds).toContain(appA.clientId);
    expect(await signOutEverywhere(database.db, personId)).toBe(sessions.length);
    expect(await listSessions(database.db, personId)).toEqual([]);
    const left = await database.db.select().from(oidcPayloads).where(and(eq(oidcPayloads.kind, 'Session'), eq(oidcPayloads.accountId, personId)));
    expect(left).toEqual([]);
  });
});
