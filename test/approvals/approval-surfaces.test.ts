// Adaptive approval surfaces over real MCP: the MCP SDK's client advertises what it can show (the MCP Apps
// extension, URL or form elicitation) and Portico answers through the matching channel. Real tokens, real
// PostgreSQL, two instances sharing one database for the elicitation's answer.
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type ClientCapabilities, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../../lib/accounts/users';
import { approvalRequests, mcpElicitations, mcpSessions } from '../../lib/db/schema';
import type { ApprovalSurfaceConfig } from '../../lib/mcp/context';
import { recordElicitationResponse } from '../../lib/mcp/elicitation';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { porticoApiToken, startMcpInstance, type McpInstance } from '../support/portico-mcp';
import { createMember, createOrgWithApp, startProviderHarness, type AppFixture, type Harness } from '../support/provider-harness';

const UI_EXTENSION = 'io.modelcontextprotocol/ui';
const MCP_APP_MIME = 'text/html;profile=mcp-app';
const VIEW_URI = 'ui://portico/authorizations-v1.html';
const FRAME_ANCESTOR = 'https://host.example';

type ToolResult = { content: { type: string; text: string }[]; structuredContent?: Record<string, unknown>; _meta?: Record<string, unknown> };

describe('adaptive approval surfaces', () => {
  let database: TestDatabase;
  let harness: Harness;
  let fixture: AppFixture;
  let person: User;
  let token: string;
  let org: string;
  const instances: McpInstance[] = [];

  async function instance(approvals: ApprovalSurfaceConfig, elicitationWaitMs = 10_000): Promise<McpInstance> {
    const started = await startMcpInstance(database, harness, { approvals, elicitationWaitMs });
    instances.push(started);
    return started;
  }
  const adaptive: ApprovalSurfaceConfig = { surface: 'adaptive', centralEnabled: true, frameAncestors: [FRAME_ANCESTOR] };

  async function connect(url: string, capabilities: ClientCapabilities, onElicit?: (request: ElicitRequest) => ElicitResult | Promise<ElicitResult>): Promise<Client> {
    const client = new Client({ name: 'surfaces-test', version: '1.0.0' }, { capabilities });
    if (onElicit) client.setRequestHandler(ElicitRequestSchema, (request) => onElicit(request));
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    return client;
  }
  const askSensitive = async (client: Client, resource = '/finance/2026') =>
    (await client.callTool({ name: 'permissions.request_sensitive_access', arguments: { org, app: fixture.app.slug, resource, profile: 'read', duration_seconds: 3600, reason: 'private reason: salary of jane@corp.test' } })) as ToolResult;
  const stateOf = async (requestId: string) => (await database.db.select().from(approvalRequests).where(eq(approvalRequests.id, requestId)))[0]!.state;

  beforeAll(async () => {
    database = await openTestDatabase();
    harness = await startProviderHarness(database);
    fixture = await createOrgWithApp(database, 'Surfaces');
    person = await createMember(database, fixture.orgId, `asker-${randomBytes(3).toString('hex')}@surfaces.test`);
    token = await porticoApiToken(harness, database, person.email);
    org = (await database.db.query.organizations.findFirst({ where: (row, { eq: equals }) => equals(row.id, fixture.orgId) }))!.slug;
  });
  afterAll(async () => {
    for (const started of instances) await started.close();
    await harness?.close();
    await database?.close();
  });

  it('points an MCP Apps client at the ui:// view, keeps the link in the text, and serves the view without secrets', async () => {
    const server = await instance(adaptive);
    const client = await connect(server.url, { extensions: { [UI_EXTENSION]: { mimeTypes: [MCP_APP_MIME] } } } as ClientCapabilities);

    const { tools } = await client.listTools();
    const requestTool = tools.find((tool) => tool.name === 'permissions.request_sensitive_access')!;
    expect(requestTool._meta).toMatchObject({ ui: { resourceUri: VIEW_URI }, 'ui/resourceUri': VIEW_URI });
    // The status tool is the view's to call through the host; it does not open a view of its own.
    expect(tools.find((tool) => tool.name === 'permissions.approval_status')!._meta?.ui).toBeUndefined();

    const result = await askSensitive(client);
    expect(result._meta).toMatchObject({ ui: { resourceUri: VIEW_URI } });
    const fields = result.structuredContent!;
    const requestId = String(fields.request_id);
    expect(fields).toMatchObject({
      approval_channel: 'mcp_app',
      status: 'pending',
      approval_view: VIEW_URI,
      operator_approval_url: `${harness.issuer}/central/requests/${requestId}`,
      embedded_central_url: `${harness.issuer}/embedded-central/requests/${requestId}`,
    });
    expect(result.content[0]!.text).toContain(`operator_approval_url=${harness.issuer}/central/requests/${requestId}`);

    const { resources } = await client.listResources();
    expect(resources.find((resource) => resource.uri === VIEW_URI)).toMatchObject({ mimeType: MCP_APP_MIME });
    const read = await client.readResource({ uri: VIEW_URI });
    const content = read.contents[0] as { uri: string; mimeType: string; text: string; _meta?: Record<string, unknown> };
    expect(content.mimeType).toBe(MCP_APP_MIME);
    expect(content._meta).toMatchObject({ ui: { csp: { frameDomains: [new URL(harness.issuer).origin], connectDomains: [] } } });
    expect(content.text).toMatch(/^<!doctype html>/);
    expect(content.text).toContain(`data-origin="${new URL(harness.issuer).origin}"`);
    // One static page for everyone: no token, no request, no person in it.
    for (const secret of [token, token.split('.')[2]!, requestId, person.email, 'salary']) expect(content.text).not.toContain(secret);
    expect(content.text).not.toMatch(/Bearer |client_secret|password=|confirm_[A-Za-z0-9]/);
    // There is no tool through which the view (or anyone) could approve.
    expect(tools.map((tool) => tool.name).filter((name) => /approve|decide/.test(name))).toEqual([]);
    await client.close();
  });

  it('does not offer the embedded central, nor ask the host to frame Portico, without listed frame ancestors', async () => {
    const server = await instance({ ...adaptive, frameAncestors: [] });
    const client = await connect(server.url, { extensions: { [UI_EXTENSION]: { mimeTypes: [MCP_APP_MIME] } } } as ClientCapabilities);
    const fields = (await askSensitive(client)).structuredContent!;
    expect(fields.approval_channel).toBe('mcp_app');
    expect(fields.embedded_central_url).toBeUndefined();
    const content = (await client.readResource({ uri: VIEW_URI })).contents[0] as { _meta?: { ui?: { csp?: Record<string, unknown> } } };
    expect(content._meta?.ui?.csp?.frameDomains).toBeUndefined();
    await client.close();
  });

  it('in link mode, gives the same MCP Apps client the link only: no view, no resource', async () => {
    const server = await instance({ ...adaptive, surface: 'link' });
    const client = await connect(server.url, { extensions: { [UI_EXTENSION]: { mimeTypes: [MCP_APP_MIME] } }, elicitation: { url: {}, form: {} } } as ClientCapabilities);
    const { tools } = await client.listTools();
    expect(tools.find((tool) => tool.name === 'permissions.request_sensitive_access')!._meta?.ui).toBeUndefined();
    const result = await askSensitive(client);
    expect(result.structuredContent).toMatchObject({ approval_channel: 'central' });
    expect(result._meta?.ui).toBeUndefined();
    expect(result.structuredContent!.embedded_central_url).toBeUndefined();
    await expect(client.readResource({ uri: VIEW_URI })).rejects.toThrow();
    await client.close();
  });

  it('sends requests the central may not decide to the CLI, whatever the client can show', async () => {
    const server = await instance(adaptive);
    const client = await connect(server.url, { extensions: { [UI_EXTENSION]: { mimeTypes: [MCP_APP_MIME] } } } as ClientCapabilities);
    const root = (await client.callTool({ name: 'permissions.request_root_access', arguments: { org, app: fixture.app.slug, reason: 'reindex' } })) as ToolResult;
    expect(root.structuredContent).toMatchObject({ approval_channel: 'cli' });
    expect(root.structuredContent!.operator_approval_url).toBeUndefined();
    expect(root._meta?.ui).toBeUndefined();
    await client.close();
  });

  it('sends everything to the CLI when the central is turned off, even an MCP Apps client in adaptive mode', async () => {
    const server = await instance({ ...adaptive, centralEnabled: false });
    const client = await connect(server.url, { extensions: { [UI_EXTENSION]: { mimeTypes: [MCP_APP_MIME] } }, elicitation: { url: {} } } as ClientCapabilities);
    const result = await askSensitive(client, '/finance/no-central');
    expect(result.structuredContent).toMatchObject({ approval_channel: 'cli', status: 'pending' });
    expect(result.structuredContent!.operator_approval_url).toBeUndefined();
    expect(result._meta?.ui).toBeUndefined();
    await expect(client.readResource({ uri: VIEW_URI })).rejects.toThrow();
    await client.close();
  });

  it('uses URL-mode elicitation to the central page: no credential or personal data, and the answer approves nothing', async () => {
    const server = await instance(adaptive);
    const seen: ElicitRequest['params'][] = [];
    const client = await connect(server.url, { elicitation: { url: {}, form: {} } }, (request) => {
      seen.push(request.params);
      return { action: 'accept' };
    });
    const result = await askSensitive(client, '/finance/url');
    const requestId = String(result.structuredContent!.request_id);
    expect(result.structuredContent).toMatchObject({ approval_channel: 'elicitation_url', elicitation_mode: 'url', elicitation_outcome: 'accept', status: 'pending' });
    expect(seen).toHaveLength(1);
    const params = seen[0] as { mode: string; url: string; elicitationId: string; message: string };
    expect(params).toMatchObject({ mode: 'url', url: `${harness.issuer}/central/requests/${requestId}`, elicitationId: requestId });
    // Not pre-authenticated and nothing personal: the URL is the request's page, the message its id, type and resource.
    expect(new URL(params.url).search).toBe('');
    for (const leak of [token, person.email, 'salary', 'jane@corp.test']) expect(JSON.stringify(params)).not.toContain(leak);
    expect(params.message).toContain(requestId);
    expect(params.message).toContain('/finance/url');
    // The client accepted: the request is still only pending.
    expect(await stateOf(requestId)).toBe('pending');
    await client.close();
  });

  it('uses form-mode elicitation for intent only; withdrawing cancels, sending keeps the request pending', async () => {
    const server = await instance(adaptive);
    const schemas: unknown[] = [];
    let intent: 'send' | 'withdraw' | 'decline' = 'withdraw';
    const client = await connect(server.url, { elicitation: { form: {} } }, (request) => {
      schemas.push((request.params as { requestedSchema: unknown }).requestedSchema);
      return intent === 'decline' ? { action: 'decline' } : { action: 'accept', content: { intent } };
    });

    const withdrawn = await askSensitive(client, '/finance/withdrawn');
    expect(withdrawn.structuredContent).toMatchObject({ approval_channel: 'elicitation_form', elicitation_mode: 'form', elicitation_outcome: 'accept', status: 'cancelled' });
    expect(await stateOf(String(withdrawn.structuredContent!.request_id))).toBe('cancelled');

    intent = 'send';
    const sent = await askSensitive(client, '/finance/sent');
    expect(sent.structuredContent).toMatchObject({ approval_channel: 'elicitation_form', status: 'pending' });
    expect(await stateOf(String(sent.structuredContent!.request_id))).toBe('pending');

    intent = 'decline';
    const declined = await askSensitive(client, '/finance/declined');
    expect(declined.structuredContent).toMatchObject({ elicitation_outcome: 'decline', status: 'cancelled' });

    // The form asks one thing, the intent, from a closed list: never a password or any credential.
    for (const schema of schemas) {
      expect(Object.keys((schema as { properties: object }).properties)).toEqual(['intent']);
      expect(JSON.stringify(schema)).not.toMatch(/password|secret|token|format/i);
    }
    await client.close();
  });

  it('keeps the request pending when the client never answers, and the link stays in the text', async () => {
    const server = await instance(adaptive, 600);
    const client = await connect(server.url, { elicitation: { form: {} } }, () => new Promise<ElicitResult>(() => {}));
    const result = await askSensitive(client, '/finance/silent');
    expect(result.structuredContent).toMatchObject({ approval_channel: 'elicitation_form', elicitation_outcome: 'timeout', status: 'pending' });
    expect(result.content[0]!.text).toContain('operator_approval_url=');
    await client.close();
  });

  it('takes the answer through another instance, once, and only from the same session', async () => {
    // Two instances on one database: every POST from the client alternates between them, so the elicitation's
    // answer lands on the other instance than the waiting tool call.
    const first = await instance(adaptive);
    const second = await instance(adaptive);
    let turn = 0;
    const alternating: typeof fetch = (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      url.port = String([first.port, second.port][turn++ % 2]);
      return fetch(url, init);
    };
    const client = new Client({ name: 'surfaces-test', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { intent: 'withdraw' } }));
    await client.connect(new StreamableHTTPClientTransport(new URL(first.url), { fetch: alternating, requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    const result = await askSensitive(client, '/finance/elsewhere');
    expect(result.structuredContent).toMatchObject({ elicitation_outcome: 'accept', status: 'cancelled' });
    const [answered] = await database.db.select().from(mcpElicitations).where(eq(mcpElicitations.approvalRequestId, String(result.structuredContent!.request_id)));
    expect(answered).toMatchObject({ outcome: 'accept', intent: 'withdraw' });
    // A second answer, or one from another session, changes nothing.
    expect(await recordElicitationResponse(database.db, answered!.sessionId, { id: answered!.id, result: { action: 'decline' } })).toBe(false);
    const [otherSession] = await database.db.select({ id: mcpSessions.id }).from(mcpSessions).where(eq(mcpSessions.userId, person.id)).limit(1);
    const waiting = `eli_${randomBytes(24).toString('base64url')}`;
    await database.db.insert(mcpElicitations).values({ id: waiting, sessionId: answered!.sessionId, approvalRequestId: 'apr_x', mode: 'form', expiresAt: new Date(Date.now() + 60_000) });
    if (otherSession && otherSession.id !== answered!.sessionId) {
      expect(await recordElicitationResponse(database.db, otherSession.id, { id: waiting, result: { action: 'accept', content: { intent: 'withdraw' } } })).toBe(false);
    }
    // An answer from a browser page of another origin (DNS rebinding) is refused before anything is recorded.
    const session = await database.db.select({ id: mcpSessions.id }).from(mcpSessions).where(eq(mcpSessions.id, answered!.sessionId));
    const foreign = await fetch(first.url, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Mcp-Session-Id': session[0]!.id, Origin: 'https://evil.example' },
      body: JSON.stringify({ jsonrpc: '2.0', id: waiting, result: { action: 'accept', content: { intent: 'withdraw' } } }),
    });
    expect(foreign.status).toBe(403);
    expect((await database.db.select().from(mcpElicitations).where(eq(mcpElicitations.id, waiting)))[0]!.outcome).toBeNull();
    // A malformed answer is recorded as an error, and an intent outside the list is dropped.
    expect(await recordElicitationResponse(database.db, answered!.sessionId, { id: waiting, result: { action: 'accept', content: { intent: 'approve' } } })).toBe(true);
    const [stored] = await database.db.select().from(mcpElicitations).where(eq(mcpElicitations.id, waiting));
    expect(stored).toMatchObject({ outcome: 'accept', intent: null });
    await client.close();
  });
});
