// The app kit's second half against the real example app (examples/notes) and tokens Portico really issues: the
// MCP SDK client calls tools at each risk level through the confirmation gate; the signed introspection refuses
// bad signatures, old timestamps and replays; and surface verification produces each of its four outcomes for real.
import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RISK_MODEL_CAPABILITY } from '../../app-kit/tools';
import { parseSignatureHeader, RESPONSE_SIGNATURE_HEADER, SIGNATURE_HEADER, signRequest, signResponse, verifyResponseSignature } from '../../app-kit/surface';
import { EXPECTED_APP_KIT_CONTRACT_VERSION } from '../../lib/clients/app-environment';
import { createApp } from '../../lib/clients/apps';
import { registerClient, validateRegistration } from '../../lib/clients/registration';
import { issueSurfaceSecret, recordDeclaration, recordVerification, surfaceSecretOf, surfaceStateOf, surfaceVerificationFetch, verifyAppSurface } from '../../lib/clients/surface';

/** The app runs on loopback here: the outbound guard's development switch, as in tests. */
const loopbackAllowed = surfaceVerificationFetch({ allowLoopback: true });
import { createOrganization } from '../../lib/organizations/organizations';
import { startExampleApp, type ExampleApp, type ExampleAppConfig } from '../../examples/notes/app';
import { undeclaredExportTool } from '../../examples/notes/tools';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { addPermission } from '../../lib/clients/permission-catalog';
import { grantPersonPermissionCommand } from '../../lib/organizations/member-commands';
import { authorizeMcpClient, createMember, startProviderHarness, tokenRequest, type Harness } from '../support/provider-harness';

const REDIRECT = 'http://127.0.0.1:45681/callback';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const text = (result: unknown) => ((result as { content: { type: string; text: string }[] }).content[0]?.text ?? '');
const tokenIn = (challenge: string) => /"(confirm_[A-Za-z0-9_-]+)"/.exec(challenge)?.[1];

