// mcp-remote (npm `mcp-remote`, 0.15.1 pinned in devDependencies) with `--device-code`: what it registers (RFC 7591)
// and the device grant (RFC 8628) its client then runs. Its registration carries the loopback callback and
// `response_types: ["code"]` it would use without the flag, next to grants that use neither: Portico registers what
// the grants use (RFC 7591 §3.2.1) and says so in its answer.
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createMember, createOrgWithApp, useProviderHarness, type AppFixture } from '../support/provider-harness';

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
  await createMember(suite.database, app.orgId, `mcp-remote-${randomBytes(4).toString('hex')}@example.com`);
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
    const authorization = (await started.json()) as { device_code: string };
    expect(authorization).toMatchObject({
      device_code: expect.any(String),
      user_code: expect.stringMatching(/^[A-Z]{4}-[A-Z]{4}$/),
      verification_uri: `${suite.harness.issuer}/oidc/device`,
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
