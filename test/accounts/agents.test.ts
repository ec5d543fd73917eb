// Agents as token subjects: own mode (the agent is `sub`, direct grants only), delegated mode (the person is `sub`,
// the agent `act`), tokens issued only through Portico's own token exchange, and access that ends with the agent.
import { randomBytes } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_INPUTS } from '../../lib/organizations/agent-commands';
import { allowAgentUser, createAgent, createConnection, deleteAgent, disallowAgentUser, grantAgentScope, moveAgent } from '../../lib/organizations/agents';
import { setAgentDisabled } from '../../lib/organizations/agent-lifecycle';
import { addTeamMember, createTeam, grantTeamScope } from '../../lib/organizations/teams';
import { createOrganization } from '../../lib/organizations/organizations';
import { addMember } from '../../lib/organizations/memberships';
import { agentConnections } from '../../lib/db/schema';
import { addPermission } from '../../lib/clients/permission-catalog';
import { setAppDisabled } from '../../lib/clients/apps';
import { agentTokenRequestBody, porticoClientAssertion, requestAgentToken, PORTICO_INTERNAL_CLIENT_ID, TOKEN_EXCHANGE_GRANT, AGENT_CONNECTION_TOKEN_TYPE } from '../../lib/oidc/agent-token-exchange';
import { authorizeBearer, remoteKeys } from '../../app-kit/protected-resource';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { createMember, createOrgWithApp, startProviderHarness, type AppFixture, type Harness } from '../support/provider-harness';

