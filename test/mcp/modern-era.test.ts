// Portico's /api/mcp in the 2026-07-28 revision (issue 55), beside 2025-11-25: the SDK v2 client as it is
// (@modelcontextprotocol/client 2.4.0, which probes `server/discover` first), raw requests where the wire itself is
// the point, two instances with nothing shared but PostgreSQL, and the human confirmation as a URL input request
// (multi-round-trip) whose retry carries the challenge's token in signed state.
import { randomBytes } from 'node:crypto';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIRMATION_META, RISK_MODEL_CAPABILITY } from '../../app-kit/tools';
import { RISK_MODEL_VERSION } from '../../app-kit/risk';
import { createAgent } from '../../lib/organizations/agents';
import { relyingPartyOf } from '../../lib/accounts/factors/passkeys';
import type { User } from '../../lib/accounts/users';
import { addPermission } from '../../lib/clients/permission-catalog';
import { approvalRequests, auditEvents, mcpSessions } from '../../lib/db/schema';
import { answerConfirmation } from '../../lib/confirmations/answers';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { porticoApiToken, startMcpInstance, type McpInstance } from '../support/portico-mcp';
import { createMember, createOrgWithApp, startProviderHarness, TEST_PASSWORD, type AppFixture, type Harness } from '../support/provider-harness';

const MODERN = '2026-07-28';
type ToolResult = { content: { type: string; text: string }[]; isError?: boolean; _meta?: Record<string, { confirmation_url?: string; status?: string; token?: string }> };
const text = (result: unknown) => (result as ToolResult).content[0]?.text ?? '';
const keys = { atRestKey: randomBytes(32), rp: relyingPartyOf('http://localhost') };
const ADAPTIVE = { approvals: { surface: 'adaptive' as const, centralEnabled: true, frameAncestors: [] }, elicitationWaitMs: 10_000 };

