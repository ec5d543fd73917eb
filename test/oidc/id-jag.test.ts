// Enterprise-managed authorization between two Portico instances, each on its own database: A is the company's
// identity provider, B the authorization server of a vendor's app the company uses. Alice signed in to B through B's
// OpenID Connect connection to A once (so B links her to A's `sub`). A's app exchanges her ID token for an ID-JAG
// (openid-client, RFC 8693); the agent's client at B presents it (openid-client, RFC 7523 jwt-bearer) and calls the
// example app's tools through the MCP SDK. Replays (also concurrent ones), another resource, another client, an
// untrusted issuer and a person removed at A are refused. A third-party identity provider's ID-JAG, built here with
// jose and a key this test owns, is accepted only while B trusts its issuer.
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import * as oidc from 'openid-client';
import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, removeMember } from '../../lib/organizations/memberships';
import { runOrgOperation } from '../../lib/organizations/org-operation';
import { hashPassword } from '../../lib/accounts/factors/password';
import { addTeamMember, createTeam, grantTeamScope } from '../../lib/organizations/teams';
import { createUser, findUserByEmail, type User } from '../../lib/accounts/users';
import { createApp, setAppDisabled } from '../../lib/clients/apps';
import { createExternalClient } from '../../lib/clients/external';
import { addPermission } from '../../lib/clients/permission-catalog';
import { auditEvents, orgDomains, trustedAssertionIssuers } from '../../lib/db/schema';
import { createOidcConnection, probeOidcIssuer, setConnectionEnabled } from '../../lib/identity/connections';
import { createRemoteMcpServer, trustAssertionIssuer } from '../../lib/identity/enterprise-authorization';
import { type FederationDeps } from '../../lib/identity/federation/core';
import { beginFederatedSignIn } from '../../lib/identity/federation/begin';
import { completeOidcCallback, connectionCallbackUrl } from '../../lib/identity/federation/oidc';
import { ID_JAG_GRANT_PROFILE, ID_JAG_TOKEN_TYPE, ID_JAG_TYP, ID_TOKEN_TYPE } from '../../lib/oidc/id-jag';
import { completePasswordSignIn } from '../../lib/oidc/password-sign-in';
import { startExampleApp } from '../../examples/notes/app';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { CookieJar, createOrgWithApp, relyingParty, signIn, startProviderHarness, TEST_PASSWORD, type AppFixture, type Harness } from '../support/provider-harness';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const AGENT_REDIRECT = 'http://127.0.0.1:45711/callback';

