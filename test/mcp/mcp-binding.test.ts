// MCP clients' resource binding against the real provider configuration and database: what a consent binds, what
// code exchange and refresh re-check, which redirect origins an app may claim, and revocation per app.
import { randomBytes } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowAgentUser, createAgent } from '../../lib/organizations/agents';
import { addRedirectUri, createApp, RedirectOriginTaken } from '../../lib/clients/apps';
import { recordConsentBinding, resolveClientResource, revokeClientAtApp } from '../../lib/clients/binding';
import { createExternalClient } from '../../lib/clients/external';
import { registerClient, validateRegistration } from '../../lib/clients/registration';
import { grantBindings, memberships } from '../../lib/db/schema';
import { cimdPolicyViolation } from '../../lib/oidc/cimd';
import { addPermission } from '../../lib/clients/permission-catalog';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { authorizeMcpClient, createMember, createOrgWithApp, startProviderHarness, tokenRequest, type AppFixture, type Harness } from '../support/provider-harness';

const REDIRECT = 'http://127.0.0.1:45678/callback';

describe('MCP client binding', () => {
  let database: TestDatabase;
  let harness: Harness;
  let acme: AppFixture;
  let globex: AppFixture;

  beforeAll(async () => {
    database = await openTestDatabase();
    harness = await startProviderHarness(database);
    acme = await createOrgWithApp(database, 'Acme');
    globex = await createOrgWithApp(database, 'Globex');
  });
  afterAll(async () => {
    await harness?.close();
    await database?.close();
  });

  async function dynamicClient(): Promise<string> {
    const valid = validateRegistration({ client_name: 'Test MCP client', redirect_uris: [REDIRECT] });
    if ('error' in valid) throw new Error(valid.error_description);
    return String((await registerClient(database.db, valid, '192.0.2.9')).client_id);
  }

  async function codeExchange(clientId: string, authorization: { callbackUrl?: URL; codeVerifier: string }) {
    const code = authorization.callbackUrl?.searchParams.get('code');
    expect(code, authorization.callbackUrl?.href).toBeTruthy();
    return tokenRequest(harness, clientId, { grant_type: 'authorization_code', code: code!, redirect_uri: REDIRECT, code_verifier: authorization.codeVerifier });
  }

  it('binds the grant to the app the resource names; refresh fails once the person leaves that organization', async () => {
    const person = await createMember(database, acme.orgId, `leaver-${randomBytes(3).toString('hex')}@acme.test`);
    const clientId = await dynamicClient();
    const authorization = await authorizeMcpClient(harness, database, { clientId, redirectUri: REDIRECT, resource: acme.resource, email: person.email });
    const tokens = await codeExchange(clientId, authorization);
    expect(tokens.status).toBe(200);
    expect(decodeJwt(String(tokens.body.access_token))).toMatchObject({ aud: acme.app.identity, sub: person.id, org: acme.orgId, azp: clientId });

    // Only the membership row goes (no grant revocation): the refresh itself must notice.
    await database.db.delete(memberships).where(and(eq(memberships.orgId, acme.orgId), eq(memberships.userId, person.id)));
    const refreshed = await tokenRequest(harness, clientId, { grant_type: 'refresh_token', refresh_token: String(tokens.body.refresh_token) });
    expect(refreshed.status).toBe(400);
    expect(refreshed.body.error).toBe('invalid_grant');
  });

  it('a refresh that asks for more than was granted is refused with invalid_scope (RFC 6749 §5.2, §6) and spends nothing', async () => {
    const person = await createMember(database, acme.orgId, `narrow-${randomBytes(3).toString('hex')}@acme.test`);
    await addPermission(database.db, acme.app.id, { scope: 'binding:extra', description: 'More than was granted' });
    const clientId = await dynamicClient();
    const tokens = await codeExchange(clientId, await authorizeMcpClient(harness, database, { clientId, redirectUri: REDIRECT, resource: acme.resource, email: person.email, scope: 'mcp' }));
    expect(tokens.status).toBe(200);
    // A scope the grant does not hold: the client must authorize again (the consent is where a grant widens).
    const wider = await tokenRequest(harness, clientId, { grant_type: 'refresh_token', refresh_token: String(tokens.body.refresh_token), scope: 'mcp binding:extra' });
    expect(wider.status).toBe(400);
    expect(wider.body.error).toBe('invalid_scope');
    // The refused refresh spent nothing: the same refresh token, with no scope, still works.
    const same = await tokenRequest(harness, clientId, { grant_type: 'refresh_token', refresh_token: String(tokens.body.refresh_token) });
    expect(same.status).toBe(200);
    expect(decodeJwt(String(same.body.access_token))).toMatchObject({ scope: 'mcp' });
  });

  it('a web MCP client that names no scope Portico knows is refused before anyone signs in (RFC 6749 §3.3); naming none of the app’s means all held', async () => {
    const person = await createMember(database, acme.orgId, `web-${randomBytes(3).toString('hex')}@acme.test`);
    const webRedirect = 'https://web-client.test/callback';
    const valid = validateRegistration({ client_name: 'Web MCP client', redirect_uris: [webRedirect] });
    if ('error' in valid) throw new Error(valid.error_description);
    const clientId = String((await registerClient(database.db, valid, '192.0.2.9')).client_id);
    for (const scope of ['', 'launch:everything']) {
      const authorization = await authorizeMcpClient(harness, database, { clientId, redirectUri: webRedirect, resource: acme.resource, email: person.email, scope });
      expect(authorization.signIn).toEqual({ kind: 'expired' }); // the screen shows the refusal instead of a password form
      expect(authorization.consent).toBeUndefined();
    }
    // OpenID Connect's scope alone names none of the app's permissions: the consent grants all the person holds.
    const everything = await authorizeMcpClient(harness, database, { clientId, redirectUri: webRedirect, resource: acme.resource, email: person.email, scope: 'openid' });
    expect(everything.consent?.kind).toBe('continue');
    const all = await tokenRequest(harness, clientId, {
      grant_type: 'authorization_code',
      code: everything.callbackUrl!.searchParams.get('code')!,
      redirect_uri: webRedirect,
      code_verifier: everything.codeVerifier,
    });
    expect(decodeJwt(String(all.body.access_token))).toMatchObject({ aud: acme.app.identity, sub: person.id, scope: 'mcp' });
    // With the app's scope, a web client (which oidc-provider would not ask by default) still meets the consent step.
    const granted = await authorizeMcpClient(harness, database, { clientId, redirectUri: webRedirect, resource: acme.resource, email: person.email, scope: 'mcp' });
    expect(granted.consent?.kind).toBe('continue');
    const code = granted.callbackUrl?.searchParams.get('code');
    const tokens = await tokenRequest(harness, clientId, { grant_type: 'authorization_code', code: code!, redirect_uri: webRedirect, code_verifier: granted.codeVerifier });
    expect(decodeJwt(String(tokens.body.access_token))).toMatchObject({ aud: acme.app.identity, sub: person.id, scope: 'mcp' });
  });

  it('a person of another organization is refused at sign-in for a dynamic client', async () => {
    const outsider = await createMember(database, globex.orgId, `outsider-${randomBytes(3).toString('hex')}@globex.test`);
    const authorization = await authorizeMcpClient(harness, database, { clientId: await dynamicClient(), redirectUri: REDIRECT, resource: acme.resource, email: outsider.email });
    expect(authorization.signIn).toEqual({ kind: 'refused', error: 'not_a_member' });
  });

  it('the token carries the chosen agent as act; an agent the person may not use is refused', async () => {
    const person = await createMember(database, acme.orgId, `agent-user-${randomBytes(3).toString('hex')}@acme.test`);
    const other = await createMember(database, acme.orgId, `agent-owner-${randomBytes(3).toString('hex')}@acme.test`);
    const own = await createAgent(database.db, { orgId: acme.orgId, name: 'Own agent', ownerUserId: person.id });
    const shared = await createAgent(database.db, { orgId: acme.orgId, name: 'Shared agent', ownerUserId: other.id });
    await allowAgentUser(database.db, shared.id, person.id);
    const foreign = await createAgent(database.db, { orgId: acme.orgId, name: 'Not shared', ownerUserId: other.id });
    const otherOrg = await createAgent(database.db, { orgId: globex.orgId, name: 'Globex agent', ownerUserId: other.id });

    for (const agent of [own, shared]) {
      const clientId = await dynamicClient();
      const authorization = await authorizeMcpClient(harness, database, { clientId, redirectUri: REDIRECT, resource: acme.resource, email: person.email, actor: agent.id });
      const tokens = await codeExchange(clientId, authorization);
      expect(decodeJwt(String(tokens.body.access_token))).toMatchObject({ sub: person.id, act: { sub: agent.id } });
    }
    for (const agent of [foreign, otherOrg]) {
      const authorization = await authorizeMcpClient(harness, database, { clientId: await dynamicClient(), redirectUri: REDIRECT, resource: acme.resource, email: person.email, actor: agent.id });
      expect(authorization.consent).toEqual({ kind: 'refused', error: 'agent_not_allowed' });
    }
  });

  it('deleting the agent ends the grants that name it: refresh fails', async () => {
    const person = await createMember(database, acme.orgId, `agent-del-${randomBytes(3).toString('hex')}@acme.test`);
    const agent = await createAgent(database.db, { orgId: acme.orgId, name: 'Short-lived', ownerUserId: person.id });
    const clientId = await dynamicClient();
    const tokens = await codeExchange(clientId, await authorizeMcpClient(harness, database, { clientId, redirectUri: REDIRECT, resource: acme.resource, email: person.email, actor: agent.id }));
    const { agents } = await import('../../lib/db/schema');
    await database.db.delete(agents).where(eq(agents.id, agent.id));
    const refreshed = await tokenRequest(harness, clientId, { grant_type: 'refresh_token', refresh_token: String(tokens.body.refresh_token) });
    expect(refreshed.status).toBe(400);
  });

  it('a person no longer allowed to use the agent loses the consents that named it; a disabled agent cannot be bound', async () => {
    const owner = await createMember(database, acme.orgId, `sharer-${randomBytes(3).toString('hex')}@acme.test`);
    const person = await createMember(database, acme.orgId, `sharee-${randomBytes(3).toString('hex')}@acme.test`);
    const agent = await createAgent(database.db, { orgId: acme.orgId, name: 'Shared then not', ownerUserId: owner.id });
    await allowAgentUser(database.db, agent.id, person.id);
    const clientId = await dynamicClient();
    const tokens = await codeExchange(clientId, await authorizeMcpClient(harness, database, { clientId, redirectUri: REDIRECT, resource: acme.resource, email: person.email, actor: agent.id }));
    expect(tokens.status).toBe(200);
    const { disallowAgentUser } = await import('../../lib/organizations/agents');
    const { setAgentDisabled } = await import('../../lib/organizations/agent-lifecycle');
    await disallowAgentUser(database.db, agent.id, person.id);
    const refreshed = await tokenRequest(harness, clientId, { grant_type: 'refresh_token', refresh_token: String(tokens.body.refresh_token) });
    expect(refreshed.status).toBe(400);

    // The binding re-checks the agent under a lock: a disabled agent is refused even if the consent screen showed it.
    await allowAgentUser(database.db, agent.id, person.id);
    await setAgentDisabled(database.db, agent.id, true);
    const outcome = await database.db.transaction((tx) =>
      recordConsentBinding(tx, { grantId: `late-${agent.id}`, client: { id: clientId, kind: 'dynamic', appId: null, name: 'x' }, target: { kind: 'app', app: acme.app }, resource: acme.resource, accountId: person.id, agentId: agent.id }),
    );
    expect(outcome).toBe('agent_not_allowed');
  });

  it('resolves resources: Portico’s API for MCP clients only, each external client to its own app', async () => {
    const porticoApi = `${harness.issuer}/api/mcp`;
    const dynamic = { id: 'dcr_x', kind: 'dynamic' as const, appId: null };
    expect(await resolveClientResource(database.db, dynamic, porticoApi, porticoApi)).toMatchObject({ ok: true, target: { kind: 'portico' } });
    expect(await resolveClientResource(database.db, dynamic, acme.resource, porticoApi)).toMatchObject({ ok: true, target: { kind: 'app' } });
    expect(await resolveClientResource(database.db, dynamic, undefined, porticoApi)).toEqual({ ok: false, reason: 'missing_resource' });
    expect(await resolveClientResource(database.db, dynamic, [acme.resource, globex.resource], porticoApi)).toEqual({ ok: false, reason: 'several_resources' });
    expect(await resolveClientResource(database.db, dynamic, 'https://nowhere.test/api/mcp', porticoApi)).toEqual({ ok: false, reason: 'unknown_resource' });
    expect(await resolveClientResource(database.db, dynamic, `${acme.resource}/`, porticoApi)).toEqual({ ok: false, reason: 'unknown_resource' });
    const external = { id: 'ext_x', kind: 'external' as const, appId: acme.app.id };
    expect(await resolveClientResource(database.db, external, globex.resource, porticoApi)).toEqual({ ok: false, reason: 'other_app' });
    expect(await resolveClientResource(database.db, external, porticoApi, porticoApi)).toEqual({ ok: false, reason: 'other_app' });
  });

  it("an app's redirect origin is its own: another org's app cannot claim it, concurrently or not", async () => {
    const origin = `https://claimed-${randomBytes(3).toString('hex')}.test`;
    await addRedirectUri(database.db, acme.clientId, `${origin}/cb`);
    await expect(addRedirectUri(database.db, globex.clientId, `${origin}/other`)).rejects.toBeInstanceOf(RedirectOriginTaken);
    await expect(
      createApp(database.db, { orgId: globex.orgId, slug: `thief-${randomBytes(2).toString('hex')}`, name: 'Thief', publishOrigin: origin, redirectUris: [`${origin}/cb`] }),
    ).rejects.toBeInstanceOf(RedirectOriginTaken);
    // Dev-only URIs name no resource: they may be anywhere.
    expect(await addRedirectUri(database.db, globex.clientId, `${origin}/dev`, true)).toBe(true);

    // Two organizations racing for one fresh origin: exactly one wins.
    const contested = `https://contested-${randomBytes(3).toString('hex')}.test`;
    const results = await Promise.allSettled(
      [acme, globex].map((app) => database.db.transaction((tx) => addRedirectUri(tx, app.clientId, `${contested}/cb`))),
    );
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    expect(results.filter((result) => result.status === 'rejected' && result.reason instanceof RedirectOriginTaken)).toHaveLength(1);
  });

  it('revocation is per app, refuses other apps, and a racing consent never survives it', async () => {
    const { clientId } = await database.db.transaction((tx) => createExternalClient(tx, { orgId: acme.orgId, appId: acme.app.id, label: 'Ext', redirectUris: [REDIRECT], native: true }));
    expect(await database.db.transaction((tx) => revokeClientAtApp(tx, clientId, globex.app.id))).toEqual({ ok: false, reason: 'not_linked' });

    // A dynamic client consented to at Acme, while Acme revokes it: whichever commits first, no binding survives.
    const person = await createMember(database, acme.orgId, `race-${randomBytes(3).toString('hex')}@acme.test`);
    for (let round = 0; round < 5; round++) {
      const dynamicId = await dynamicClient();
      await database.db.transaction((tx) =>
        recordConsentBinding(tx, { grantId: `seed-${dynamicId}`, client: { id: dynamicId, kind: 'dynamic', appId: null, name: 'x' }, target: { kind: 'app', app: acme.app }, resource: acme.resource, accountId: person.id, agentId: null }),
      );
      const [consented, revoked] = await Promise.all([
        database.db.transaction((tx) =>
          recordConsentBinding(tx, { grantId: `race-${dynamicId}`, client: { id: dynamicId, kind: 'dynamic', appId: null, name: 'x' }, target: { kind: 'app', app: acme.app }, resource: acme.resource, accountId: person.id, agentId: null }),
        ),
        database.db.transaction((tx) => revokeClientAtApp(tx, dynamicId, acme.app.id)),
      ]);
      expect(revoked.ok).toBe(true);
      const left = await database.db.select().from(grantBindings).where(eq(grantBindings.clientId, dynamicId));
      expect(left).toEqual([]);
      expect(['bound', 'revoked']).toContain(consented);
    }
  });

  it('a client ID metadata document cannot make itself confidential, an app, or redirect anywhere', () => {
    const base = { tokenEndpointAuthMethod: 'none', redirectUris: ['http://127.0.0.1:5000/cb'], grantTypes: ['authorization_code'] };
    expect(cimdPolicyViolation(base)).toBeUndefined();
    expect(cimdPolicyViolation({ ...base, portico_kind: 'app' })).toMatch(/portico_kind/);
    expect(cimdPolicyViolation({ ...base, portico_app_id: acme.app.id })).toMatch(/portico_app_id/);
    expect(cimdPolicyViolation({ ...base, tokenEndpointAuthMethod: 'private_key_jwt' })).toMatch(/public/);
    expect(cimdPolicyViolation({ ...base, redirectUris: ['http://evil.example/cb'] })).toMatch(/plain http/);
    expect(cimdPolicyViolation({ ...base, redirectUris: ['javascript:alert(1)'] })).toBeDefined();
    expect(cimdPolicyViolation({ ...base, grantTypes: ['client_credentials'] })).toMatch(/grant_types/);
  });
});