describe('agents as token subjects', () => {
  let database: TestDatabase;
  let harness: Harness;
  let app: AppFixture;

  beforeAll(async () => {
    database = await openTestDatabase();
    harness = await startProviderHarness(database);
    app = await createOrgWithApp(database, 'Agents Inc');
    // Only permissions of the app's catalog reach tokens.
    for (const scope of ['invoices:write', 'reports:read']) await addPermission(database.db, app.app.id, { scope, description: `May ${scope}` });
  });
  afterAll(async () => {
    await harness?.close();
    await database?.close();
  });

  const unique = () => randomBytes(3).toString('hex');

  async function exchange(connectionId: string, override: Record<string, string> = {}) {
    const body = await agentTokenRequestBody(harness.keys.signingKeys, harness.issuer, connectionId);
    for (const [name, value] of Object.entries(override)) body.set(name, value);
    const response = await fetch(`${harness.issuer}/oidc/token`, { method: 'POST', body });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  /** The app's own gate (lib/resource), requiring `mcp` like an app's /api/mcp. */
  async function atTheApp(accessToken: string) {
    const config = { resource: app.resource, issuer: harness.issuer, audience: app.app.identity, scopesSupported: ['mcp'] };
    const request = new Request(app.resource, { method: 'POST', headers: { Authorization: `Bearer ${accessToken}` } });
    return authorizeBearer(request, config, remoteKeys(harness.issuer), ['mcp']);
  }

  it("own mode: the agent is sub, holds only its direct grants — nothing from its owner's role or teams", async () => {
    const owner = await createMember(database, app.orgId, `owner-${unique()}@agents.test`, 'owner');
    const team = await createTeam(database.db, { orgId: app.orgId, name: `Team ${unique()}` });
    await addTeamMember(database.db, team.id, owner.id);
    await grantTeamScope(database.db, { teamId: team.id, appId: app.app.id, scope: 'invoices:write' });
    const agent = await createAgent(database.db, { orgId: app.orgId, name: 'Reporter', ownerUserId: owner.id });
    await grantAgentScope(database.db, { agentId: agent.id, orgId: app.orgId, appId: app.app.id, scope: 'reports:read' });
    const connection = await createConnection(database.db, { agentId: agent.id, orgId: app.orgId, appId: app.app.id, createdByUserId: owner.id, connection: { mode: 'own' } });

    const issued = await exchange(connection.id);
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    // An access token only: never an ID token, never a refresh token.
    expect(Object.keys(issued.body).sort()).toEqual(['access_token', 'expires_in', 'issued_token_type', 'scope', 'token_type']);
    expect(issued.body.expires_in).toBeLessThanOrEqual(600);
    const claims = decodeJwt(String(issued.body.access_token));
    expect(claims).toMatchObject({ sub: agent.id, aud: app.app.identity, scope: 'reports:read', org: app.orgId });
    expect(claims.act).toBeUndefined();

    // The owner's membership gives people `mcp` at the app; the agent has no such baseline, so the app refuses it…
    const refused = await atTheApp(String(issued.body.access_token));
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.response.status).toBe(403);
    // …until it is granted directly.
    await grantAgentScope(database.db, { agentId: agent.id, orgId: app.orgId, appId: app.app.id, scope: 'mcp' });
    const granted = await exchange(connection.id);
    expect(decodeJwt(String(granted.body.access_token)).scope).toBe('mcp reports:read');
    expect((await atTheApp(String(granted.body.access_token))).ok).toBe(true);
  });

  it('delegated mode: the person is sub and the agent act, with the person’s permissions; it ends when the person may no longer use the agent', async () => {
    const owner = await createMember(database, app.orgId, `owner-${unique()}@agents.test`, 'admin');
    const person = await createMember(database, app.orgId, `person-${unique()}@agents.test`);
    const agent = await createAgent(database.db, { orgId: app.orgId, name: 'Assistant', ownerUserId: owner.id });
    await grantAgentScope(database.db, { agentId: agent.id, orgId: app.orgId, appId: app.app.id, scope: 'admin:everything' });
    await allowAgentUser(database.db, agent.id, person.id);
    const connection = await createConnection(database.db, { agentId: agent.id, orgId: app.orgId, appId: app.app.id, createdByUserId: owner.id, connection: { mode: 'delegated', delegateUserId: person.id } });

    const issued = await exchange(connection.id);
    expect(issued.status).toBe(200);
    expect(issued.body).not.toHaveProperty('refresh_token');
    // The agent's own grants do not travel into a delegated token: the person's permissions only.
    expect(decodeJwt(String(issued.body.access_token))).toMatchObject({ sub: person.id, act: { sub: agent.id }, scope: 'mcp', aud: app.app.identity });

    await disallowAgentUser(database.db, agent.id, person.id); // also removes the delegation
    expect((await exchange(connection.id)).body.error).toBe('invalid_grant');
  });

  it('a deleted, disabled or moved agent gets no new token', async () => {
    const owner = await createMember(database, app.orgId, `owner-${unique()}@agents.test`, 'owner');
    const other = await createOrganization(database.db, { slug: `elsewhere-${unique()}`, name: 'Elsewhere' });
    await addMember(database.db, { orgId: other.id, userId: owner.id, role: 'owner' });
    const make = async (name: string) => {
      const agent = await createAgent(database.db, { orgId: app.orgId, name, ownerUserId: owner.id });
      const connection = await createConnection(database.db, { agentId: agent.id, orgId: app.orgId, appId: app.app.id, createdByUserId: owner.id, connection: { mode: 'own' } });
      expect((await exchange(connection.id)).status).toBe(200);
      return { agent, connection };
    };
    const disabled = await make('To disable');
    await setAgentDisabled(database.db, disabled.agent.id, true);
    expect((await exchange(disabled.connection.id)).body.error).toBe('invalid_grant');

    const deleted = await make('To delete');
    await deleteAgent(database.db, deleted.agent.id);
    expect((await exchange(deleted.connection.id)).body.error).toBe('invalid_grant');

    const moved = await make('To move');
    await database.db.transaction((tx) => moveAgent(tx, moved.agent.id, other.id, owner.id));
    expect((await exchange(moved.connection.id)).body.error).toBe('invalid_grant');

    // A turned-off app: no agent token for it either (the exchange and the request through Portico), until it is on.
    const switched = await make('App switched off');
    await setAppDisabled(database.db, app.app.id, true);
    try {
      expect((await exchange(switched.connection.id)).body.error).toBe('invalid_grant');
      const asked = await requestAgentToken(database.db, { issuer: harness.issuer, signingKeys: harness.keys.signingKeys, orgId: app.orgId, personId: owner.id, connectionId: switched.connection.id });
      expect(asked).toMatchObject({ ok: false, status: 409, error: 'invalid_grant' });
    } finally {
      await setAppDisabled(database.db, app.app.id, false);
    }
    expect((await exchange(switched.connection.id)).status).toBe(200);
  });

  it('only Portico itself can exchange: replayed or foreign assertions, other clients and other resources are refused', async () => {
    const owner = await createMember(database, app.orgId, `owner-${unique()}@agents.test`, 'owner');
    const agent = await createAgent(database.db, { orgId: app.orgId, name: 'Guarded', ownerUserId: owner.id });
    const connection = await createConnection(database.db, { agentId: agent.id, orgId: app.orgId, appId: app.app.id, createdByUserId: owner.id, connection: { mode: 'own' } });

    const assertion = await porticoClientAssertion(harness.keys.signingKeys, harness.issuer);
    expect((await exchange(connection.id, { client_assertion: assertion })).status).toBe(200);
    const replayed = await exchange(connection.id, { client_assertion: assertion });
    expect(replayed.status).toBe(401);
    expect(replayed.body.error).toBe('invalid_client');

    // Signed with a key that is not Portico's.
    const { generateKeyPair, exportJWK } = await import('jose');
    const stranger = { ...(await exportJWK((await generateKeyPair('ES256', { extractable: true })).privateKey)), alg: 'ES256', kid: harness.keys.signingKeys[0]!.kid };
    const forged = await exchange(connection.id, { client_assertion: await porticoClientAssertion([stranger], harness.issuer) });
    expect(forged.status).toBe(401);

    // Another client asking for the grant.
    const dynamic = await fetch(`${harness.issuer}/oidc/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: TOKEN_EXCHANGE_GRANT, client_id: app.clientId, client_secret: app.clientSecret, subject_token: connection.id, subject_token_type: AGENT_CONNECTION_TOKEN_TYPE }),
    });
    const refusal = (await dynamic.json()) as { error: string; error_description: string };
    expect(dynamic.status, JSON.stringify(refusal)).toBeGreaterThanOrEqual(400);
    // An app's own client may use token exchange (for ID-JAGs, lib/oidc/id-jag.ts), never for an agent connection.
    expect(refusal).toMatchObject({ error: 'unauthorized_client', error_description: 'only Portico itself may exchange agent connections' });

    expect((await exchange(connection.id, { resource: 'https://elsewhere.test/api/mcp' })).body.error).toBe('invalid_target');
    expect((await exchange(connection.id, { subject_token_type: 'urn:ietf:params:oauth:token-type:access_token' })).body.error).toBe('invalid_request');
    expect((await exchange('00000000-0000-4000-8000-000000000000')).body.error).toBe('invalid_grant');
    expect(PORTICO_INTERNAL_CLIENT_ID).toBe('portico-internal');
  });

  it('a connection has an explicit mode: none, or a mix, is refused by the input schema and by the database', async () => {
    const owner = await createMember(database, app.orgId, `owner-${unique()}@agents.test`, 'owner');
    const agent = await createAgent(database.db, { orgId: app.orgId, name: 'Strict', ownerUserId: owner.id });
    expect(AGENT_INPUTS.connect.safeParse({ agentId: agent.id, appId: app.app.id }).success).toBe(false);
    expect(AGENT_INPUTS.connect.safeParse({ agentId: agent.id, appId: app.app.id, mode: 'own', delegateUserId: owner.id }).success).toBe(false);
    expect(AGENT_INPUTS.connect.safeParse({ agentId: agent.id, appId: app.app.id, mode: 'delegated' }).success).toBe(false);
    expect(AGENT_INPUTS.connect.safeParse({ agentId: agent.id, appId: app.app.id, mode: 'own' }).success).toBe(true);

    const insert = (mode: unknown, delegate: string | null) =>
      database.db.execute(sql`insert into ${agentConnections} (agent_id, org_id, app_id, mode, delegate_user_id) values (${agent.id}, ${app.orgId}, ${app.app.id}, ${mode}, ${delegate})`);
    await expect(insert(null, null)).rejects.toThrow();
    await expect(insert('own', owner.id)).rejects.toThrow();
    await expect(insert('delegated', null)).rejects.toThrow();
    expect(await database.db.select().from(agentConnections).where(eq(agentConnections.agentId, agent.id))).toEqual([]);
  });

  it('own mode: people who may use the agent; delegated mode: the person it acts for, and nobody else', async () => {
        const owner = await createMember(database, app.orgId, `owner-${randomBytes(3).toString('hex')}@tokens.test`, 'owner');
    const user = await createMember(database, app.orgId, `user-${randomBytes(3).toString('hex')}@tokens.test`);
    const stranger = await createMember(database, app.orgId, `stranger-${randomBytes(3).toString('hex')}@tokens.test`, 'admin');
    const agent = await createAgent(database.db, { orgId: app.orgId, name: 'Shared', ownerUserId: owner.id });
    await allowAgentUser(database.db, agent.id, user.id);
    const own = await createConnection(database.db, { agentId: agent.id, orgId: app.orgId, appId: app.app.id, createdByUserId: owner.id, connection: { mode: 'own' } });
    const ask = (personId: string, connectionId: string) =>
      requestAgentToken(database.db, { issuer: harness.issuer, signingKeys: harness.keys.signingKeys, orgId: app.orgId, personId, connectionId });

    expect((await ask(owner.id, own.id)).ok).toBe(true);
    expect((await ask(user.id, own.id)).ok).toBe(true);
    expect(await ask(stranger.id, own.id)).toMatchObject({ ok: false, status: 403 }); // an admin who may not use it

    await database.db.delete(agentConnections).where(eq(agentConnections.id, own.id));
    const delegated = await createConnection(database.db, { agentId: agent.id, orgId: app.orgId, appId: app.app.id, createdByUserId: owner.id, connection: { mode: 'delegated', delegateUserId: user.id } });
    expect(await ask(owner.id, delegated.id)).toMatchObject({ ok: false, status: 403 }); // not even the agent's owner
    const mine = await ask(user.id, delegated.id);
    expect(mine.ok).toBe(true);
    if (mine.ok) expect(decodeJwt(String(mine.body.access_token))).toMatchObject({ sub: user.id, act: { sub: agent.id } });
    expect(await ask(user.id, '00000000-0000-4000-8000-000000000000')).toMatchObject({ ok: false, status: 404 });
  });
});
