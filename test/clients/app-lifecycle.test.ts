// An app turned off and on, and deleted, with openid-client as the app, an MCP client registered through RFC 7591, and
// real PostgreSQL: off, nobody signs in (the card says why, even for a signed-in browser), no refresh or code works
// for its own client or for MCP clients bound to it; on again, the kept refresh tokens work; deleted, every grant and
// refresh token at it is gone with its clients, in one transaction with its audit event.
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteApp, findAppById, setAppDisabled } from '../../lib/clients/apps';
import { registerClient, validateRegistration } from '../../lib/clients/registration';
import { clients, grantBindings, oidcPayloads } from '../../lib/db/schema';
import { findInteraction } from '../../lib/oidc/interactions';
import { findSignInTarget } from '../../lib/oidc/sign-in-target';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { authorizeMcpClient, CookieJar, createMember, createOrgWithApp, relyingParty, signIn, startProviderHarness, tokenRequest, type AppFixture, type Harness } from '../support/provider-harness';

const REDIRECT = 'http://127.0.0.1:4321/callback';

describe('turning an app off and on, and deleting it', () => {
  let database: TestDatabase;
  let harness: Harness;
  beforeAll(async () => {
    database = await openTestDatabase();
    harness = await startProviderHarness(database);
  });
  afterAll(async () => {
    await harness?.close();
    await database?.close();
  });

  const unique = () => randomBytes(3).toString('hex');

  async function appTokens(app: AppFixture, email: string, jar = new CookieJar()) {
    const config = await relyingParty(harness, app);
    const attempt = await signIn(harness, database, config, app, { email }, { scope: 'openid offline_access', prompt: 'consent' }, jar);
    expect(attempt.outcome.kind).toBe('continue');
    return { config, tokens: await oidc.authorizationCodeGrant(config, attempt.callbackUrl!, attempt.checks) };
  }

  async function mcpTokens(app: AppFixture, email: string) {
    const valid = validateRegistration({ client_name: 'Assistant', redirect_uris: [REDIRECT] });
    if ('error' in valid) throw new Error(valid.error_description);
    const clientId = String((await registerClient(database.db, valid, '192.0.2.9')).client_id);
    const authorization = await authorizeMcpClient(harness, database, { clientId, redirectUri: REDIRECT, resource: app.resource, email });
    const code = authorization.callbackUrl?.searchParams.get('code');
    expect(code, authorization.callbackUrl?.href).toBeTruthy();
    const tokens = await tokenRequest(harness, clientId, { grant_type: 'authorization_code', code: code!, redirect_uri: REDIRECT, code_verifier: authorization.codeVerifier });
    expect(tokens.status).toBe(200);
    return { clientId, refreshToken: String(tokens.body.refresh_token) };
  }

  it('off: no sign-in (the card says why, also for a signed-in browser), no refresh for its client or MCP clients; on: the kept tokens work', async () => {
    const app = await createOrgWithApp(database, 'Switch');
    const person = await createMember(database, app.orgId, `person-${unique()}@switch.test`);
    const jar = new CookieJar();
    const { config, tokens } = await appTokens(app, person.email, jar);
    const mcp = await mcpTokens(app, person.email);

    // Two admins turn it off at once: one change, one refusal.
    const turnedOff = await Promise.all([setAppDisabled(database.db, app.app.id, true), setAppDisabled(database.db, app.app.id, true)]);
    expect(turnedOff.filter(Boolean)).toHaveLength(1);

    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect((await tokenRequest(harness, mcp.clientId, { grant_type: 'refresh_token', refresh_token: mcp.refreshToken })).status).toBe(400);

    // The browser that is signed in gets no code: the card comes, and says the app is off; the password is not asked.
    const again = await signIn(harness, database, config, app, { email: person.email }, { scope: 'openid' }, jar);
    expect(again.outcome.kind).toBe('expired');
    expect(again.callbackUrl).toBeUndefined();
    const start = await fetch(
      oidc.buildAuthorizationUrl(config, { redirect_uri: app.redirectUri, scope: 'openid', code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()), code_challenge_method: 'S256' }),
      { redirect: 'manual', headers: { cookie: jar.header() } },
    );
    jar.store(start);
    const uid = /^\/auth\/app\/([A-Za-z0-9_-]+)$/.exec(start.headers.get('location') ?? '')?.[1];
    expect(uid).toBeTruthy();
    const interaction = await findInteraction(harness.provider, jar.header(), uid!);
    expect(interaction.ok).toBe(true);
    const target = await findSignInTarget(database.db, harness.provider, harness.issuer, interaction.ok ? interaction.interaction.params : {});
    expect(target).toMatchObject({ kind: 'refused', reason: 'app_disabled' });
    // An MCP client asking for it is refused with the same reason.
    const refusedMcp = await authorizeMcpClient(harness, database, { clientId: mcp.clientId, redirectUri: REDIRECT, resource: app.resource, email: person.email });
    expect(refusedMcp.signIn.kind).toBe('expired');

    expect(await setAppDisabled(database.db, app.app.id, false)).toBe(true);
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.access_token).toBeTruthy();
    expect((await tokenRequest(harness, mcp.clientId, { grant_type: 'refresh_token', refresh_token: mcp.refreshToken })).status).toBe(200);
  });

  it('deleted: every grant and refresh token at it ends with its clients, in the transaction; other apps keep theirs', async () => {
    const app = await createOrgWithApp(database, 'Doomed');
    const other = await createOrgWithApp(database, 'Survivor');
    const person = await createMember(database, app.orgId, `person-${unique()}@doomed.test`);
    const survivor = await createMember(database, other.orgId, `person-${unique()}@survivor.test`);
    const { config, tokens } = await appTokens(app, person.email);
    const mcp = await mcpTokens(app, person.email);
    const kept = await appTokens(other, survivor.email);

    // A transaction that fails after the deletion leaves everything as it was.
    await expect(
      database.db.transaction(async (tx) => {
        await deleteApp(tx, app.app.id);
        throw new Error('the audit write failed');
      }),
    ).rejects.toThrow('the audit write failed');
    expect(await findAppById(database.db, app.app.id)).toBeDefined();
    expect((await oidc.refreshTokenGrant(config, tokens.refresh_token!)).refresh_token).toBeTruthy();

    const ended = await database.db.transaction((tx) => deleteApp(tx, app.app.id));
    expect(ended.grants).toBeGreaterThanOrEqual(2);
    expect(await findAppById(database.db, app.app.id)).toBeUndefined();
    expect(await database.db.select().from(clients).where(eq(clients.id, app.clientId))).toHaveLength(0);
    expect(await database.db.select().from(grantBindings).where(eq(grantBindings.appId, app.app.id))).toHaveLength(0);
    expect(await database.db.select().from(oidcPayloads).where(eq(oidcPayloads.clientId, mcp.clientId))).toHaveLength(0);
    expect((await tokenRequest(harness, mcp.clientId, { grant_type: 'refresh_token', refresh_token: mcp.refreshToken })).status).toBe(400);
    expect((await oidc.refreshTokenGrant(kept.config, kept.tokens.refresh_token!)).access_token).toBeTruthy();
  });
});