describe('ID-JAG between two Portico instances', () => {
  let databaseA: TestDatabase;
  let databaseB: TestDatabase;
  let portA: Harness;
  let portB: Harness;
  /** At A: the app whose backend asks for ID-JAGs, and Alice. */
  let hostApp: AppFixture;
  let alice: User;
  /** At B: the vendor's app (the company's tenant there), Alice's account there, and the agent's client. */
  let vendorApp: AppFixture;
  let aliceAtB: User;
  let agentClientId: string;
  let otherAgentClientId: string;
  let readers: string;
  let ownerAtB: User;

  const asOwnerAt = <T>(database: TestDatabase, orgId: string, owner: User, work: Parameters<typeof runOrgOperation<T>>[3]) =>
    runOrgOperation(database.db, { org: { id: orgId, slug: 'x', name: 'x' } as never, role: 'owner', actor: { person: owner, ip: '192.0.2.1', door: 'console' } }, { audit: 'exactly_one' }, work);

  /** Alice's ID token at A, for the host app's own client (openid-client's code flow). */
  async function aliceIdToken(): Promise<string> {
    const config = await relyingParty(portA, hostApp);
    const attempt = await signIn(portA, databaseA, config, hostApp, { email: alice.email });
    if (!attempt.callbackUrl) throw new Error(`sign-in at A: ${attempt.outcome.kind}`);
    const tokens = await oidc.authorizationCodeGrant(config, attempt.callbackUrl, attempt.checks);
    return tokens.id_token!;
  }

  /** The host app's backend at A: the ID token for an ID-JAG (RFC 8693 through openid-client). */
  async function exchangeAtA(idToken: string, parameters: Record<string, string | undefined> = {}): Promise<oidc.TokenEndpointResponse> {
    const config = await relyingParty(portA, hostApp);
    const all: Record<string, string | undefined> = {
      subject_token: idToken,
      subject_token_type: ID_TOKEN_TYPE,
      requested_token_type: ID_JAG_TOKEN_TYPE,
      audience: portB.issuer,
      resource: vendorApp.resource,
      scope: 'mcp notes:read',
      ...parameters,
    };
    return oidc.genericGrantRequest(config, TOKEN_EXCHANGE, Object.fromEntries(Object.entries(all).filter((entry): entry is [string, string] => entry[1] !== undefined)));
  }

  /** The agent at B: the ID-JAG for an access token (RFC 7523 jwt-bearer, a public client, through openid-client). */
  async function presentAtB(assertion: string, clientId = agentClientId, parameters: Record<string, string> = {}): Promise<oidc.TokenEndpointResponse> {
    const config = await oidc.discovery(new URL(portB.issuer), clientId, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
    return oidc.genericGrantRequest(config, JWT_BEARER, { assertion, ...parameters });
  }

  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => error as { error?: string; error_description?: string; status?: number },
    );

  beforeAll(async () => {
    [databaseA, databaseB] = await Promise.all([openTestDatabase(), openTestDatabase()]);
    portA = await startProviderHarness(databaseA);
    portB = await startProviderHarness(databaseB, { outboundAllowLoopback: true });

    // A: the company. Alice, with a proved address; the host app; B's connection as a client of A.
    hostApp = await createOrgWithApp(databaseA, 'Company');
    alice = await createUser(databaseA.db, { email: `alice-${randomBytes(3).toString('hex')}@company.test`, name: 'Alice', passwordHash: await hashPassword(TEST_PASSWORD), emailVerified: true });
    await addMember(databaseA.db, { orgId: hostApp.orgId, userId: alice.id, role: 'member' });
    const ownerA = await createUser(databaseA.db, { email: `owner-${randomBytes(3).toString('hex')}@company.test`, name: 'Owner A', passwordHash: null });
    await addMember(databaseA.db, { orgId: hostApp.orgId, userId: ownerA.id, role: 'owner' });
    // B's connection's id is chosen first: A registers B's redirect URI for that connection.
    const connectionId = randomUUID();
    const ssoAtA = await createApp(databaseA.db, { orgId: hostApp.orgId, slug: 'vendor-sso', name: 'Vendor SSO', publishOrigin: 'https://vendor-sso.company.test', redirectUris: [connectionCallbackUrl(portB.issuer, connectionId)] });

    // B: the vendor's app, in the company's organization there, which proved company.test and connects to A.
    vendorApp = await createOrgWithApp(databaseB, 'Vendor');
    const ownerB = (ownerAtB = await createUser(databaseB.db, { email: `owner-${randomBytes(3).toString('hex')}@vendor.test`, name: 'Owner B', passwordHash: null }));
    await addMember(databaseB.db, { orgId: vendorApp.orgId, userId: ownerB.id, role: 'owner' });
    const [domain] = await databaseB.db.insert(orgDomains).values({ orgId: vendorApp.orgId, domain: 'company.test', verificationToken: 'x', verifiedAt: new Date(), verifiedBy: 'dns' }).returning();
    const deps: FederationDeps = { outbound: { allowLoopback: true }, atRestKey: randomBytes(32), issuer: portB.issuer };
    const probe = await probeOidcIssuer(deps.outbound, portA.issuer);
    let connection = await asOwnerAt(databaseB, vendorApp.orgId, ownerB, ({ tx, audit }) =>
      createOidcConnection(
        { tx, audit, orgId: vendorApp.orgId },
        deps,
        { id: connectionId, name: 'Company', issuer: portA.issuer, clientId: ssoAtA.clientId, clientSecret: ssoAtA.clientSecret, defaultRole: 'member', emailClaim: 'email', nameClaim: 'name', groupsClaim: 'groups', domainIds: [domain!.id] },
        probe,
      ),
    );
    connection = await asOwnerAt(databaseB, vendorApp.orgId, ownerB, ({ tx, audit }) => setConnectionEnabled({ tx, audit, orgId: vendorApp.orgId }, connection.id, true));

    // Alice signs in to B once through A: B makes her account and links it to A's `sub`.
    const started = await beginFederatedSignIn(databaseB.db, deps, connection, { surface: 'sign_in', mfaRequested: false, signIn: { surface: 'console', events: { surface: 'console', ip: '192.0.2.7' } } });
    const jar = new CookieJar();
    const atA = await fetch(started.location, { redirect: 'manual' });
    jar.store(atA);
    const uid = /^\/auth\/app\/([A-Za-z0-9_-]+)$/.exec(atA.headers.get('location') ?? '')?.[1];
    const signedIn = await completePasswordSignIn({ provider: portA.provider, db: databaseA.db, cookieHeader: jar.header(), uid: uid!, credential: { kind: 'password', email: alice.email, password: TEST_PASSWORD }, issuer: portA.issuer, clientIp: '192.0.2.7' });
    if (signedIn.kind !== 'continue') throw new Error(`sign-in at A: ${signedIn.kind}`);
    const resumed = await fetch(signedIn.location, { redirect: 'manual', headers: { cookie: jar.header() } });
    const callback = new URL(resumed.headers.get('location') ?? '', portA.issuer);
    const outcome = await completeOidcCallback(databaseB.db, deps, { cookieToken: started.token, url: callback, ip: '192.0.2.7', connectionId: connection.id });
    expect(outcome.kind).toBe('signed_in');
    aliceAtB = (await findUserByEmail(databaseB.db, alice.email))!;

    // B trusts A's ID-JAGs through that connection; the agent has a client for the vendor app there.
    await asOwnerAt(databaseB, vendorApp.orgId, ownerB, ({ tx, audit }) => trustAssertionIssuer({ tx, audit, orgId: vendorApp.orgId }, { connectionId: connection.id, tenant: hostApp.orgId }, { allowHttp: true, ownIssuer: portB.issuer }));
    await addPermission(databaseB.db, vendorApp.app.id, { scope: 'notes:read', description: 'Read notes' });
    readers = (await createTeam(databaseB.db, { orgId: vendorApp.orgId, name: 'Readers' })).id;
    await grantTeamScope(databaseB.db, { teamId: readers, appId: vendorApp.app.id, scope: 'notes:read' });
    agentClientId = (await createExternalClient(databaseB.db, { orgId: vendorApp.orgId, appId: vendorApp.app.id, label: 'Company agent', redirectUris: [AGENT_REDIRECT], native: true })).clientId;
    otherAgentClientId = (await createExternalClient(databaseB.db, { orgId: vendorApp.orgId, appId: vendorApp.app.id, label: 'Another agent', redirectUris: [AGENT_REDIRECT], native: true })).clientId;

    // A: the outside MCP server, reached with the agent's client id at B.
    await asOwnerAt(databaseA, hostApp.orgId, ownerA, ({ tx, audit }) =>
      createRemoteMcpServer({ tx, audit, orgId: hostApp.orgId }, { name: 'Vendor notes', authorizationServer: portB.issuer, resource: vendorApp.resource, remoteClientId: agentClientId, allowedScopes: 'mcp notes:read notes:delete' }, { allowHttp: true, ownIssuer: portA.issuer }),
    );
  });

  afterAll(async () => {
    await portA?.close();
    await portB?.close();
    await databaseA?.close();
    await databaseB?.close();
  });

  it('announces the profile in discovery (both roles) and the grant types', async () => {
    const metadata = (await (await fetch(`${portB.issuer}/.well-known/oauth-authorization-server`)).json()) as Record<string, string[]>;
    expect(metadata.authorization_grant_profiles_supported).toEqual([ID_JAG_GRANT_PROFILE]);
    expect(metadata.grant_types_supported).toEqual(expect.arrayContaining([JWT_BEARER, TOKEN_EXCHANGE]));
    expect(metadata.identity_chaining_requested_token_types_supported).toEqual([ID_JAG_TOKEN_TYPE]);
  });

  it('A issues an ID-JAG; B exchanges it once for a token of its app; the agent calls the example app’s tools with it', async () => {
    const issued = await exchangeAtA(await aliceIdToken());
    expect(issued).toMatchObject({ issued_token_type: ID_JAG_TOKEN_TYPE, token_type: 'n_a', expires_in: 300, scope: 'mcp notes:read' });
    const idJag = issued.access_token;
    expect(decodeProtectedHeader(idJag)).toMatchObject({ alg: 'ES256', typ: ID_JAG_TYP });
    const claims = decodeJwt(idJag);
    expect(claims).toMatchObject({ iss: portA.issuer, sub: alice.id, aud: portB.issuer, client_id: agentClientId, resource: vendorApp.resource, scope: 'mcp notes:read', tenant: hostApp.orgId });
    expect(claims.exp! - claims.iat!).toBe(300);
    // Minimal claims: no address, no name.
    expect(Object.keys(claims).sort()).toEqual(['aud', 'client_id', 'exp', 'iat', 'iss', 'jti', 'resource', 'scope', 'sub', 'tenant']);

    // Alice holds only `mcp` at B yet: the token carries what the ID-JAG grants and she holds.
    const first = await presentAtB(idJag);
    expect(first.scope).toBe('mcp');
    expect(first.refresh_token).toBeUndefined();
    const token = decodeJwt(first.access_token);
    expect(token).toMatchObject({ sub: aliceAtB.id, aud: vendorApp.app.identity, client_id: agentClientId, org: vendorApp.orgId });

    // The same ID-JAG again: refused (single use).
    expect(await refusal(presentAtB(idJag))).toMatchObject({ error: 'invalid_grant', error_description: 'the assertion was already used' });

    // Once she is in the Readers team, a new ID-JAG gives notes:read too, and the example app lists that tool.
    await addTeamMember(databaseB.db, readers, aliceAtB.id);
    const second = await presentAtB((await exchangeAtA(await aliceIdToken())).access_token);
    expect(second.scope).toBe('mcp notes:read');
    const app = await startExampleApp({ origin: 'http://127.0.0.1:4794', issuer: portB.issuer, appIdentity: vendorApp.app.identity });
    try {
      const client = new Client({ name: 'company-agent', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(app.resource), { requestInit: { headers: { Authorization: `Bearer ${second.access_token}` } } }));
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['notes.add', 'notes.list']));
      expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('notes.delete');
      expect((await client.callTool({ name: 'notes.add', arguments: { title: 'From A', body: 'through an ID-JAG' } })).isError).toBeFalsy();
      expect((await client.callTool({ name: 'notes.list', arguments: {} })).isError).toBeFalsy();
      await client.close();
      expect(app.accepted.at(-1)).toMatchObject({ subject: aliceAtB.id, clientId: agentClientId });
    } finally {
      await app.close();
    }
    const [accepted] = await databaseB.db.select().from(auditEvents).where(eq(auditEvents.action, 'agent.id_jag_accepted')).limit(1);
    expect(accepted).toMatchObject({ orgId: vendorApp.orgId, subjectId: aliceAtB.id, clientId: agentClientId });
    const [issuedEvent] = await databaseA.db.select().from(auditEvents).where(eq(auditEvents.action, 'agent.id_jag_issued')).limit(1);
    expect(issuedEvent).toMatchObject({ orgId: hostApp.orgId, subjectId: alice.id, clientId: hostApp.clientId });
  });

  it('of concurrent presentations of one ID-JAG, exactly one gets a token (the single-use record is in PostgreSQL)', async () => {
    const idJag = (await exchangeAtA(await aliceIdToken())).access_token;
    const present = async () => (await fetch(`${portB.issuer}/oidc/token`, { method: 'POST', body: new URLSearchParams({ grant_type: JWT_BEARER, assertion: idJag, client_id: agentClientId }) })).status;
    const statuses = await Promise.all([present(), present(), present(), present()]);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 400)).toHaveLength(3);
  });

  it('refuses an ID-JAG presented by another client, or for another resource, and A refuses what it must', async () => {
    const idJag = (await exchangeAtA(await aliceIdToken())).access_token;
    expect(await refusal(presentAtB(idJag, otherAgentClientId))).toMatchObject({ error: 'invalid_grant', error_description: 'the assertion was issued for another client' });
    expect(await refusal(presentAtB(idJag, agentClientId, { resource: 'https://elsewhere.apps.test/api/mcp' }))).toMatchObject({ error: 'invalid_target' });
    // Tampered: the payload changed, the signature kept.
    const [header, payload, signature] = idJag.split('.');
    const widened = Buffer.from(JSON.stringify({ ...decodeJwt(idJag), scope: 'mcp notes:read notes:delete' })).toString('base64url');
    expect(await refusal(presentAtB(`${header}.${widened}.${signature}`))).toMatchObject({ error: 'invalid_grant', error_description: 'the assertion’s signature does not verify with the issuer’s keys' });
    expect(payload).toBeTruthy();

    // At A: no connection to that server, another client's ID token, a public client, a missing audience.
    expect(await refusal(exchangeAtA(await aliceIdToken(), { audience: 'https://unknown-as.test' }))).toMatchObject({ error: 'invalid_target' });
    expect(await refusal(exchangeAtA('not.an.idtoken'))).toMatchObject({ error: 'invalid_grant' });
    expect(await refusal(exchangeAtA(await aliceIdToken(), { scope: 'admin' }))).toMatchObject({ error: 'invalid_scope' });
    // An ID token Portico issued to another app's client: not this client's to exchange.
    const origin = 'https://other-host.company.test';
    const other = { ...(await createApp(databaseA.db, { orgId: hostApp.orgId, slug: 'other-host', name: 'Other host', publishOrigin: origin, redirectUris: [`${origin}/callback`] })), orgId: hostApp.orgId, redirectUri: `${origin}/callback`, resource: `${origin}/api/mcp` };
    const otherConfig = await relyingParty(portA, other);
    const attempt = await signIn(portA, databaseA, otherConfig, other, { email: alice.email });
    const othersIdToken = (await oidc.authorizationCodeGrant(otherConfig, attempt.callbackUrl!, attempt.checks)).id_token!;
    expect(await refusal(exchangeAtA(othersIdToken))).toMatchObject({ error: 'invalid_grant', error_description: 'the subject token is not a valid ID token issued to this client' });
    // A public client may not ask at all (RFC 8693 here needs a confidential client: the grant type is not its own).
    const publicClient = (await createExternalClient(databaseA.db, { orgId: hostApp.orgId, appId: hostApp.app.id, label: 'Public', redirectUris: [AGENT_REDIRECT], native: true })).clientId;
    const asPublic = await fetch(`${portA.issuer}/oidc/token`, {
      method: 'POST',
      body: new URLSearchParams({ client_id: publicClient, grant_type: TOKEN_EXCHANGE, subject_token: await aliceIdToken(), subject_token_type: ID_TOKEN_TYPE, requested_token_type: ID_JAG_TOKEN_TYPE, audience: portB.issuer }),
    });
    expect(asPublic.status).toBe(400);
    expect(await asPublic.json()).toMatchObject({ error: 'unauthorized_client' });
  });

  it('another organization at A speaks for nobody at B: B trusts A for one tenant; Portico never trusts itself', async () => {
    // Evil is another organization at A; Alice belongs to it too. Its owner points an outside server at B's app.
    const evilApp = await createOrgWithApp(databaseA, 'Evil');
    await addMember(databaseA.db, { orgId: evilApp.orgId, userId: alice.id, role: 'member' });
    const evilOwner = await createUser(databaseA.db, { email: `evil-${randomBytes(3).toString('hex')}@evil.test`, name: 'Evil owner', passwordHash: null });
    await addMember(databaseA.db, { orgId: evilApp.orgId, userId: evilOwner.id, role: 'owner' });
    await asOwnerAt(databaseA, evilApp.orgId, evilOwner, ({ tx, audit }) =>
      createRemoteMcpServer({ tx, audit, orgId: evilApp.orgId }, { name: 'Vendor notes', authorizationServer: portB.issuer, resource: vendorApp.resource, remoteClientId: agentClientId, allowedScopes: 'mcp notes:read' }, { allowHttp: true, ownIssuer: portA.issuer }),
    );
    const config = await relyingParty(portA, evilApp);
    const attempt = await signIn(portA, databaseA, config, evilApp, { email: alice.email });
    const idToken = (await oidc.authorizationCodeGrant(config, attempt.callbackUrl!, attempt.checks)).id_token!;
    const evilJag = await oidc.genericGrantRequest(config, TOKEN_EXCHANGE, { subject_token: idToken, subject_token_type: ID_TOKEN_TYPE, requested_token_type: ID_JAG_TOKEN_TYPE, audience: portB.issuer });
    expect(decodeJwt(evilJag.access_token).tenant).toBe(evilApp.orgId);
    expect(await refusal(presentAtB(evilJag.access_token))).toMatchObject({ error: 'invalid_grant', error_description: 'the assertion’s issuer is not trusted for this app' });

    // An ID-JAG for Portico itself is not issued; Portico's own issuer can be neither a server nor trusted.
    expect(await refusal(exchangeAtA(await aliceIdToken(), { audience: portA.issuer }))).toMatchObject({ error: 'invalid_target' });
    const ownServer = await asOwnerAt(databaseB, vendorApp.orgId, ownerAtB, ({ tx, audit }) =>
      createRemoteMcpServer({ tx, audit, orgId: vendorApp.orgId }, { name: 'Self', authorizationServer: portB.issuer, resource: vendorApp.resource, remoteClientId: 'x', allowedScopes: '' }, { allowHttp: true, ownIssuer: portB.issuer }),
    ).catch((error: unknown) => error);
    expect(ownServer).toMatchObject({ code: 'authorizationServer' });
    const ownTrust = await asOwnerAt(databaseB, vendorApp.orgId, ownerAtB, ({ tx, audit }) =>
      trustAssertionIssuer({ tx, audit, orgId: vendorApp.orgId }, { issuer: portB.issuer, jwksUri: `${portB.issuer}/oidc/jwks` }, { allowHttp: true, ownIssuer: portB.issuer }),
    ).catch((error: unknown) => error);
    expect(ownTrust).toMatchObject({ code: 'issuer' });
  });

  it('A finds the one server at an audience without a resource; a turned-off app at B gets nothing', async () => {
    const withoutResource = await exchangeAtA(await aliceIdToken(), { resource: undefined });
    expect(decodeJwt(withoutResource.access_token).resource).toBe(vendorApp.resource);
    await setAppDisabled(databaseB.db, vendorApp.app.id, true);
    try {
      expect(await refusal(presentAtB(withoutResource.access_token))).toMatchObject({ error: 'invalid_target', error_description: 'the app is turned off' });
    } finally {
      await setAppDisabled(databaseB.db, vendorApp.app.id, false);
    }
  });

  it('refuses a person removed from the organization at A, and an issuer B does not trust', async () => {
    const idToken = await aliceIdToken();
    await removeMember(databaseA.db, hostApp.orgId, alice.id);
    try {
      expect(await refusal(exchangeAtA(idToken))).toMatchObject({ error: 'invalid_grant', error_description: 'the person is not a member of the organization' });
    } finally {
      await addMember(databaseA.db, { orgId: hostApp.orgId, userId: alice.id, role: 'member' });
    }
    // B's organization stops trusting A: the next ID-JAG is refused, without saying which issuers are trusted.
    const idJag = (await exchangeAtA(await aliceIdToken())).access_token;
    await databaseB.db.update(trustedAssertionIssuers).set({ enabled: false }).where(eq(trustedAssertionIssuers.orgId, vendorApp.orgId));
    try {
      expect(await refusal(presentAtB(idJag))).toMatchObject({ error: 'invalid_grant', error_description: 'the assertion’s issuer is not trusted for this app' });
    } finally {
      await databaseB.db.update(trustedAssertionIssuers).set({ enabled: true }).where(eq(trustedAssertionIssuers.orgId, vendorApp.orgId));
    }
  });

  describe('a third-party identity provider (jose, a key this test owns)', () => {
    const THIRD_PARTY = 'https://idp.third-party.test';
    let jwksServer: Server;
    let jwksUri: string;
    let privateKey: CryptoKey;
    let publicJwk: JWK;
    let bob: User;

    const assertion = (claims: Record<string, unknown> = {}, options: { typ?: string; issuer?: string; lifetime?: number; iatOffset?: number } = {}) => {
      const now = Math.floor(Date.now() / 1000) + (options.iatOffset ?? 0);
      return new SignJWT({ client_id: agentClientId, resource: vendorApp.resource, scope: 'mcp notes:read', email: bob.email, ...claims })
        .setProtectedHeader({ alg: 'ES256', kid: 'third-party-1', typ: options.typ ?? ID_JAG_TYP })
        .setIssuer(options.issuer ?? THIRD_PARTY)
        .setSubject('00u-bob')
        .setAudience((claims.aud as string | string[] | undefined) ?? portB.issuer)
        .setJti(randomBytes(12).toString('base64url'))
        .setIssuedAt(now)
        .setExpirationTime(now + (options.lifetime ?? 300))
        .sign(privateKey);
    };

    beforeAll(async () => {
      const pair = await generateKeyPair('ES256');
      privateKey = pair.privateKey;
      publicJwk = { ...(await exportJWK(pair.publicKey)), kid: 'third-party-1', alg: 'ES256', use: 'sig' };
      jwksServer = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [publicJwk] })));
      await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
      jwksUri = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/jwks`;
      bob = await createUser(databaseB.db, { email: `bob-${randomBytes(3).toString('hex')}@company.test`, name: 'Bob', passwordHash: null });
      await addMember(databaseB.db, { orgId: vendorApp.orgId, userId: bob.id, role: 'member' });
    });
    afterAll(() => new Promise<void>((resolve) => (jwksServer ? jwksServer.close(() => resolve()) : resolve())));

    it('is refused while its issuer is not trusted, then accepted, with its address at a verified domain only', async () => {
      expect(await refusal(presentAtB(await assertion()))).toMatchObject({ error: 'invalid_grant', error_description: 'the assertion’s issuer is not trusted for this app' });
      await asOwnerAt(databaseB, vendorApp.orgId, ownerAtB, ({ tx, audit }) => trustAssertionIssuer({ tx, audit, orgId: vendorApp.orgId }, { issuer: THIRD_PARTY, jwksUri }, { allowHttp: true, ownIssuer: portB.issuer }));

      const accepted = await presentAtB(await assertion());
      expect(accepted.scope).toBe('mcp');
      expect(decodeJwt(accepted.access_token)).toMatchObject({ sub: bob.id, aud: vendorApp.app.identity });
      // The media type with its prefix is the same typ (RFC 7515 §4.1.9); no resource means the client's own app.
      expect((await presentAtB(await assertion({}, { typ: `application/${ID_JAG_TYP}` }))).access_token).toBeTruthy();
      expect(decodeJwt((await presentAtB(await assertion({ resource: undefined }))).access_token).aud).toBe(vendorApp.app.identity);
      // An address its issuer says is unverified names nobody.
      expect(await refusal(presentAtB(await assertion({ email_verified: false })))).toMatchObject({ error: 'invalid_grant', error_description: 'the assertion’s subject is not a member of the app’s organization here' });
      // An address outside the organization's verified domains names nobody.
      expect(await refusal(presentAtB(await assertion({ email: 'bob@elsewhere.test' })))).toMatchObject({ error: 'invalid_grant' });
    });

    it('checks typ, audience, expiry, lifetime and signature', async () => {
      expect(await refusal(presentAtB(await assertion({}, { typ: 'JWT' })))).toMatchObject({ error: 'invalid_grant', error_description: `the assertion’s typ must be ${ID_JAG_TYP}` });
      expect(await refusal(presentAtB(await assertion({ aud: ['https://other-as.test'] })))).toMatchObject({ error: 'invalid_grant', error_description: 'the assertion’s aud claim is not valid here' });
      expect(await refusal(presentAtB(await assertion({ aud: [portB.issuer, 'https://other-as.test'] })))).toMatchObject({ error: 'invalid_grant', error_description: 'the assertion must have exactly one audience' });
      // The same assertion, correct: accepted (so each refusal above is for its one change).
      expect((await presentAtB(await assertion())).access_token).toBeTruthy();
      expect(await refusal(presentAtB(await assertion({}, { iatOffset: -1000 })))).toMatchObject({ error: 'invalid_grant', error_description: 'the assertion has expired' });
      expect(await refusal(presentAtB(await assertion({}, { lifetime: 7200 })))).toMatchObject({ error: 'invalid_grant', error_description: 'the assertion lives too long' });
      const other = await generateKeyPair('ES256');
      // For another of the organization's apps: the client was registered for this one only.
      const second = await createApp(databaseB.db, { orgId: vendorApp.orgId, slug: 'second', name: 'Second', publishOrigin: 'https://vendor-second.apps.test', redirectUris: ['https://vendor-second.apps.test/callback'] });
      expect(second.app.id).toBeTruthy();
      expect(await refusal(presentAtB(await assertion({ resource: 'https://vendor-second.apps.test/api/mcp' })))).toMatchObject({ error: 'invalid_target', error_description: 'this client serves another app' });
      // For a resource that is no app here.
      expect(await refusal(presentAtB(await assertion({ resource: 'https://nowhere.apps.test/api/mcp' })))).toMatchObject({ error: 'invalid_target' });
      const forged = await new SignJWT(decodeJwt(await assertion())).setProtectedHeader({ alg: 'ES256', kid: 'third-party-1', typ: ID_JAG_TYP }).sign(other.privateKey);
      expect(await refusal(presentAtB(forged))).toMatchObject({ error: 'invalid_grant', error_description: 'the assertion’s signature does not verify with the issuer’s keys' });
    });
  });
});
