// mcp-remote (npm `mcp-remote`, 0.15.1 pinned in devDependencies) with `--device-code`: what it registers (RFC 7591)
// and the device grant (RFC 8628) its client then runs. Its registration carries the loopback callback and
// `response_types: ["code"]` it would use without the flag, next to grants that use neither: Portico registers what
// the grants use (RFC 7591 §3.2.1) and says so in its answer.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { McpRemote } from '../support/mcp-remote';
import { startExampleApp } from '../../examples/notes/app';
import { createOrganization } from '../../lib/organizations/organizations';
import { createApp } from '../../lib/clients/apps';
import { approveDeviceCode, CookieJar, createMember, createOrgWithApp, enterDeviceCode, openVerificationUriComplete, useProviderHarness, type AppFixture } from '../support/provider-harness';

const suite = useProviderHarness({ pollIntervalSeconds: 1 });
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/**
 * The body mcp-remote 0.15.1 POSTs to the registration endpoint when started as `mcp-remote <url> --device-code`,
 * byte for byte (field order included): `NodeOAuthClientProvider#clientMetadata` with `grantTypes()` for the device
 * grant, the SDK's `resolveClientMetadata` (application_type from the loopback redirect URI) and the scope its
 * `registerClient` adds. The port is the callback port mcp-remote derives from the server URL (14111 here; the run
 * below checks the real thing against this, its own port in place).
 */
const MCP_REMOTE_DEVICE_REGISTRATION =
  '{"redirect_uris":["http://localhost:14111/oauth/callback"],"token_endpoint_auth_method":"none","grant_types":["urn:ietf:params:oauth:grant-type:device_code","refresh_token"],"response_types":["code"],"client_name":"MCP CLI Proxy","client_uri":"https://github.com/modelcontextprotocol/mcp-cli","software_id":"2e6dc280-f3c3-4e01-99a7-8181dbd1d23d","software_version":"0.15.1","scope":"mcp offline_access","application_type":"native"}';

