// One rule, three doors (issue 60): the same subject and operation get the same answer from Portico's AuthZEN
// decision point, from the app kit's permission check (403 insufficient_scope for a tools/call) and from the MCP
// confirmation gate (the call runs, or a person must confirm it). The app is the example notes app, built only on
// the kit, with tokens Portico's provider really issues; the subjects are own-mode agents holding a different set of
// the app's permissions each; the operations are every tool the app declares, one of each risk level.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_KIT_CONTRACT_VERSION } from '../../app-kit';
import { surfaceOfTools } from '../../app-kit/tools';
import { startExampleApp, type ExampleApp } from '../../examples/notes/app';
import { Notebook, notebookTools } from '../../examples/notes/tools';
import { addPermission } from '../../lib/clients/permission-catalog';
import { issueSurfaceSecret, recordDeclaration } from '../../lib/clients/surface';
import type { Env } from '../../lib/env';
import { createAgent, createConnection, grantAgentScope } from '../../lib/organizations/agents';
import { agentTokenRequestBody } from '../../lib/oidc/agent-token-exchange';
import { installRuntime, type PorticoRuntime } from '../../lib/runtime';
import { serveAuthzen } from '../support/authzen-server';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { createMember, createOrgWithApp, startProviderHarness, type AppFixture, type Harness } from '../support/provider-harness';

const REGISTRY = Symbol.for('portico.runtime');
type Outcome = 'allowed' | 'permission_missing' | 'approval_required';

/** Arguments each tool accepts (the gate binds a confirmation to them; the tool's own answer does not matter here). */
const ARGUMENTS: Record<string, Record<string, unknown>> = { whoami: {}, 'notes.list': {}, 'notes.add': { title: 'doors' }, 'notes.share': { id: 1 }, 'notes.delete': { id: 1 } };

describe('one decision rule behind three doors', () => {
  let database: TestDatabase;
  let harness: Harness;
  let fixture: AppFixture;
  let pdp: Server;
  let pdpBase = '';
  let app: ExampleApp;
  let previous: unknown;
  const tools = notebookTools(new Notebook());

  beforeAll(async () => {
    database = await openTestDatabase();
    harness = await startProviderHarness(database);
    fixture = await createOrgWithApp(database, 'Doors');
    for (const scope of ['notes:read', 'notes:delete']) await addPermission(database.db, fixture.app.id, { scope, description: scope });
    // What the app declares to Portico: the same tools, levels and scopes the kit serves.
    await issueSurfaceSecret(database.db, fixture.app.id, new Uint8Array(32));
    await recordDeclaration(database.db, fixture.app.id, surfaceOfTools(tools, Object.fromEntries(tools.map((tool) => [tool.name, tool.riskLevel]))), APP_KIT_CONTRACT_VERSION);
    pdp = await serveAuthzen(() => pdpBase);
    pdpBase = `http://127.0.0.1:${(pdp.address() as AddressInfo).port}`;
    previous = (globalThis as Record<symbol, unknown>)[REGISTRY];
    installRuntime({ env: { PORTICO_ISSUER: pdpBase } as unknown as Env, raw: database.raw, publicJwks: [], atRestKey: new Uint8Array(32) } as unknown as PorticoRuntime);
    // A fixed port below Linux's ephemeral range (32768–60999), which an outgoing connection may hold at any moment.
    app = await startExampleApp({ origin: 'http://127.0.0.1:4794', issuer: harness.issuer, appIdentity: fixture.app.identity });
  });

  afterAll(async () => {
    (globalThis as Record<symbol, unknown>)[REGISTRY] = previous;
    await app?.close();
    await new Promise((resolve) => pdp?.close(resolve));
    await harness?.close();
    await database?.close();
  });

  /** The decision point: true, or a denial whose context says an approval is what is missing. */
  async function throughAuthzen(agentId: string, tool: string): Promise<Outcome> {
    const basic = `Basic ${Buffer.from(`${encodeURIComponent(fixture.clientId)}:${encodeURIComponent(fixture.clientSecret)}`).toString('base64')}`;
    const response = await fetch(`${pdpBase}/access/v1/evaluation`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: basic },
      body: JSON.stringify({ subject: { type: 'agent', id: agentId }, resource: { type: 'tool', id: tool }, action: { name: 'call' } }),
    });
    const answer = (await response.json()) as { decision: boolean; context?: { reason?: string } };
    if (answer.decision) return 'allowed';
    return answer.context?.reason === 'approval_required' ? 'approval_required' : 'permission_missing';
  }

  /** The kit's permission door: a tools/call the token lacks scopes for is a 403 before any MCP handling. */
  async function throughKit(token: string, tool: string): Promise<'permission_missing' | 'passes'> {
    const response = await fetch(app.resource, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: ARGUMENTS[tool] } }),
    });
    await response.body?.cancel();
    return response.status === 403 ? 'permission_missing' : 'passes';
  }

  /** The MCP gate, through the SDK's own client: the tool runs, or the answer is a confirmation challenge. */
  async function throughGate(client: Client, tool: string): Promise<Exclude<Outcome, 'permission_missing'>> {
    const result = await client.callTool({ name: tool, arguments: ARGUMENTS[tool] });
    const confirmation = (result._meta as Record<string, { status?: string }> | undefined)?.['io.portico/confirmation'];
    return confirmation?.status === 'confirmation_required' ? 'approval_required' : 'allowed';
  }

  it('gives the same answer at each door, for every tool and every set of permissions', async () => {
    const owner = await createMember(database, fixture.orgId, `doors-owner-${Date.now()}@doors.test`, 'admin');
    const holdings: string[][] = [[], ['notes:read'], ['notes:read', 'notes:delete'], ['mcp', 'notes:read', 'notes:delete']];
    const seen = new Set<Outcome>();
    for (const [index, held] of holdings.entries()) {
      const agent = await createAgent(database.db, { orgId: fixture.orgId, name: `Doors ${index}`, ownerUserId: owner.id });
      for (const scope of held) await grantAgentScope(database.db, { agentId: agent.id, orgId: fixture.orgId, appId: fixture.app.id, scope });
      const connection = await createConnection(database.db, { agentId: agent.id, orgId: fixture.orgId, appId: fixture.app.id, createdByUserId: owner.id, connection: { mode: 'own' } });
      const issued = await fetch(`${harness.issuer}/oidc/token`, { method: 'POST', body: await agentTokenRequestBody(harness.keys.signingKeys, harness.issuer, connection.id) });
      const token = String(((await issued.json()) as { access_token: string }).access_token);
      const client = new Client({ name: 'three-doors', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(app.resource), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
      try {
        for (const tool of tools.map((entry) => entry.name)) {
          const authzen = await throughAuthzen(agent.id, tool);
          const kit = await throughKit(token, tool);
          const atDoors: Outcome = kit === 'permission_missing' ? 'permission_missing' : await throughGate(client, tool);
          expect({ held, tool, outcome: atDoors }).toEqual({ held, tool, outcome: authzen });
          seen.add(authzen);
        }
      } finally {
        await client.close();
      }
    }
    // The table reaches every kind of answer: allowed, a permission missing, an approval required.
    expect([...seen].sort()).toEqual(['allowed', 'approval_required', 'permission_missing']);
  });
});
