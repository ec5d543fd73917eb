// The app kit against tokens Portico really issues: the audience (the app's fixed identity) is the gate, `azp` is
// not; the metadata and challenges are RFC 9728/6750's; and the kit speaks the contract this Portico expects.
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_KIT_CONTRACT_VERSION, createAppKit } from '../../app-kit';
import { EXPECTED_APP_KIT_CONTRACT_VERSION, isSupportedAppKitContract, SUPPORTED_APP_KIT_CONTRACT_VERSIONS } from '../../lib/clients/app-environment';
import { registerClient, validateRegistration } from '../../lib/clients/registration';
import { addPermission } from '../../lib/clients/permission-catalog';
import { createAgent, createConnection, grantAgentScope } from '../../lib/organizations/agents';
import { agentTokenRequestBody } from '../../lib/oidc/agent-token-exchange';
import { startExampleApp } from '../../examples/notes/app';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { authorizeMcpClient, createMember, createOrgWithApp, startProviderHarness, tokenRequest, type AppFixture, type Harness } from '../support/provider-harness';

const REDIRECT = 'http://127.0.0.1:45679/callback';

describe('the app kit', () => {
  let database: TestDatabase;
  let harness: Harness;
  let appA: AppFixture;
  let appB: AppFixture;

  beforeAll(async () => {
    database = await openTestDatabase();
    harness = await startProviderHarness(database);
    appA = await createOrgWithApp(database, 'Kit A');
    appB = await createOrgWithApp(database, 'Kit B');
  });
  afterAll(async () => {
    await harness?.close();
    await database?.close();
  });

  it('carries the contract version this Portico expects, and Portico still accepts the previous kit', () => {
    expect(APP_KIT_CONTRACT_VERSION).toBe(EXPECTED_APP_KIT_CONTRACT_VERSION);
    expect(SUPPORTED_APP_KIT_CONTRACT_VERSIONS).toEqual([8, 9]);
    expect(isSupportedAppKitContract(APP_KIT_CONTRACT_VERSION)).toBe(true);
    expect(isSupportedAppKitContract(8)).toBe(true);
    expect(isSupportedAppKitContract(7)).toBe(false);
    expect(isSupportedAppKitContract(10)).toBe(false);
  });

  it('stands on its own: neither the kit nor the example app imports Portico internals', () => {
    const sources = [...readdirSync('app-kit').map((name) => path.join('app-kit', name)), ...readdirSync('examples/notes').map((name) => path.join('examples/notes', name))].filter((file) => file.endsWith('.ts'));
    expect(sources.length).toBeGreaterThan(6);
    for (const file of sources) {
      const imports = [...readFileSync(file, 'utf8').matchAll(/from '([^']+)'/g)].map((match) => match[1]!);
      const internal = imports.filter((specifier) => specifier.startsWith('@/') || /(^|\/)lib\//.test(specifier) || specifier.startsWith('../../lib'));
      expect(internal, file).toEqual([]);
      // The example app reaches Portico only through the kit.
      if (file.startsWith('examples')) expect(imports.filter((specifier) => specifier.startsWith('..') && !specifier.startsWith('../../app-kit')), file).toEqual([]);
    }
  });

  it("accepts a token for its own identity whoever the client (azp), and refuses another app's", async () => {
    const person = await createMember(database, appA.orgId, `kit-${randomBytes(3).toString('hex')}@kit.test`);
    const valid = validateRegistration({ client_name: 'Kit client', redirect_uris: [REDIRECT] });
    if ('error' in valid) throw new Error(valid.error_description);
    const clientId = String((await registerClient(database.db, valid, '192.0.2.3')).client_id);
    const authorization = await authorizeMcpClient(harness, database, { clientId, redirectUri: REDIRECT, resource: appA.resource, email: person.email });
    const tokens = await tokenRequest(harness, clientId, {
      grant_type: 'authorization_code',
      code: authorization.callbackUrl!.searchParams.get('code')!,
      redirect_uri: REDIRECT,
      code_verifier: authorization.codeVerifier,
    });
    const bearer = { Authorization: `Bearer ${String(tokens.body.access_token)}` };

    const kitA = createAppKit({ issuer: harness.issuer, appIdentity: appA.app.identity, origin: new URL(appA.resource).origin });
    const accepted = await kitA.authorize(new Request(kitA.resource, { method: 'POST', headers: bearer }));
    expect(accepted.ok).toBe(true);
    if (accepted.ok) expect(accepted.token).toMatchObject({ subject: person.id, authorizedParty: clientId, clientId });

    const kitB = createAppKit({ issuer: harness.issuer, appIdentity: appB.app.identity, origin: new URL(appB.resource).origin });
    const refused = await kitB.authorize(new Request(kitB.resource, { method: 'POST', headers: bearer }));
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      expect(refused.response.status).toBe(401);
      expect(refused.response.headers.get('www-authenticate')).toContain('error="invalid_token"');
    }
  });

  it('serves RFC 9728 metadata at both paths and challenges with it', async () => {
    const kit = createAppKit({ issuer: harness.issuer, appIdentity: appA.app.identity, origin: 'https://kit.example' });
    expect(kit.metadataPaths).toEqual(['/.well-known/oauth-protected-resource/api/mcp', '/.well-known/oauth-protected-resource']);
    expect(await kit.protectedResourceMetadata().json()).toEqual({
      resource: 'https://kit.example/api/mcp',
      authorization_servers: [harness.issuer],
      scopes_supported: ['mcp'],
      bearer_methods_supported: ['header'],
    });
    const anonymous = await kit.authorize(new Request(kit.resource, { method: 'POST' }));
    expect(anonymous.ok).toBe(false);
    if (!anonymous.ok) {
      expect(anonymous.response.status).toBe(401);
      expect(anonymous.response.headers.get('www-authenticate')).toBe(
        'Bearer resource_metadata="https://kit.example/.well-known/oauth-protected-resource/api/mcp", scope="mcp"',
      );
    }
  });

  it('the example app lists and runs tools by the token’s scopes: an own-mode agent with notes:read sees notes.list only; a call beyond gets 403', async () => {
    for (const [scope, description] of [
      ['notes:read', 'Read notes'],
      ['notes:delete', 'Delete notes'],
    ] as const) {
      await addPermission(database.db, appA.app.id, { scope, description });
    }
    const owner = await createMember(database, appA.orgId, `kit-owner-${randomBytes(3).toString('hex')}@kit.test`, 'admin');
    const agent = await createAgent(database.db, { orgId: appA.orgId, name: 'Reader', ownerUserId: owner.id });
    await grantAgentScope(database.db, { agentId: agent.id, orgId: appA.orgId, appId: appA.app.id, scope: 'notes:read' });
    const connection = await createConnection(database.db, { agentId: agent.id, orgId: appA.orgId, appId: appA.app.id, createdByUserId: owner.id, connection: { mode: 'own' } });
    const issued = await fetch(`${harness.issuer}/oidc/token`, { method: 'POST', body: await agentTokenRequestBody(harness.keys.signingKeys, harness.issuer, connection.id) });
    const accessToken = String(((await issued.json()) as { access_token: string }).access_token);

    // A fixed port below Linux's ephemeral range (32768–60999), which an outgoing connection may hold at any moment.
    const app = await startExampleApp({ origin: 'http://127.0.0.1:4792', issuer: harness.issuer, appIdentity: appA.app.identity });
    try {
      // The metadata lists every scope a tool needs (RFC 9728 scopes_supported).
      const metadata = (await (await fetch(`${app.origin}/.well-known/oauth-protected-resource/api/mcp`)).json()) as { scopes_supported: string[] };
      expect(metadata.scopes_supported).toEqual(['mcp', 'notes:read', 'notes:delete']);

      const client = new Client({ name: 'kit-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(app.resource), { requestInit: { headers: { Authorization: `Bearer ${accessToken}` } } }));
      // Not even the mcp-only tools: the agent holds notes:read and nothing else.
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['notes.list']);
      expect((await client.callTool({ name: 'notes.list', arguments: {} })).isError).toBeFalsy();
      await client.close();

      // An own-mode agent with no grant at all: an empty list, not "Method not found".
      const idle = await createAgent(database.db, { orgId: appA.orgId, name: 'Idle', ownerUserId: owner.id });
      const idleConnection = await createConnection(database.db, { agentId: idle.id, orgId: appA.orgId, appId: appA.app.id, createdByUserId: owner.id, connection: { mode: 'own' } });
      const idleToken = String(((await (await fetch(`${harness.issuer}/oidc/token`, { method: 'POST', body: await agentTokenRequestBody(harness.keys.signingKeys, harness.issuer, idleConnection.id) })).json()) as { access_token: string }).access_token);
      const idleClient = new Client({ name: 'kit-test-idle', version: '1.0.0' });
      await idleClient.connect(new StreamableHTTPClientTransport(new URL(app.resource), { requestInit: { headers: { Authorization: `Bearer ${idleToken}` } } }));
      expect((await idleClient.listTools()).tools).toEqual([]);
      await idleClient.close();

      // Without a token: the challenge names every scope the tools need, which a client asks for as it is (MCP
      // authorization, scope selection); the token then carries those the subject holds.
      const anonymous = await fetch(app.resource, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: '{}' });
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${app.origin}/.well-known/oauth-protected-resource/api/mcp", scope="mcp notes:read notes:delete"`);

      const call = (name: string) =>
        fetch(app.resource, {
          method: 'POST',
          headers: { Authorization: `Bearer ${accessToken}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name, arguments: { id: 1 } } }),
        });
      const refused = await call('notes.delete');
      expect(refused.status).toBe(403);
      // RFC 6750 §3.1 as the 2026-07-28 revision reads it: only what this tool needs (the client keeps what it had).
      expect(refused.headers.get('www-authenticate')).toBe(
        `Bearer resource_metadata="${app.origin}/.well-known/oauth-protected-resource/api/mcp", scope="notes:delete", error="insufficient_scope", error_description="the tool notes.delete needs the scope notes:delete"`,
      );
      expect(await refused.json()).toEqual({ error: 'insufficient_scope', error_description: 'the tool notes.delete needs the scope notes:delete' });
      // An mcp-only tool is refused the same way; an unknown tool is the MCP server's own error.
      expect((await call('whoami')).status).toBe(403);
      expect((await call('no.such.tool')).status).toBe(200);
    } finally {
      await app.close();
    }
  });
});