async function register(body: string): Promise<{ status: number; answer: Record<string, unknown> }> {
  const response = await fetch(`${suite.harness.issuer}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return { status: response.status, answer: (await response.json()) as Record<string, unknown> };
}

let app: AppFixture;

beforeAll(async () => {
  app = await createOrgWithApp(suite.database, 'Device Tool');
});

describe('mcp-remote --device-code: registration', () => {
  it('its exact registration is accepted as a device-only client: no redirect URIs, no response types, and the device authorization request is accepted', async () => {
    const { status, answer } = await register(MCP_REMOTE_DEVICE_REGISTRATION);
    expect(status).toBe(201);
    expect(answer).toMatchObject({
      client_id: expect.stringMatching(/^dcr_/),
      client_name: 'MCP CLI Proxy',
      // RFC 7591 §3.2.1: the metadata registered, which replaces what the device grant never uses.
      redirect_uris: [],
      response_types: [],
      grant_types: [DEVICE_GRANT, 'refresh_token'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
      client_uri: 'https://github.com/modelcontextprotocol/mcp-cli',
      software_id: '2e6dc280-f3c3-4e01-99a7-8181dbd1d23d',
      software_version: '0.15.1',
      // Defaults are registered values too (RFC 7591 §3.2.1); OpenID Connect Registration §2: RS256 when none is named.
      id_token_signed_response_alg: 'RS256',
      subject_type: 'public',
    });
    const clientId = String(answer.client_id);
    const client = await suite.harness.provider.Client.find(clientId);
    expect(client?.redirectUris).toEqual([]);
    expect(client?.responseTypes).toEqual([]);

    // RFC 8628 §3.1-3.2, as mcp-remote sends it (public client: client_id in the body).
    const started = await fetch(`${suite.harness.issuer}/oidc/device/auth`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ client_id: clientId, scope: 'mcp offline_access', resource: app.resource }),
    });
    expect(started.status).toBe(200);
    const authorization = (await started.json()) as { device_code: string; user_code: string };
    expect(authorization).toMatchObject({
      device_code: expect.any(String),
      user_code: expect.stringMatching(/^[A-Z]{4}-[A-Z]{4}$/),
      verification_uri: `${suite.harness.issuer}/oidc/device`,
      // What mcp-remote shows the person instead of the code, when present (RFC 8628 §3.3.1).
      verification_uri_complete: `${suite.harness.issuer}/oidc/device?user_code=${encodeURIComponent(authorization.user_code)}`,
      expires_in: 600,
      interval: 1,
    });
    // Nobody has approved it yet: the token endpoint says so (RFC 8628 §3.5).
    const polled = await fetch(`${suite.harness.issuer}/oidc/token`, { method: 'POST', body: new URLSearchParams({ client_id: clientId, grant_type: DEVICE_GRANT, device_code: authorization.device_code }) });
    expect([polled.status, await polled.json()]).toEqual([400, { error: 'authorization_pending', error_description: expect.any(String) }]);
  });

  it('metadata Portico cannot give the client is refused with invalid_client_metadata naming the field', async () => {
    const device = JSON.parse(MCP_REMOTE_DEVICE_REGISTRATION) as Record<string, unknown>;
    const refused: [Record<string, unknown>, RegExp][] = [
      // Public clients only: a secret-based method would be one the client then uses at the token endpoint.
      [{ ...device, token_endpoint_auth_method: 'client_secret_basic' }, /^token_endpoint_auth_method /],
      [{ ...device, token_endpoint_auth_method: 'client_secret_post' }, /^token_endpoint_auth_method /],
      // No implicit or hybrid flow, with or without the code grant.
      [{ ...device, response_types: ['code', 'token'] }, /^response_types /],
      [{ ...device, grant_types: ['authorization_code'], response_types: ['id_token'] }, /^response_types /],
      [{ ...device, response_types: 'code' }, /^response_types /],
      // Grants Portico does not give a dynamically registered client, or none that signs anyone in.
      [{ ...device, grant_types: [DEVICE_GRANT, 'client_credentials'] }, /^grant_types /],
      [{ ...device, grant_types: ['refresh_token'] }, /^grant_types /],
      [{ ...device, application_type: 'desktop' }, /^application_type /],
    ];
    for (const [body, description] of refused) {
      const { status, answer } = await register(JSON.stringify(body));
      expect([status, answer.error], JSON.stringify(body).slice(0, 200)).toEqual([400, 'invalid_client_metadata']);
      expect(answer.error_description).toMatch(description);
    }
  });

  it('what the grants never use is replaced, whatever it was; what the code grant uses is still checked', async () => {
    const device = JSON.parse(MCP_REMOTE_DEVICE_REGISTRATION) as Record<string, unknown>;
    // A device-only client's redirect URIs go nowhere: not registered, so not checked either.
    for (const redirect_uris of [['https://x.example/cb'], ['http://evil.example/cb'], 'not a list']) {
      const { status, answer } = await register(JSON.stringify({ ...device, redirect_uris }));
      expect([status, answer.redirect_uris, answer.response_types]).toEqual([201, [], []]);
    }
    // Nothing to contradict: a device-only client may call itself a web application.
    expect((await register(JSON.stringify({ ...device, application_type: 'web' }))).answer).toMatchObject({ application_type: 'web', redirect_uris: [] });
    // With the code grant as well, the redirect URIs are registered and the response type is "code", also when the
    // client sent none.
    const both = await register(JSON.stringify({ ...device, grant_types: ['authorization_code', DEVICE_GRANT, 'refresh_token'], response_types: [] }));
    expect(both).toMatchObject({ status: 201, answer: { redirect_uris: ['http://localhost:14111/oauth/callback'], response_types: ['code'] } });
    const badUri = await register(JSON.stringify({ ...device, grant_types: ['authorization_code'], redirect_uris: ['http://evil.example/cb'] }));
    expect(badUri).toMatchObject({ status: 400, answer: { error: 'invalid_redirect_uri' } });
  });
});

/** A loopback port nothing listens on now (the example app's origin must be known before its app is created). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}


describe('mcp-remote --device-code, run as it is', () => {
  it('registers, shows the code, the person approves it on the verification page, and it reaches the MCP server with the token', { timeout: 90_000 }, async () => {
    // The resource: the example app on loopback, an app of an organization the person belongs to.
    const origin = `http://127.0.0.1:${await freePort()}`;
    const org = await createOrganization(suite.database.db, { slug: `mcp-remote-${randomBytes(3).toString('hex')}`, name: 'Remote' });
    const notes = await createApp(suite.database.db, { orgId: org.id, slug: 'notes', name: 'Notes', publishOrigin: origin, redirectUris: [`${origin}/callback`] });
    const person = await createMember(suite.database, org.id, `mcp-remote-${randomBytes(4).toString('hex')}@example.com`);
    const example = await startExampleApp({ origin, issuer: suite.harness.issuer, appIdentity: notes.app.identity });
    const configDir = mkdtempSync(path.join(tmpdir(), 'mcp-remote-'));
    const registeredBefore = suite.harness.registrationBodies.length;
    // Its own code, default behaviour but for the flag; its state in a folder of its own.
    const remote = new McpRemote(
      spawn(process.execPath, [path.resolve('node_modules/mcp-remote/dist/proxy.js'), example.resource, '--device-code'], {
        env: { ...process.env, MCP_REMOTE_CONFIG_DIR: configDir },
        stdio: ['pipe', 'pipe', 'pipe'],
      }),
    );
    try {
      // What it shows the person: verification_uri_complete, or verification_uri and the code (RFC 8628 §3.3).
      const shown = await remote.until('verification URI', () => /To authorize this client, visit:\s+(?:\[\d+\]\s+)?(http\S+)/.exec(remote.log)?.[1]);
      expect(shown.startsWith(`${suite.harness.issuer}/oidc/device`), remote.log).toBe(true);

      // It registered exactly the body the test above sends, with the callback port it derived from the server URL
      // and the scope the example app's 401 named (every scope its tools need) where the capture had mcp.
      const sent = suite.harness.registrationBodies.slice(registeredBefore);
      expect(sent).toHaveLength(1);
      const port = /"http:\/\/localhost:(\d+)\/oauth\/callback"/.exec(sent[0]!)?.[1];
      expect(sent[0]).toBe(MCP_REMOTE_DEVICE_REGISTRATION.replace('localhost:14111', `localhost:${port}`).replace('"scope":"mcp offline_access"', '"scope":"mcp notes:read notes:delete offline_access"'));

      // The person, elsewhere: opens what was shown (or types the code), confirms, signs in, consents.
      const jar = new CookieJar();
      const userCode = /And enter the code: (\S+)/.exec(remote.log)?.[1];
      const confirmation = userCode ? await enterDeviceCode(suite.harness, jar, userCode) : await openVerificationUriComplete(jar, shown);
      expect(confirmation.status).toBe(200);
      expect(confirmation.html).toContain('MCP CLI Proxy');
      expect(await approveDeviceCode(suite.harness, suite.database, jar, confirmation.html, person.email)).toContain('Device connected');

      // mcp-remote polls, gets the token, and proxies: the example app's tools, called with that token.
      await remote.until('proxy', () => (remote.log.includes('Proxy established successfully') ? true : undefined));
      remote.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'portico-test', version: '1.0.0' } } });
      expect((await remote.answer(1)).result).toMatchObject({ serverInfo: { name: 'notes-example' } });
      remote.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      remote.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
      const tools = (await remote.answer(2)).result?.tools as { name: string }[];
      expect(tools.map((tool) => tool.name)).toContain('notes.add');
      expect(example.accepted.at(-1)).toMatchObject({ subject: person.id, organization: org.id, clientId: expect.stringMatching(/^dcr_/) });
    } finally {
      remote.child.kill();
      await example.close();
      rmSync(configDir, { recursive: true, force: true });
    }
  });
});
