// POST /oauth/register on the real server: RFC 7591 answers on the wire and the body cap. The abuse limits have
// their own spec (registration-limits.spec.ts), on servers of their own.
import { expect, test, type APIResponse } from './support/test';
import { E2E_ISSUER } from './support/constants';

const endpoint = `${E2E_ISSUER}/oauth/register`;

test.describe.configure({ mode: 'serial' });

test('discovery announces the registration endpoint', async ({ request }) => {
  const metadata = await (await request.get('/.well-known/oauth-authorization-server')).json();
  expect(metadata.registration_endpoint).toBe(endpoint);
});

test('registers a public client and answers bad input in RFC 7591 shape, never 500', async ({ request }) => {
  const created = await request.post(endpoint, { data: { client_name: 'Test MCP client', redirect_uris: ['http://127.0.0.1:43111/callback'] } });
  expect(created.status()).toBe(201);
  expect(created.headers()['cache-control']).toBe('no-store');
  const body = await created.json();
  expect(body).toMatchObject({ client_name: 'Test MCP client', token_endpoint_auth_method: 'none', response_types: ['code'] });
  expect(body.client_id).toMatch(/^dcr_/);
  expect(body).not.toHaveProperty('client_secret');

  const cases: [() => Promise<APIResponse>, number, string][] = [
    [() => request.post(endpoint, { headers: { 'content-type': 'application/json' }, data: '{"redirect_uris": [' }), 400, 'invalid_client_metadata'],
    [() => request.post(endpoint, { data: { redirect_uris: ['javascript:alert(1)'] } }), 400, 'invalid_redirect_uri'],
    [() => request.post(endpoint, { data: { redirect_uris: ['http://evil.example/cb'] } }), 400, 'invalid_redirect_uri'],
    [() => request.post(endpoint, { data: { redirect_uris: 42 } }), 400, 'invalid_redirect_uri'],
    [() => request.post(endpoint, { headers: { 'content-type': 'text/plain' }, data: 'hello' }), 400, 'invalid_client_metadata'],
    [() => request.post(endpoint, { data: { redirect_uris: ['https://ok.example/cb'], padding: 'x'.repeat(64 * 1024) } }), 413, 'invalid_client_metadata'],
  ];
  for (const [send, status, error] of cases) {
    const response = await send();
    expect(response.status()).toBe(status);
    expect((await response.json()).error).toBe(error);
  }
});