describe("Portico's MCP server in the 2026-07-28 revision", () => {
  let database: TestDatabase;
  let harness: Harness;
  let fixture: AppFixture;
  let owner: User;
  let ownerToken: string;
  let agentId: string;
  let orgSlug: string;
  let instances: McpInstance[];

  const grantArgs = (scope: string) => ({ org: orgSlug, agent: agentId, app: fixture.app.slug, scope });
  const grantsRun = async (scope: string) =>
    (await database.db.select().from(auditEvents).where(and(eq(auditEvents.action, 'agent.scope_granted'), eq(auditEvents.subjectId, agentId)))).filter(
      (event) => (event.details as { scope?: string }).scope === scope,
    ).length;
  const idOf = (url: string) => url.split('/console/confirm/')[1]!;

  /** One JSON-RPC request of the modern revision, as its wire carries it: the envelope in `_meta` and the version header. */
  async function modern(url: string, method: string, params: Record<string, unknown> = {}, options: { version?: string; capabilities?: object; token?: string; headers?: Record<string, string> } = {}) {
    const version = options.version ?? MODERN;
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${options.token ?? ownerToken}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': version,
        // The revision's routing headers (the body's method, and the tool a call names).
        'Mcp-Method': method,
        ...(typeof params.name === 'string' ? { 'Mcp-Name': params.name } : {}),
        ...options.headers,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method,
        params: {
          ...params,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': version,
            'io.modelcontextprotocol/clientInfo': { name: 'raw-modern', version: '1.0.0' },
            'io.modelcontextprotocol/clientCapabilities': options.capabilities ?? {},
          },
        },
      }),
    });
    return { status: response.status, headers: response.headers, body: (await response.json()) as { result?: Record<string, unknown>; error?: { code: number; message: string; data?: Record<string, unknown> } } };
  }

  async function connectModern(url: string, capabilities: object = {}): Promise<Client> {
    // The v2 client's own switch for the new revision (its default is the 2025 handshake): probe server/discover.
    const client = new Client({ name: 'modern-test', version: '1.0.0' }, { capabilities, versionNegotiation: { mode: 'auto' } });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${ownerToken}` } } }));
    return client;
  }

  beforeAll(async () => {
    database = await openTestDatabase();
    harness = await startProviderHarness(database);
    fixture = await createOrgWithApp(database, 'Modern');
    for (const scope of ['m:input', 'm:input-denied', 'm:input-declined', 'm:link', 'm:forged']) await addPermission(database.db, fixture.app.id, { scope, description: `Test permission ${scope}` });
    owner = await createMember(database, fixture.orgId, `owner-${randomBytes(3).toString('hex')}@modern.test`, 'owner');
    agentId = (await createAgent(database.db, { orgId: fixture.orgId, name: 'Helper', ownerUserId: owner.id })).id;
    orgSlug = (await database.db.query.organizations.findFirst({ where: (org, { eq: equals }) => equals(org.id, fixture.orgId) }))!.slug;
    ownerToken = await porticoApiToken(harness, database, owner.email);
    instances = [await startMcpInstance(database, harness), await startMcpInstance(database, harness)];
  });
  afterAll(async () => {
    for (const instance of instances) await instance.close();
    await harness?.close();
    await database?.close();
  });

  it('answers server/discover with the versions, its capabilities, the risk model and its version, and its name', async () => {
    const discovered = await modern(instances[0]!.url, 'server/discover');
    expect(discovered.status).toBe(200);
    const result = discovered.body.result as { supportedVersions: string[]; capabilities: { tools?: object; experimental?: Record<string, { version?: number; confirmation_mode?: string }> }; _meta?: Record<string, { name?: string }> };
    expect(result.supportedVersions).toContain(MODERN);
    expect(result.capabilities.tools).toBeDefined();
    expect(result.capabilities.experimental?.[RISK_MODEL_CAPABILITY]).toMatchObject({ version: RISK_MODEL_VERSION, confirmation_mode: 'human' });
    expect(result._meta?.['io.modelcontextprotocol/serverInfo']?.name).toBe('portico');
    // Nothing was stored for it: the modern revision has no session.
    expect(discovered.headers.get('mcp-session-id')).toBeNull();
  });

  it('checks Host and Origin before the SDK sees a modern request, and holds no listen stream open', async () => {
    const foreignOrigin = await modern(instances[0]!.url, 'tools/list', {}, { headers: { Origin: 'https://evil.example' } });
    expect(foreignOrigin.status).toBe(403);
    // A listen stream would stay open for nothing (Portico's tools do not change): refused at once as unknown.
    const listen = await modern(instances[0]!.url, 'subscriptions/listen', { notifications: { toolsListChanged: true } });
    expect(listen.body.error?.code).toBe(-32601);
  });

  it('refuses a version it does not speak with UnsupportedProtocolVersion (-32022) and the list it does', async () => {
    const refused = await modern(instances[0]!.url, 'tools/list', {}, { version: '2099-01-01' });
    expect(refused.body.error).toMatchObject({ code: -32022, data: { requested: '2099-01-01', supported: [MODERN] } });
  });

  it('serves the stock SDK v2 client with no session: it negotiates 2026-07-28, lists on one instance and calls on the other', async () => {
    const sessionsBefore = (await database.db.select().from(mcpSessions)).length;
    const first = await connectModern(instances[0]!.url);
    expect(first.getServerVersion()?.name).toBe('portico');
    expect((first.getServerCapabilities()?.experimental as Record<string, { version?: number }> | undefined)?.[RISK_MODEL_CAPABILITY]?.version).toBe(RISK_MODEL_VERSION);
    const { tools } = await first.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['apps.list', 'agents.grant', 'whoami']));
    expect(tools.find((tool) => tool.name === 'agents.grant')?._meta?.['io.portico/risk_level']).toBe('approval_required');
    // Another instance, another client object: no session to carry, the same answers.
    const second = await connectModern(instances[1]!.url);
    const apps = (await second.callTool({ name: 'apps.list', arguments: { org: orgSlug } })) as ToolResult & { structuredContent?: { apps: { slug: string }[] } };
    expect(apps.isError).toBeFalsy();
    expect(apps.structuredContent?.apps.map((app) => app.slug)).toEqual([fixture.app.slug]);
    // And a raw modern call on the first instance, naming no session at all.
    const whoami = await modern(instances[0]!.url, 'tools/call', { name: 'whoami', arguments: {} });
    expect(whoami.status).toBe(200);
    expect(JSON.stringify(whoami.body.result)).toContain(owner.email);
    // No session was written for any of it.
    expect((await database.db.select().from(mcpSessions)).length).toBe(sessionsBefore);
    await first.close();
    await second.close();
  });

  it('keeps serving the 2025-11-25 client beside it, with its session in PostgreSQL', async () => {
    const legacy = new LegacyClient({ name: 'legacy-test', version: '1.0.0' });
    const transport = new LegacyTransport(new URL(instances[1]!.url), { requestInit: { headers: { Authorization: `Bearer ${ownerToken}` } } });
    await legacy.connect(transport);
    expect(transport.sessionId).toMatch(/^mcs_/);
    expect((await database.db.select().from(mcpSessions).where(eq(mcpSessions.id, transport.sessionId!))).length).toBe(1);
    expect((await legacy.listTools()).tools.some((tool) => tool.name === 'agents.grant')).toBe(true);
    await legacy.close();
  });

  it('holds an approval_required call behind the challenge and its link for a client that declared no input requests', async () => {
    const client = await connectModern(instances[0]!.url);
    const result = (await client.callTool({ name: 'agents.grant', arguments: grantArgs('m:link') })) as ToolResult;
    const meta = result._meta?.[CONFIRMATION_META];
    expect(meta).toMatchObject({ status: 'confirmation_required', confirmation_url: expect.stringMatching(new RegExp(`^${harness.issuer}/console/confirm/cnf_`)) });
    // The `_confirmation_token` retry of 2025-11-25 holds here too: nothing runs before the person confirmed.
    const waiting = (await client.callTool({ name: 'agents.grant', arguments: { ...grantArgs('m:link'), _confirmation_token: meta!.token } })) as ToolResult;
    expect(waiting._meta?.[CONFIRMATION_META]).toMatchObject({ status: 'waiting' });
    await answerConfirmation(database.db, keys, { id: idOf(meta!.confirmation_url!), user: owner, decision: 'confirm', proof: { password: TEST_PASSWORD }, ip: '192.0.2.60' });
    expect(text(await client.callTool({ name: 'agents.grant', arguments: { ...grantArgs('m:link'), _confirmation_token: meta!.token } }))).toContain('now holds m:link');
    expect(await grantsRun('m:link')).toBe(1);
    await client.close();
  });

  it('asks a client that declared URL input requests to open the confirmation page, and runs the call once on its retry', async () => {
    const adaptive = [await startMcpInstance(database, harness, ADAPTIVE), await startMcpInstance(database, harness, ADAPTIVE)];
    instances.push(...adaptive);
    let personAnswers: 'confirm' | 'deny' | 'decline' = 'confirm';
    const offered: string[] = [];
    const client = new Client({ name: 'input-test', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } }, versionNegotiation: { mode: 'auto' } });
    client.setRequestHandler('elicitation/create', async (request) => {
      const url = (request.params as { url?: string }).url ?? '';
      offered.push(url);
      if (personAnswers === 'decline') return { action: 'decline' };
      // The client opens the page; the person signs in there and answers with step-up (played here, in Portico).
      setTimeout(() => void answerConfirmation(database.db, keys, { id: idOf(url), user: owner, decision: personAnswers === 'confirm' ? 'confirm' : 'deny', proof: { password: TEST_PASSWORD }, ip: '192.0.2.61' }), 300);
      return { action: 'accept' };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(adaptive[0]!.url), { requestInit: { headers: { Authorization: `Bearer ${ownerToken}` } } }));

    expect(text(await client.callTool({ name: 'agents.grant', arguments: grantArgs('m:input') }))).toContain('now holds m:input');
    expect(offered[0]).toMatch(new RegExp(`^${harness.issuer}/console/confirm/cnf_`));
    expect(await grantsRun('m:input')).toBe(1);
    personAnswers = 'deny';
    expect(text(await client.callTool({ name: 'agents.grant', arguments: grantArgs('m:input-denied') }))).toContain('denied');
    expect(await grantsRun('m:input-denied')).toBe(0);
    // Declined in the client: its retry carries the state but no visit, so the call is still waiting for the person,
    // with the link and the token for later (the challenge stays valid; nothing ran).
    personAnswers = 'decline';
    const declined = (await client.callTool({ name: 'agents.grant', arguments: grantArgs('m:input-declined') })) as ToolResult;
    expect(declined._meta?.[CONFIRMATION_META]).toMatchObject({ status: 'waiting', confirmation_url: expect.stringMatching(/\/console\/confirm\/cnf_/) });
    expect(await grantsRun('m:input-declined')).toBe(0);
    await client.close();
  });

  it('refuses a retry whose state was forged, taken by another caller, or made for other arguments', async () => {
    const [adaptive] = instances.slice(-2);
    const capabilities = { elicitation: { url: {} } };
    const first = await modern(adaptive!.url, 'tools/call', { name: 'agents.grant', arguments: grantArgs('m:forged') }, { capabilities });
    const asked = first.body.result as { resultType?: string; inputRequests?: Record<string, { params?: { url?: string } }>; requestState?: string };
    expect(asked.resultType).toBe('input_required');
    expect(asked.inputRequests?.confirmation?.params?.url).toMatch(/\/console\/confirm\/cnf_/);
    const state = asked.requestState!;
    const accepted = { confirmation: { action: 'accept' } };
    // A changed byte: the SDK refuses it before any tool runs.
    // (The character replaced is the one tested: a state whose second-to-last is already 'A' gets a 'B'.)
    const forged = `${state.slice(0, -2)}${state.at(-2) === 'A' ? 'B' : 'A'}${state.slice(-1)}`;
    expect(forged).not.toBe(state);
    const tampered = await modern(adaptive!.url, 'tools/call', { name: 'agents.grant', arguments: grantArgs('m:forged'), inputResponses: accepted, requestState: forged }, { capabilities });
    expect(tampered.body.error?.code).toBe(-32602);
    // Another person's client echoing it: bound to the caller, refused the same way.
    const stranger = await createMember(database, fixture.orgId, `stranger-${randomBytes(3).toString('hex')}@modern.test`, 'owner');
    const strangerToken = await porticoApiToken(harness, database, stranger.email, 'http://127.0.0.1:45684/callback');
    const foreign = await modern(adaptive!.url, 'tools/call', { name: 'agents.grant', arguments: grantArgs('m:forged'), inputResponses: accepted, requestState: state }, { capabilities, token: strangerToken });
    expect(foreign.body.error?.code).toBe(-32602);
    // The caller's own state with other arguments: the token is bound to the confirmed arguments, nothing runs.
    await answerConfirmation(database.db, keys, { id: idOf(asked.inputRequests!.confirmation!.params!.url!), user: owner, decision: 'confirm', proof: { password: TEST_PASSWORD }, ip: '192.0.2.62' });
    const other = await modern(adaptive!.url, 'tools/call', { name: 'agents.grant', arguments: grantArgs('m:input-declined'), inputResponses: accepted, requestState: state }, { capabilities });
    expect(JSON.stringify(other.body.result)).not.toContain('now holds');
    expect(await grantsRun('m:input-declined')).toBe(0);
    // The right retry runs it once; the same state again does not run it twice.
    const retry = await modern(adaptive!.url, 'tools/call', { name: 'agents.grant', arguments: grantArgs('m:forged'), inputResponses: accepted, requestState: state }, { capabilities });
    expect(JSON.stringify(retry.body.result)).toContain('now holds m:forged');
    const again = await modern(adaptive!.url, 'tools/call', { name: 'agents.grant', arguments: grantArgs('m:forged'), inputResponses: accepted, requestState: state }, { capabilities });
    expect(JSON.stringify(again.body.result)).not.toContain('now holds');
    expect(await grantsRun('m:forged')).toBe(1);
  });

  it('shows an access request as a URL input request (the central page) or a form, and the retry reports on that same request', async () => {
    const [adaptive] = instances.slice(-2);
    const requestsFor = async (resource: string) => database.db.select().from(approvalRequests).where(eq(approvalRequests.resource, resource));
    const ask = (client: Client, resource: string) =>
      client.callTool({ name: 'permissions.request_sensitive_access', arguments: { org: orgSlug, app: fixture.app.slug, resource, profile: 'read', duration_seconds: 3600, reason: 'quarter close' } }) as Promise<
        ToolResult & { structuredContent?: Record<string, string> }
      >;

    const seen: { mode?: string; url?: string }[] = [];
    const urlClient = new Client({ name: 'approval-url', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } }, versionNegotiation: { mode: 'auto' } });
    urlClient.setRequestHandler('elicitation/create', async (request) => {
      seen.push(request.params as { mode?: string; url?: string });
      return { action: 'accept' };
    });
    await urlClient.connect(new StreamableHTTPClientTransport(new URL(adaptive!.url), { requestInit: { headers: { Authorization: `Bearer ${ownerToken}` } } }));
    const viaUrl = await ask(urlClient, '/finance/modern-url');
    const [made] = await requestsFor('/finance/modern-url');
    expect(viaUrl.structuredContent).toMatchObject({ request_id: made!.id, approval_channel: 'elicitation_url', elicitation_mode: 'url', elicitation_outcome: 'accept', status: 'pending' });
    expect(seen[0]?.url).toBe(`${harness.issuer}/central/requests/${made!.id}`);
    // One request, although the call was made twice (the retry answered the round).
    expect(await requestsFor('/finance/modern-url')).toHaveLength(1);
    await urlClient.close();

    let intent: 'send' | 'withdraw' = 'withdraw';
    const formClient = new Client({ name: 'approval-form', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'auto' } });
    formClient.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { intent } }));
    await formClient.connect(new StreamableHTTPClientTransport(new URL(adaptive!.url), { requestInit: { headers: { Authorization: `Bearer ${ownerToken}` } } }));
    const withdrawn = await ask(formClient, '/finance/modern-withdrawn');
    expect(withdrawn.structuredContent).toMatchObject({ approval_channel: 'elicitation_form', elicitation_mode: 'form', elicitation_outcome: 'accept', status: 'cancelled' });
    expect((await requestsFor('/finance/modern-withdrawn')).map((request) => request.state)).toEqual(['cancelled']);
    intent = 'send';
    const sent = await ask(formClient, '/finance/modern-sent');
    expect(sent.structuredContent).toMatchObject({ approval_channel: 'elicitation_form', status: 'pending' });
    expect((await requestsFor('/finance/modern-sent')).map((request) => request.state)).toEqual(['pending']);
    await formClient.close();
  });
});
