// The example app speaks both MCP eras through the app kit (issue 55): the MCP SDK v2 client, as it is (its default
// OAuth handling, nothing widened by hand; version negotiation switched to `auto`, the v2 client's documented way to
// talk 2026-07-28), negotiates 2026-07-28 with `server/discover`, sees the risk model there, and lists and calls the
// tools its person may use; a request naming a revision nobody serves gets UnsupportedProtocolVersion (-32022 in
// SDK 2.4.0) with the supported list; the SDK 1.32 client (2025-11-25) still works against the same app; the kit refuses a foreign Host and Origin before
// anything else; and the modern path keeps no session: the same request, with no session header, is answered alike
// by the running app and by a second kit of the same configuration that has never seen the client.
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client, ProtocolErrorCode, StreamableHTTPClientTransport, UnauthorizedError, type StoredOAuthClientInformation, type StoredOAuthTokens } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppKit, RISK_MODEL_VERSION } from '../../app-kit';
import { RISK_MODEL_CAPABILITY } from '../../app-kit/tools';
import { startExampleApp, type ExampleApp } from '../../examples/notes/app';
import { Notebook, notebookTools } from '../../examples/notes/tools';
import { createOrganization } from '../../lib/organizations/organizations';
import { addTeamMember, createTeam, grantTeamScope } from '../../lib/organizations/teams';
import { createApp } from '../../lib/clients/apps';
import { addPermission } from '../../lib/clients/permission-catalog';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { InMemoryOAuthClient } from '../support/in-memory-oauth-client';
import { completeAuthorization, createMember, startProviderHarness, TEST_PASSWORD, type Harness } from '../support/provider-harness';
import { POST as appConfirmationsRoute } from '../../app/api/apps/confirmations/route';
import { CONFIRMATIONS_PATH } from '../../app-kit/surface';
import { relyingPartyOf } from '../../lib/accounts/factors/passkeys';
import type { User } from '../../lib/accounts/users';
import { issueSurfaceSecret } from '../../lib/clients/surface';
import type { Env } from '../../lib/env';
import { answerConfirmation } from '../../lib/confirmations/answers';
import { installRuntime, type PorticoRuntime } from '../../lib/runtime';

const REDIRECT = 'http://127.0.0.1:45721/callback';
const MODERN = '2026-07-28';
const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const CLIENT_INFO_KEY = 'io.modelcontextprotocol/clientInfo';
const CLIENT_CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A 2026-07-28 request as a client sends it: the envelope in `_meta`, the version in the header too. */
function modernBody(id: number, method: string, params: Record<string, unknown> = {}, version = MODERN): { jsonrpc: '2.0'; id: number; method: string; params: Record<string, unknown> } {
  return {
    jsonrpc: '2.0',
    id,
    method,
    params: { ...params, _meta: { [PROTOCOL_VERSION_KEY]: version, [CLIENT_INFO_KEY]: { name: 'raw', version: '1.0.0' }, [CLIENT_CAPABILITIES_KEY]: {} } },
  };
}
function modernHeaders(accessToken: string, body: { method: string; params: Record<string, unknown> }, version = MODERN): Record<string, string> {
  return {
    Authorization: `Bearer ${accessToken}`,
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    'MCP-Protocol-Version': version,
    // The standard headers a 2026-07-28 request repeats from its body.
    'Mcp-Method': body.method,
    ...(typeof body.params.name === 'string' ? { 'Mcp-Name': body.params.name } : {}),
  };
}

/** A POST with a Host (or Origin) header of our choosing: fetch will not send another Host. */
function postWithHeaders(url: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const request = httpRequest({ host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
    });
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}