describe('the example app on the app kit', () => {
  let database: TestDatabase;
  let harness: Harness;
  let origin: string;
  let appId: string;
  let appIdentity: string;
  let secret: string;
  let accessToken: string;
  const atRestKey = randomBytes(32);
  let running: ExampleApp | undefined;

  const start = async (overrides: Partial<ExampleAppConfig> = {}) => {
    running = await startExampleApp({ origin, issuer: harness.issuer, appIdentity, surfaceSecret: secret, declareOnStart: false, ...overrides });
    return running;
  };

  beforeAll(async () => {
    database = await openTestDatabase();
    harness = await startProviderHarness(database);
    origin = `http://127.0.0.1:${await freePort()}`;
    const org = await createOrganization(database.db, { slug: `notes-${randomBytes(3).toString('hex')}`, name: 'Notes org' });
    const created = await createApp(database.db, { orgId: org.id, slug: 'notes', name: 'Notes', publishOrigin: origin, redirectUris: [`${origin}/callback`] });
    appId = created.app.id;
    appIdentity = created.app.identity;
    secret = await issueSurfaceSecret(database.db, appId, atRestKey);

    const person = await createMember(database, org.id, `notes-${randomBytes(3).toString('hex')}@notes.test`);
    // The example's tools that need more than the baseline: in the catalog, granted to the person.
    for (const [scope, description] of [
      ['notes:read', 'Read notes'],
      ['notes:delete', 'Delete notes'],
    ] as const) {
      await addPermission(database.db, appId, { scope, description });
      await grantPersonPermissionCommand({ tx: database.db, org: { id: org.id }, audit: async () => {} }, { userId: person.id, appId, scope });
    }
    const valid = validateRegistration({ client_name: 'Notes client', redirect_uris: [REDIRECT] });
    if ('error' in valid) throw new Error(valid.error_description);
    const clientId = String((await registerClient(database.db, valid, '192.0.2.5')).client_id);
    const authorization = await authorizeMcpClient(harness, database, { clientId, redirectUri: REDIRECT, resource: `${origin}/api/mcp`, email: person.email, scope: 'mcp notes:read notes:delete' });
    const tokens = await tokenRequest(harness, clientId, {
      grant_type: 'authorization_code',
      code: authorization.callbackUrl!.searchParams.get('code')!,
      redirect_uri: REDIRECT,
      code_verifier: authorization.codeVerifier,
    });
    accessToken = String(tokens.body.access_token);
  });
  afterEach(async () => {
    await running?.close();
    running = undefined;
    // Let clients see their keep-alive sockets to the stopped app close before the next test reuses the origin.
    await new Promise((resolve) => setTimeout(resolve, 100));
  });
  afterAll(async () => {
    await harness?.close();
    await database?.close();
  });

  async function connect(app: ExampleApp) {
    const client = new Client({ name: 'kit-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(app.resource), { requestInit: { headers: { Authorization: `Bearer ${accessToken}` } } }));
    return client;
  }

  it('stores the surface secret encrypted, never in clear', async () => {
    const state = await surfaceStateOf(database.db, appId);
    expect(state.hasSecret).toBe(true);
    expect(await surfaceSecretOf(database.db, appId, atRestKey)).toBe(secret);
    const raw = JSON.stringify(await database.db.query.appSurfaces.findFirst());
    expect(raw).not.toContain(secret);
  });

  it('serves tools at every risk level to the MCP SDK client, with annotations that agree and the risk model in initialize', async () => {
    const app = await start();
    const client = await connect(app);
    expect(client.getServerCapabilities()?.experimental?.[RISK_MODEL_CAPABILITY]).toMatchObject({ version: 1 });
    const { tools } = await client.listTools();
    const levels = Object.fromEntries(tools.map((tool) => [tool.name, tool._meta?.['io.portico/risk_level']]));
    expect(levels).toEqual({ whoami: 'safe', 'notes.list': 'safe', 'notes.add': 'caution', 'notes.share': 'review', 'notes.delete': 'approval_required' });
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool.annotations]));
    expect(byName['notes.list']).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(byName['notes.delete']).toMatchObject({ readOnlyHint: false, destructiveHint: true });

    const added = JSON.parse(text(await client.callTool({ name: 'notes.add', arguments: { title: 'Launch plan', body: 'T-minus 10' } }))) as { id: number };
    await client.callTool({ name: 'notes.share', arguments: { id: added.id } });
    expect(app.events.map((event) => `${event.tool}:${event.outcome}`)).toEqual(['notes.add:succeeded', 'notes.share:succeeded']);
    expect(app.events[0]).toMatchObject({ riskLevel: 'caution', clientId: app.accepted[0]!.clientId });
    await client.close();
  });

  it('holds an approval_required tool until a confirmed retry, which runs once', async () => {
    const app = await start();
    const client = await connect(app);
    const note = JSON.parse(text(await client.callTool({ name: 'notes.add', arguments: { title: 'Old', body: '' } }))) as { id: number };

    const challenge = text(await client.callTool({ name: 'notes.delete', arguments: { id: note.id } }));
    expect(challenge).toContain('Confirmation required');
    expect(challenge).toContain('no undo');
    expect(app.notebook.notes.has(note.id)).toBe(true);
    const token = tokenIn(challenge)!;
    expect(token).toBeTruthy();

    // Another value with the same token: a new challenge, nothing deleted.
    const other = JSON.parse(text(await client.callTool({ name: 'notes.add', arguments: { title: 'Other', body: '' } }))) as { id: number };
    expect(text(await client.callTool({ name: 'notes.delete', arguments: { id: other.id, _confirmation_token: token } }))).toContain('Confirmation required');
    expect(app.notebook.notes.has(other.id)).toBe(true);

    expect(text(await client.callTool({ name: 'notes.delete', arguments: { id: note.id, _confirmation_token: token } }))).toContain(`Deleted note ${note.id}`);
    expect(app.notebook.notes.has(note.id)).toBe(false);
    // The token is spent: the same retry is a new challenge.
    expect(text(await client.callTool({ name: 'notes.delete', arguments: { id: note.id, _confirmation_token: token } }))).toContain('Confirmation required');
    expect(app.events.filter((event) => event.tool === 'notes.delete').map((event) => event.outcome)).toEqual(['challenge_issued', 'challenge_issued', 'succeeded', 'challenge_issued']);
    await client.close();
  });

  it('runs a confirmed call once when two retries race with one token', async () => {
    const app = await start();
    const client = await connect(app);
    const note = JSON.parse(text(await client.callTool({ name: 'notes.add', arguments: { title: 'Race', body: '' } }))) as { id: number };
    const token = tokenIn(text(await client.callTool({ name: 'notes.delete', arguments: { id: note.id } })))!;
    const results = await Promise.all([1, 2].map(() => client.callTool({ name: 'notes.delete', arguments: { id: note.id, _confirmation_token: token } })));
    expect(results.filter((result) => text(result).startsWith('Deleted')).length).toBe(1);
    expect(app.events.filter((event) => event.tool === 'notes.delete' && event.outcome === 'succeeded').length).toBe(1);
    await client.close();
  });

  it('refuses introspection calls with a bad signature, an old timestamp or a replayed nonce', async () => {
    const app = await start();
    const url = `${app.origin}/api/mcp/surface`;
    const get = (header: string) => fetch(url, { headers: { [SIGNATURE_HEADER]: header } });

    const good = signRequest(secret, { method: 'GET', path: '/api/mcp/surface', body: '' });
    const answer = await get(good.header);
    expect(answer.status).toBe(200);
    const body = await answer.text();
    expect(verifyResponseSignature(secret, good.nonce, 200, body, answer.headers.get(RESPONSE_SIGNATURE_HEADER))).toBe(true);
    expect(JSON.parse(body)).toMatchObject({ kit_contract_version: EXPECTED_APP_KIT_CONTRACT_VERSION });
    // The same proof again: a replay.
    expect((await get(good.header)).status).toBe(401);

    const otherSecret = signRequest(`pss_${randomBytes(32).toString('base64url')}`, { method: 'GET', path: '/api/mcp/surface', body: '' });
    const wrong = await get(otherSecret.header);
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ error: 'invalid_signature' });
    const old = signRequest(secret, { method: 'GET', path: '/api/mcp/surface', body: '' }, { now: new Date(Date.now() - 301_000) });
    expect((await get(old.header)).status).toBe(401);
    const otherPath = signRequest(secret, { method: 'GET', path: '/api/mcp', body: '' });
    expect((await get(otherPath.header)).status).toBe(401);
    const tampered = good.header.replace(/s=([A-Za-z0-9_-])/, (_match, first: string) => `s=${first === 'A' ? 'B' : 'A'}`);
    expect((await get(tampered)).status).toBe(401);
    expect((await fetch(url)).status).toBe(401);
  });

  it('verifies a surface: clean, drift, unsupported and unreachable, each for real', async () => {
    let app = await start();
    // Never declared: nothing to be clean against.
    const undeclared = await verifyAppSurface({ publishOrigin: origin, secret, declaration: null }, loopbackAllowed);
    expect(undeclared.outcome, undeclared.detail).toBe('drift');
    await recordVerification(database.db, appId, { outcome: 'clean', detail: 'an old outcome' });
    await recordDeclaration(database.db, appId, app.surface().tools, EXPECTED_APP_KIT_CONTRACT_VERSION);
    // A new declaration has not been verified: the old outcome is gone.
    expect((await surfaceStateOf(database.db, appId)).lastCheck).toBeNull();
    const { declaration } = await surfaceStateOf(database.db, appId);
    const check = () => verifyAppSurface({ publishOrigin: origin, secret, declaration }, loopbackAllowed);

    expect(await check()).toMatchObject({ outcome: 'clean', exposedTools: 5 });

    // A deploy that added a tool and did not declare it.
    await app.close();
    app = await start({ extraTools: (notebook) => [undeclaredExportTool(notebook)] });
    const drift = await check();
    expect(drift.outcome).toBe('drift');
    expect(drift.difference?.undeclared.map((tool) => tool.name)).toEqual(['notes.export_all']);

    // The same app with its route switched off, as an older kit would be.
    await app.close();
    app = await start({ introspection: false });
    expect(await check()).toMatchObject({ outcome: 'unsupported' });

    // An app on the previous kit (contract 8) is verified as before; one on a contract this Portico does not speak
    // (7) is unsupported. The app's answer is rewritten with that version and signed again, as that app would sign it.
    await app.close();
    app = await start();
    const answeringAs = (version: number): typeof fetch => async (input, init) => {
      const response = await loopbackAllowed(input, init);
      const nonce = parseSignatureHeader(new Headers(init?.headers).get(SIGNATURE_HEADER))!.nonce;
      const body = JSON.stringify({ ...(JSON.parse(await response.text()) as object), kit_contract_version: version });
      return new Response(body, { status: 200, headers: { 'Content-Type': 'application/json', [RESPONSE_SIGNATURE_HEADER]: signResponse(secret, nonce, 200, body) } });
    };
    expect(await verifyAppSurface({ publishOrigin: origin, secret, declaration }, answeringAs(8))).toMatchObject({ outcome: 'clean', exposedTools: 5 });
    const seven = await verifyAppSurface({ publishOrigin: origin, secret, declaration }, answeringAs(7));
    expect(seven).toMatchObject({ outcome: 'unsupported' });
    expect(seven.detail).toMatch(/kit contract 7; this Portico verifies contracts 8, 9/);

    // A secret the app does not know, and an answer that is not signed: never clean.
    await app.close();
    app = await start();
    expect(await verifyAppSurface({ publishOrigin: origin, secret: `pss_${randomBytes(32).toString('base64url')}`, declaration }, loopbackAllowed)).toMatchObject({ outcome: 'unreachable' });
    const stripSignature: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      return new Response(await response.text(), { status: response.status });
    };
    expect(await verifyAppSurface({ publishOrigin: origin, secret, declaration }, stripSignature)).toMatchObject({ outcome: 'unreachable' });

    // The app stopped.
    await app.close();
    running = undefined;
    expect(await check()).toMatchObject({ outcome: 'unreachable' });
  });
});
