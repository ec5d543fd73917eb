// Portico's own MCP server and its REST twin, with the MCP SDK's client, tokens Portico really issues and real
// PostgreSQL: the risk model in `initialize`, sessions any instance can serve, and the confirmation gate (single
// use, 300 s, bound to the arguments in RFC 8785 form, atomic under concurrent retries). These instances run the
// gate in `in_band` mode (the caller relays the token itself), which must keep the first version's behaviour; the
// default `human` mode is covered by human-confirmation.test.ts.
import { addPermission } from '../../lib/clients/permission-catalog';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RISK_MODEL_CAPABILITY } from '../../app-kit/tools';
import { createAgent } from '../../lib/organizations/agents';
import { auditEvents, confirmationChallenges, mcpSessions, users } from '../../lib/db/schema';
import { childProcessEnvironment } from '../../lib/env';
import { porticoRiskLevels } from '../../lib/mcp/tools';
import { authenticateApiRequest } from '../../lib/mcp/authenticate';
import { publicJwksOf } from '../../lib/oidc/keys';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { porticoApiToken, startMcpInstance, type McpInstance } from '../support/portico-mcp';
import { createMember, createOrgWithApp, startProviderHarness, type AppFixture, type Harness } from '../support/provider-harness';

const text = (result: unknown) => ((result as { content: { type: string; text: string }[] }).content[0]?.text ?? '');
const tokenIn = (challenge: string) => /"(confirm_[A-Za-z0-9_-]+)"/.exec(challenge)?.[1];