describe('the example app in both MCP eras', () => {
  let database: TestDatabase;
  let harness: Harness;
  let example: ExampleApp;
  let origin: string;
  let appIdentity: string;
  let orgId: string;
  let email: string;
  let accessToken: string;

  beforeAll(async () => {
    database = await openTestDatabase();
    harness = await startProviderHarness(database);
    origin = `http://127.0.0.1:${await freePort()}`;
    const org = await createOrganization(database.db, { slug: `modern-${randomBytes(3).toString('hex')}`, name: 'Modern' });
    const app = await createApp(database.db, { orgId: org.id, slug: 'notes', name: 'Notes', publishOrigin: origin, redirectUris: [`${origin}/callback`] });
    appIdentity = app.app.identity;
    orgId = org.id;
    for (const [scope, description] of [
      ['notes:read', 'Read notes'],
      ['notes:delete', 'Delete notes'],
    ] as const) {
      await addPermission(database.db, app.app.id, { scope, description });
    }
    email = `modern-${randomBytes(3).toString('hex')}@example.test`;
    const person = await createMember(database, org.id, email);
    // The person reads and deletes notes (through a team).
    const team = await createTeam(database.db, { orgId: org.id, name: 'Editors' });
    await addTeamMember(database.db, team.id, person.id);
    await grantTeamScope(database.db, { teamId: team.id, appId: app.app.id, scope: 'notes:read' });
    await grantTeamScope(database.db, { teamId: team.id, appId: app.app.id, scope: 'notes:delete' });
    example = await startExampleApp({ origin, issuer: harness.issuer, appIdentity });
  });
  afterAll(async () => {
    await example?.close();
    await harness?.close();
    await database?.close();
  });

  it('the SDK v2 client negotiates 2026-07-28 with server/discover, sees the risk model there, and lists and calls the tools its person may use', async () => {
    const state = new InMemoryOAuthClient<StoredOAuthClientInformation, StoredOAuthTokens>(REDIRECT, 'Stock SDK v2 client');
    const newClient = () => new Client({ name: 'stock-v2', version: '2.4.0' }, { versionNegotiation: { mode: 'auto' } });
    const first = new StreamableHTTPClientTransport(new URL(example.resource), { authProvider: state });
    await expect(newClient().connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    const answered = await completeAuthorization(harness, database, state.pending!, { email });
    await first.finishAuth(answered.callbackUrl!.searchParams);
    expect(state.saved?.scope?.split(' ').sort()).toEqual(['mcp', 'notes:delete', 'notes:read']);
    accessToken = state.saved!.access_token;

    const client = newClient();
    await client.connect(new StreamableHTTPClientTransport(new URL(example.resource), { authProvider: state }));
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    expect(client.getServerVersion()).toMatchObject({ name: 'notes-example' });
    expect(client.getServerCapabilities()?.experimental?.[RISK_MODEL_CAPABILITY]).toMatchObject({ version: RISK_MODEL_VERSION, confirmation_mode: 'in_band' });
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['notes.list', 'notes.delete']));
    expect((await client.callTool({ name: 'notes.list', arguments: {} })).isError).toBeFalsy();
    await client.close();

    // The discover answer itself, as the wire carries it.
    const discover = modernBody(1, 'server/discover');
    const discovered = await fetch(example.resource, { method: 'POST', headers: modernHeaders(accessToken, discover), body: JSON.stringify(discover) });
    expect(discovered.status).toBe(200);
    expect(discovered.headers.get('mcp-session-id')).toBeNull();
    const body = (await discovered.json()) as { result: { supportedVersions?: string[]; capabilities: { experimental?: Record<string, { version?: number }> } } };
    expect(body.result.capabilities.experimental?.[RISK_MODEL_CAPABILITY]?.version).toBe(RISK_MODEL_VERSION);
    expect(JSON.stringify(body.result)).toContain(MODERN);
  });

  it('answers a request naming a revision it does not serve with UnsupportedProtocolVersion and the revisions it does', async () => {
    const list = modernBody(2, 'tools/list', {}, '2099-01-01');
    const answer = await fetch(example.resource, { method: 'POST', headers: modernHeaders(accessToken, list, '2099-01-01'), body: JSON.stringify(list) });
    const body = (await answer.json()) as { id: unknown; error?: { code: number; data?: { supported?: string[] } } };
    // The SDK 2.4.0 server answers UnsupportedProtocolVersion as -32022 (its ProtocolErrorCode), on HTTP 400.
    expect(answer.status).toBe(400);
    expect(body.error?.code).toBe(ProtocolErrorCode.UnsupportedProtocolVersion);
    expect(body.error?.code).toBe(-32022);
    expect(body).toMatchObject({ id: 2, error: { data: { supported: [MODERN], requested: '2099-01-01' } } });
  });

  it('holds no listen stream open: subscriptions/listen is refused at once as unknown', async () => {
    const listen = modernBody(3, 'subscriptions/listen', { notifications: { toolsListChanged: true } });
    const answer = await fetch(example.resource, { method: 'POST', headers: modernHeaders(accessToken, listen), body: JSON.stringify(listen) });
    expect(await answer.json()).toMatchObject({ id: 3, error: { code: -32601 } });
  });

  it('a 2026-07-28 tools/call of a tool the token lacks a scope for gets 403 insufficient_scope, as in 2025-11-25', async () => {
    // A token holding only what a fresh person holds: mcp. (The v2 client's own token holds both scopes.)
    const other = await createMember(database, orgId, `plain-${randomBytes(3).toString('hex')}@example.test`);
    const state = new InMemoryOAuthClient<StoredOAuthClientInformation, StoredOAuthTokens>(REDIRECT, 'Stock SDK v2 client');
    const transport = new StreamableHTTPClientTransport(new URL(example.resource), { authProvider: state });
    await expect(new Client({ name: 'plain', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } }).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    await transport.finishAuth((await completeAuthorization(harness, database, state.pending!, { email: other.email })).callbackUrl!.searchParams);
    expect(state.saved?.scope).toBe('mcp');
    const call = modernBody(3, 'tools/call', { name: 'notes.delete', arguments: { id: 1 } });
    const answer = await fetch(example.resource, { method: 'POST', headers: modernHeaders(state.saved!.access_token, call), body: JSON.stringify(call) });
    expect(answer.status).toBe(403);
    expect(answer.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    expect(answer.headers.get('www-authenticate')).toMatch(/scope="[^"]*notes:delete[^"]*"/);
  });

  it('the SDK 1.32 client (2025-11-25) still works against the same app', async () => {
    const client = new ClientV1({ name: 'stock-v1', version: '1.32.0' });
    await client.connect(new TransportV1(new URL(example.resource), { requestInit: { headers: { Authorization: `Bearer ${accessToken}` } } }));
    expect(client.getServerCapabilities()?.experimental?.[RISK_MODEL_CAPABILITY]).toMatchObject({ version: RISK_MODEL_VERSION });
    expect((await client.callTool({ name: 'notes.list', arguments: {} })).isError).toBeFalsy();
    await client.close();
  });

  it('refuses a foreign Host or Origin before the token is even looked at, in either era', async () => {
    const port = new URL(origin).port;
    const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${accessToken}` };
    const legacy = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} as Record<string, unknown> };
    for (const body of [legacy, modernBody(1, 'tools/list')]) {
      const extra: Record<string, string> = '_meta' in body.params ? { 'MCP-Protocol-Version': MODERN, 'Mcp-Method': body.method } : {};
      const foreignHost = await postWithHeaders(example.resource, { ...headers, ...extra, Host: `rebound.example:${port}` }, body);
      expect(foreignHost.status).toBe(403);
      expect(JSON.parse(foreignHost.body)).toMatchObject({ error: { code: -32000, message: expect.stringContaining('Invalid Host') } });
      // The right hostname on another port is another host.
      expect((await postWithHeaders(example.resource, { ...headers, ...extra, Host: '127.0.0.1:1' }, body)).status).toBe(403);
      const foreignOrigin = await postWithHeaders(example.resource, { ...headers, ...extra, Origin: 'http://rebound.example' }, body);
      expect(foreignOrigin.status).toBe(403);
      expect(JSON.parse(foreignOrigin.body)).toMatchObject({ error: { code: -32000, message: expect.stringContaining('Invalid Origin') } });
      // Its own origin passes.
      expect((await postWithHeaders(example.resource, { ...headers, ...extra, Origin: origin }, body)).status).toBe(200);
    }
    // Without a token, still refused for the Host (not a 401 that would start an authorization).
    expect((await postWithHeaders(example.resource, { 'Content-Type': 'application/json', Host: `rebound.example:${port}` }, legacy)).status).toBe(403);
  });

  it('keeps no session on the modern path: a second kit of the same configuration answers the same sessionless tools/call with the same token', async () => {
    // The running app, over HTTP: no session header sent, none given.
    const call = modernBody(4, 'tools/call', { name: 'whoami', arguments: {} });
    const fromApp = await fetch(example.resource, { method: 'POST', headers: modernHeaders(accessToken, call), body: JSON.stringify(call) });
    expect(fromApp.status).toBe(200);
    expect(fromApp.headers.get('mcp-session-id')).toBeNull();
    const appAnswer = (await fromApp.json()) as { result: { content: { text: string }[] } };

    // A second instance of the same app (same origin, identity and tools; a fresh process's worth of state: its own
    // kit and notebook) that has never seen this client: the same request with the same token gets the same answer.
    const second = createAppKit({ issuer: harness.issuer, appIdentity, origin, resourceName: 'Notes', server: { name: 'notes-example', version: '1.0.0' }, tools: notebookTools(new Notebook()) });
    const accepted: string[] = [];
    const fromSecond = await second.handleMcp(
      new Request(example.resource, { method: 'POST', headers: { ...modernHeaders(accessToken, call), Host: new URL(origin).host }, body: JSON.stringify(call) }),
      (token) => accepted.push(token.subject),
    );
    expect(fromSecond.status).toBe(200);
    expect(fromSecond.headers.get('mcp-session-id')).toBeNull();
    const secondAnswer = (await fromSecond.json()) as { result: { content: { text: string }[] } };
    expect(accepted).toHaveLength(1);
    expect(secondAnswer.result.content[0]!.text).toBe(appAnswer.result.content[0]!.text);
    expect(JSON.parse(secondAnswer.result.content[0]!.text)).toMatchObject({ sub: accepted[0] });
  });
});

// A human confirmation asked of a 2026-07-28 client as a URL input request (multi-round-trip): the example app with
// `confirmations: 'portico'`, its challenges kept by Portico's own route (app/api/apps/confirmations, served beside
// the provider with the runtime it needs), the v2 client declaring `elicitation.url` with a handler that, like a
// person following the link, confirms on Portico's page (Portico's own answerConfirmation, with step-up) and accepts.
// The client's automatic retry carries the signed requestState back, and the tool runs exactly once.
describe('a human confirmation as a 2026-07-28 URL input request', () => {
  let database: TestDatabase;
  let harness: Harness;
  let example: ExampleApp;
  let person: User;
  const atRestKey = randomBytes(32);

  beforeAll(async () => {
    database = await openTestDatabase();
    harness = await startProviderHarness(database, { routes: { [CONFIRMATIONS_PATH]: appConfirmationsRoute } });
    // What the route reads of Portico's runtime: the database, the issuer, the at-rest key (the surface secret's).
    // (Only those: a route reaching for anything else would find it missing and fail the test.)
    const partial: Pick<PorticoRuntime, 'env' | 'raw' | 'atRestKey'> = { env: { PORTICO_ISSUER: harness.issuer } as Env, raw: database.raw, atRestKey };
    installRuntime(partial as PorticoRuntime);
    const origin = `http://127.0.0.1:${await freePort()}`;
    const org = await createOrganization(database.db, { slug: `confirm-${randomBytes(3).toString('hex')}`, name: 'Confirm' });
    const app = await createApp(database.db, { orgId: org.id, slug: 'notes', name: 'Notes', publishOrigin: origin, redirectUris: [`${origin}/callback`] });
    await addPermission(database.db, app.app.id, { scope: 'notes:delete', description: 'Delete notes' });
    person = await createMember(database, org.id, `confirm-${randomBytes(3).toString('hex')}@example.test`);
    const team = await createTeam(database.db, { orgId: org.id, name: 'Deleters' });
    await addTeamMember(database.db, team.id, person.id);
    await grantTeamScope(database.db, { teamId: team.id, appId: app.app.id, scope: 'notes:delete' });
    const surfaceSecret = await issueSurfaceSecret(database.db, app.app.id, atRestKey);
    example = await startExampleApp({ origin, issuer: harness.issuer, appIdentity: app.app.identity, clientId: app.clientId, surfaceSecret, confirmations: 'portico', declareOnStart: false });
  });
  afterAll(async () => {
    await example?.close();
    await harness?.close();
    await database?.close();
  });

  it('the client gets the URL input request, the person confirms in Portico, and the retry runs the tool once', async () => {
    const note = example.notebook.add('Old', 'to delete', person.id);
    const state = new InMemoryOAuthClient<StoredOAuthClientInformation, StoredOAuthTokens>(REDIRECT, 'Stock SDK v2 client');
    const newClient = () => new Client({ name: 'stock-v2', version: '2.4.0' }, { versionNegotiation: { mode: 'auto' }, capabilities: { elicitation: { url: {} } } });
    const first = new StreamableHTTPClientTransport(new URL(example.resource), { authProvider: state });
    await expect(newClient().connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    await first.finishAuth((await completeAuthorization(harness, database, state.pending!, { email: person.email })).callbackUrl!.searchParams);

    const client = newClient();
    const asked: { mode?: string; url?: string; message?: string }[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      const params = request.params as { mode?: string; url?: string; message?: string };
      asked.push(params);
      // The person opens the page and confirms there, with their password (step-up).
      const id = params.url!.split('/console/confirm/')[1]!;
      await answerConfirmation(database.db, { atRestKey, rp: relyingPartyOf('http://localhost') }, { id, user: person, decision: 'confirm', proof: { password: TEST_PASSWORD }, ip: '192.0.2.60' });
      return { action: 'accept' };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(example.resource), { authProvider: state }));
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    expect(client.getServerCapabilities()?.experimental?.[RISK_MODEL_CAPABILITY]).toMatchObject({ confirmation_mode: 'human' });

    const result = await client.callTool({ name: 'notes.delete', arguments: { id: note.id } });
    expect(result.isError).toBeFalsy();
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ mode: 'url', message: expect.stringContaining('notes.delete') });
    expect(asked[0]!.url).toMatch(new RegExp(`^${harness.issuer}/console/confirm/`));
    expect(example.notebook.notes.has(note.id)).toBe(false);
    const runs = example.events.filter((event) => event.tool === 'notes.delete');
    expect(runs.map((event) => event.outcome)).toEqual(['challenge_issued', 'succeeded']);
    await client.close();
  });
});