describe("Portico's MCP server", () => {
  let database: TestDatabase;
  let harness: Harness;
  let fixture: AppFixture;
  let agentId: string;
  let orgSlug: string;
  let ownerToken: string;
  let otherToken: string;
  let clock = new Date();
  const instances: McpInstance[] = [];

  async function startInstance(levels = porticoRiskLevels({})): Promise<McpInstance> {
    const instance = await startMcpInstance(database, harness, { levels, now: () => clock, confirmationMode: 'in_band' });
    instances.push(instance);
    return instance;
  }

  const porticoToken = (email: string) => porticoApiToken(harness, database, email);

  async function connect(url: string, token = ownerToken): Promise<Client> {
    const client = new Client({ name: 'portico-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    return client;
  }

  const grantArgs = (scope: string) => ({ org: orgSlug, agent: agentId, app: fixture.app.slug, scope });
  const grantsRun = async (scope: string) =>
    (await database.db.select().from(auditEvents).where(and(eq(auditEvents.action, 'agent.scope_granted'), eq(auditEvents.subjectId, agentId)))).filter(
      (event) => (event.details as { scope?: string }).scope === scope,
    ).length;

  beforeAll(async () => {
    database = await openTestDatabase();
    harness = await startProviderHarness(database);
    fixture = await createOrgWithApp(database, 'Gate');
    // agents.grant names permissions of the app's catalog only.
    for (const scope of ['late:scope', 'notes:read', 'notes:write', 'outsider:scope', 'race:scope', 'rest:other', 'rest:scope']) {
      await addPermission(database.db, fixture.app.id, { scope, description: `Test permission ${scope}` });
    }
    const owner = await createMember(database, fixture.orgId, `owner-${randomBytes(3).toString('hex')}@gate.test`, 'owner');
    const outsider = await createMember(database, (await createOrgWithApp(database, 'Elsewhere')).orgId, `out-${randomBytes(3).toString('hex')}@gate.test`);
    agentId = (await createAgent(database.db, { orgId: fixture.orgId, name: 'Helper', ownerUserId: owner.id })).id;
    orgSlug = (await database.db.query.organizations.findFirst({ where: (org, { eq: equals }) => equals(org.id, fixture.orgId) }))!.slug;
    ownerToken = await porticoToken(owner.email);
    otherToken = await porticoToken(outsider.email);
  });
  afterAll(async () => {
    for (const instance of instances) await instance.close();
    await harness?.close();
    await database?.close();
  });

  it('shows the risk model version in initialize, keeps the session in PostgreSQL, and runs a safe tool', async () => {
    const instance = await startInstance();
    const client = await connect(instance.url);
    expect(client.getServerCapabilities()?.experimental?.[RISK_MODEL_CAPABILITY]).toMatchObject({ version: 1, confirmation_mode: 'in_band' });
    const { tools } = await client.listTools();
    const annotations = Object.fromEntries(tools.map((tool) => [tool.name, tool.annotations]));
    expect(annotations['apps.list']).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(annotations['clients.revoke']).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    const apps = JSON.parse(text(await client.callTool({ name: 'apps.list', arguments: { org: orgSlug } }))) as { apps: { slug: string }[] };
    expect(apps.apps.map((app) => app.slug)).toEqual([fixture.app.slug]);
    // A call registers only the tool it names; a name that is no tool is refused as an unknown tool (the JSON-RPC
    // error -32602 MCP's tools page shows for it), and a call with bad arguments is still checked against the
    // tool's schema.
    await expect(client.callTool({ name: 'apps.no_such_tool', arguments: {} })).rejects.toThrow(/-32602.*Tool apps\.no_such_tool not found/);
    const malformed = await client.callTool({ name: 'apps.list', arguments: { org: 42 } });
    expect(malformed.isError).toBe(true);
    expect(text(malformed)).toMatch(/Input validation error/);
    const sessions = await database.db.select().from(mcpSessions);
    expect(sessions.some((session) => (session.clientInfo as { name?: string }).name === 'portico-test')).toBe(true);
    await client.close();
  });

  it('refuses a token whose person was disabled since, at once, and serves it again once re-enabled', async () => {
    // (Agents act only at apps: Portico's own API is always used by the person, so only the person is checked here.)
    const instance = await startInstance();
    const person = await createMember(database, fixture.orgId, `disabled-${randomBytes(3).toString('hex')}@gate.test`);
    const token = await porticoToken(person.email);
    const post = () =>
      fetch(instance.url, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
      });
    expect((await post()).status).toBe(200);
    await database.db.update(users).set({ disabledAt: new Date() }).where(eq(users.id, person.id));
    const refused = await post();
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error: 'invalid_token', error_description: 'the account of this token is disabled or gone' });
    await database.db.update(users).set({ disabledAt: null }).where(eq(users.id, person.id));
    expect((await post()).status).toBe(200);
  });

  it("keeps the account's secrets out of a request's caller: the person's id, address, name and language only", async () => {
    const instance = await startInstance();
    const person = await createMember(database, fixture.orgId, `caller-${randomBytes(3).toString('hex')}@gate.test`);
    // A member has a password (its hash in the row) and now a language of their own.
    await database.db.update(users).set({ locale: 'pt-BR' }).where(eq(users.id, person.id));
    const token = await porticoToken(person.email);
    const initialized = await fetch(instance.url, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
    });
    const sessionId = initialized.headers.get('mcp-session-id') ?? '';
    const request = new Request(instance.url, { method: 'POST', headers: { Authorization: `Bearer ${token}` } });
    const authentication = await authenticateApiRequest(request, { db: database.db, issuer: harness.issuer, publicJwks: publicJwksOf(harness.keys) }, undefined, { mcpSessionId: sessionId });
    if (!authentication.ok) throw new Error(`refused: ${authentication.response.status}`);
    expect(authentication.caller.user).toEqual({ id: person.id, email: person.email, name: person.name, locale: 'pt-BR' });
    // The session as a request uses it (the statement reads no more of it).
    expect(Object.keys(authentication.caller.mcpSession ?? {}).sort()).toEqual(['clientCapabilities', 'expiresAt', 'id']);
    expect(authentication.caller.mcpSession?.id).toBe(sessionId);
  });

  it('serves a session on another instance, but never to another person, and refuses a request without one', async () => {
    const a = await startInstance();
    const b = await startInstance();
    const client = await connect(a.url);
    const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId!;
    expect(sessionId).toMatch(/^mcs_/);
    const call = (url: string, token: string, session?: string) =>
      fetch(url, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-11-25', ...(session ? { 'Mcp-Session-Id': session } : {}) },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
      });
    const atB = await call(b.url, ownerToken, sessionId);
    expect(atB.status).toBe(200);
    expect(JSON.stringify(await atB.json())).toContain('"act":null');
    expect((await call(b.url, otherToken, sessionId)).status).toBe(404);
    expect((await call(b.url, ownerToken, 'mcs_unknown_unknown_unknown_unknown_')).status).toBe(404);
    expect((await call(b.url, ownerToken)).status).toBe(400);
    await client.close();
  });

  it('holds an approval_required tool behind a single-use challenge bound to the arguments', async () => {
    const client = await connect((await startInstance()).url);
    const first = text(await client.callTool({ name: 'agents.grant', arguments: grantArgs('notes:read') }));
    expect(first).toContain('Confirmation required: "agents.grant"');
    expect(first).toContain('Warning:');
    expect(await grantsRun('notes:read')).toBe(0);
    const token = tokenIn(first)!;

    // Another value with this token: a new challenge, nothing runs.
    expect(text(await client.callTool({ name: 'agents.grant', arguments: { ...grantArgs('notes:write'), _confirmation_token: token } }))).toContain('Confirmation required');
    expect(await grantsRun('notes:write')).toBe(0);
    // The same arguments in another key order: runs, once.
    const { scope, app, agent, org } = grantArgs('notes:read');
    expect(text(await client.callTool({ name: 'agents.grant', arguments: { _confirmation_token: token, scope, app, agent, org } }))).toContain('now holds notes:read');
    expect(await grantsRun('notes:read')).toBe(1);
    // Spent: the same retry gets a new challenge.
    const again = text(await client.callTool({ name: 'agents.grant', arguments: { ...grantArgs('notes:read'), _confirmation_token: token } }));
    expect(again).toContain('Confirmation required');
    expect(tokenIn(again)).not.toBe(token);
    expect(await grantsRun('notes:read')).toBe(1);

    const audit = await database.db.select({ action: auditEvents.action, details: auditEvents.details, act: auditEvents.act }).from(auditEvents).where(eq(auditEvents.subjectId, 'agents.grant'));
    expect(audit.map((event) => event.action)).toEqual(['mcp.tool_challenge_issued', 'mcp.tool_challenge_issued', 'mcp.tool_succeeded', 'mcp.tool_challenge_issued']);
    expect(audit[2]!.details).toMatchObject({ riskLevel: 'approval_required', outcome: 'succeeded' });
    await client.close();
  });

  it('lets a token expire after 300 seconds, and garbage-collects expired challenges', async () => {
    const client = await connect((await startInstance()).url);
    const token = tokenIn(text(await client.callTool({ name: 'agents.grant', arguments: grantArgs('late:scope') })))!;
    clock = new Date(clock.getTime() + 301_000);
    try {
      const late = text(await client.callTool({ name: 'agents.grant', arguments: { ...grantArgs('late:scope'), _confirmation_token: token } }));
      expect(late).toContain('not valid for this call');
      expect(await grantsRun('late:scope')).toBe(0);
      // The expired challenge was purged when the new one was issued; only the fresh one remains.
      const left = await database.db.select().from(confirmationChallenges).where(eq(confirmationChallenges.tool, 'agents.grant'));
      expect(left.every((row) => row.expiresAt > clock)).toBe(true);
      expect(text(await client.callTool({ name: 'agents.grant', arguments: { ...grantArgs('late:scope'), _confirmation_token: tokenIn(late)! } }))).toContain('now holds');
    } finally {
      clock = new Date();
    }
    await client.close();
  });

  it('runs a confirmed call exactly once when two retries race on two instances', async () => {
    const [a, b] = [await startInstance(), await startInstance()];
    const clientA = await connect(a.url);
    const clientB = await connect(b.url);
    const token = tokenIn(text(await clientA.callTool({ name: 'agents.grant', arguments: grantArgs('race:scope') })))!;
    const results = await Promise.all([clientA, clientB].map((client) => client.callTool({ name: 'agents.grant', arguments: { ...grantArgs('race:scope'), _confirmation_token: token } })));
    expect(results.filter((result) => text(result).includes('now holds')).length).toBe(1);
    expect(await grantsRun('race:scope')).toBe(1);
    await clientA.close();
    await clientB.close();
  });

  it('gives the same results over REST', async () => {
    const instance = await startInstance();
    const rest = (name: string, body: unknown, token = ownerToken) =>
      fetch(instance.url.replace('/api/mcp', `/api/tools/${name}`), { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    expect((await (await rest('apps.list', { org: orgSlug })).json()).result.apps).toHaveLength(1);
    const challenge = await (await rest('agents.grant', grantArgs('rest:scope'))).json();
    expect(challenge).toMatchObject({ status: 'confirmation_required', risk_level: 'approval_required' });
    expect(challenge.challenge).toContain('Confirmation required');
    expect(await grantsRun('rest:scope')).toBe(0);
    expect((await (await rest('agents.grant', { ...grantArgs('rest:other'), _confirmation_token: challenge.confirmation_token })).json()).status).toBe('confirmation_required');
    const ran = await rest('agents.grant', { ...grantArgs('rest:scope'), _confirmation_token: challenge.confirmation_token });
    expect(ran.status).toBe(200);
    expect(await ran.json()).toMatchObject({ status: 'ok' });
    expect((await (await rest('agents.grant', { ...grantArgs('rest:scope'), _confirmation_token: challenge.confirmation_token })).json()).status).toBe('confirmation_required');
    expect(await grantsRun('rest:scope')).toBe(1);

    expect((await rest('no.such_tool', {})).status).toBe(404);
    expect(await (await rest('apps.set_dev_environment', { org: orgSlug, app: fixture.app.slug, hours: 'many' })).json()).toMatchObject({ error: 'invalid_arguments' });
    const outsider = await rest('apps.list', { org: orgSlug }, otherToken);
    expect(outsider.status).toBe(422);
    expect((await outsider.json()).error).toContain('No organization');
    // Someone who may not grant gets a refusal, not a challenge that could never be used.
    const refused = await rest('agents.grant', grantArgs('outsider:scope'), otherToken);
    expect(refused.status).toBe(422);
    expect((await refused.json()).error).toContain('refused');
    expect((await fetch(instance.url.replace('/api/mcp', '/api/tools/apps.list'), { method: 'POST', body: '{}' })).status).toBe(401);
  });

  it('accepts an override that raises a level and refuses to start with one that lowers a critical tool', async () => {
    const raised = porticoRiskLevels({ 'apps.list': 'approval_required' });
    const client = await connect((await startInstance(raised)).url);
    expect(text(await client.callTool({ name: 'apps.list', arguments: { org: orgSlug } }))).toContain('Confirmation required: "apps.list"');
    await client.close();

    const dataDir = mkdtempSync(path.join(tmpdir(), 'portico-risk-'));
    const started = spawnSync(process.execPath, ['--import', 'tsx', 'server.ts'], {
      env: childProcessEnvironment({ PORTICO_RISK_OVERRIDES: 'clients.revoke=review', PORTICO_DATA_DIR: dataDir, DATABASE_URL: undefined }),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(started.status).not.toBe(0);
    expect(started.stderr).toContain('Portico cannot start');
    expect(started.stderr).toContain('"clients.revoke"');
  });
});
