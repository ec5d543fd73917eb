// Portico's own protected resource (/api/mcp, the REST API) and per-organization external clients: an admin
// connects the MCP SDK client to Portico itself, registers an external client in the console and over REST, and
// revokes it — at its own app only.
import { expect, test, type Page } from './support/test';
import { decodeJwt } from 'jose';
import { E2E_ISSUER, lanePort } from './support/constants';
import { confirmed } from './support/confirmation';
import { consoleSignIn } from './support/console';
import { FLIGHT_DECK, ROCKETS } from './support/fixtures';
import { connectWithOAuth, PageOAuthProvider, pkceAuthorizationRequest } from './support/mcp-oauth';
import { fillSignIn } from './support/relying-party';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { RISK_MODEL_CAPABILITY } from '../app-kit/tools';
import { RISK_MODEL_VERSION } from '../app-kit/risk';

const ENGINEER = FLIGHT_DECK.engineer; // an admin of Acme Rockets
const CLIENT_REDIRECT = `http://127.0.0.1:${lanePort(4994)}/callback`;
const PORTICO_API = `${E2E_ISSUER}/api/mcp`;
const REST = `${E2E_ISSUER}/api/v1/orgs/acme-rockets`;

test.describe.configure({ mode: 'serial' });

let adminToken: string;
let externalClientId: string;

test("Portico's own API: 401 with its metadata, then the MCP SDK client connects and whoami answers", async ({ page }, testInfo) => {
  const unauthorized = await fetch(PORTICO_API, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
  expect(unauthorized.status).toBe(401);
  expect(unauthorized.headers.get('www-authenticate')).toBe(
    `Bearer resource_metadata="${E2E_ISSUER}/.well-known/oauth-protected-resource/api/mcp", scope="mcp"`,
  );
  const bad = await fetch(PORTICO_API, { method: 'POST', headers: { Authorization: 'Bearer not.a.token' } });
  expect(bad.status).toBe(401);
  expect(bad.headers.get('www-authenticate')).toContain('error="invalid_token"');
  for (const path of ['/.well-known/oauth-protected-resource/api/mcp', '/.well-known/oauth-protected-resource']) {
    expect(await (await fetch(`${E2E_ISSUER}${path}`)).json()).toEqual({
      resource: PORTICO_API,
      authorization_servers: [E2E_ISSUER],
      scopes_supported: ['mcp'],
      bearer_methods_supported: ['header'],
      resource_name: 'Portico',
    });
  }

  const provider = new PageOAuthProvider(CLIENT_REDIRECT, { clientName: 'Admin Assistant' });
  const client = await connectWithOAuth(page, PORTICO_API, provider, {
    ...ENGINEER,
    screenshot: { testInfo, name: 'consent-portico-api.png' },
    async onConsent(consent) {
      await expect(consent.getByTestId('app-header')).toContainText('Portico');
      await expect(consent.getByTestId('who-acts')).toContainText('used by you in person');
    },
  });
  const result = await client.callTool({ name: 'whoami' });
  const me = JSON.parse((result.content as { text: string }[])[0]!.text);
  expect(me).toMatchObject({ email: ENGINEER.email, act: null });
  expect(me.organizations).toContainEqual({ slug: 'acme-rockets', name: ROCKETS.orgName, role: 'admin' });
  adminToken = provider.tokens()!.access_token;
  expect(decodeJwt(adminToken)).toMatchObject({ aud: PORTICO_API, scope: 'mcp' });
  expect(decodeJwt(adminToken).org).toBeUndefined();
  await client.close();

  // The same server in MCP 2026-07-28, on the real server process: the SDK v2 client probes server/discover,
  // negotiates the modern revision (no session), sees the risk model and its version, and calls whoami.
  const modern = new ModernClient({ name: 'e2e-modern', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await modern.connect(new ModernTransport(new URL(PORTICO_API), { requestInit: { headers: { Authorization: `Bearer ${adminToken}` } } }));
  expect(modern.getNegotiatedProtocolVersion()).toBe('2026-07-28');
  expect((modern.getServerCapabilities()?.experimental as Record<string, { version?: number }> | undefined)?.[RISK_MODEL_CAPABILITY]?.version).toBe(RISK_MODEL_VERSION);
  const modernMe = JSON.parse(((await modern.callTool({ name: 'whoami', arguments: {} })).content as { text: string }[])[0]!.text);
  expect(modernMe).toMatchObject({ email: ENGINEER.email, act: null });
  await modern.close();
});

test('REST: registering an external client checks everything and answers in OAuth error shape', async () => {
  const post = (body: unknown, token = adminToken, org = 'acme-rockets') =>
    fetch(`${E2E_ISSUER}/api/v1/orgs/${org}/clients`, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const cases: [unknown, number, string][] = [
    [{ app_id: FLIGHT_DECK.appId, label: 'x', redirect_uris: ['javascript:alert(1)'] }, 400, 'invalid_redirect_uri'],
    [{ app_id: FLIGHT_DECK.appId, label: 'x', redirect_uris: ['http://evil.example/cb'] }, 400, 'invalid_redirect_uri'],
    [{ app_id: FLIGHT_DECK.appId, label: 'x', redirect_uris: Array.from({ length: 11 }, (_, n) => `https://c.example/${n}`) }, 400, 'invalid_redirect_uri'],
    [{ app_id: FLIGHT_DECK.appId, label: '', redirect_uris: ['https://c.example/cb'] }, 400, 'invalid_client_metadata'],
    [{ app_id: '00000000-0000-4000-8000-000000000000', label: 'x', redirect_uris: ['https://c.example/cb'] }, 404, 'not_found'],
    [[1, 2], 400, 'invalid_request'],
  ];
  for (const [body, status, error] of cases) {
    const response = await post(body);
    expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(status);
    expect((await response.json()).error).toBe(error);
  }
  expect((await post({}, adminToken, 'demo')).status).toBe(404); // not a member there: not revealed
  const anonymous = await fetch(`${REST}/clients`);
  expect(anonymous.status).toBe(401);
  expect(anonymous.headers.get('www-authenticate')).toContain('resource_metadata=');

  const created = await post({ app_id: FLIGHT_DECK.appId, label: 'REST-made client', redirect_uris: [CLIENT_REDIRECT] });
  expect(created.status).toBe(201);
  const body = await created.json();
  expect(body).toMatchObject({ app_id: FLIGHT_DECK.appId, token_endpoint_auth_method: 'none', redirect_uris: [CLIENT_REDIRECT] });
  expect(body.client_id).toMatch(/^ext_/);
  expect(body).not.toHaveProperty('client_secret');
});


test('console: an admin registers an external client for one app; it signs people in to that app only', async ({ page }, testInfo) => {
  await consoleSignIn(page, ENGINEER, /\/console\/acme-rockets\/apps$/);
  await page.getByRole('link', { name: 'Clients' }).click();
  await expect(page.getByRole('heading', { name: 'Clients' })).toBeVisible();
  const form = page.getByTestId('register-client');
  await form.getByLabel('App').selectOption({ label: FLIGHT_DECK.appName });
  await form.getByLabel('Label').fill('Support desk assistant');
  await form.getByLabel('Redirect URIs').fill(CLIENT_REDIRECT);
  await form.getByRole('button', { name: 'Register client' }).click();
  const shown = await page.getByTestId('secret-once').innerText();
  externalClientId = /client_id=(ext_[A-Za-z0-9_-]+)/.exec(shown)![1]!;
  expect(shown).toContain(`resource=${FLIGHT_DECK.resource}`);
  await page.reload();
  await expect(page.getByTestId(`client-${externalClientId}`)).toContainText('Support desk assistant');
  await page.screenshot({ path: testInfo.outputPath('console-clients.png'), fullPage: true });

  // It reaches Flight Deck (consent says who registered it) and not Rocket Launcher.
  const flight = await authorize(page, externalClientId, FLIGHT_DECK.resource);
  await fillSignIn(page, ROCKETS.member.email, ROCKETS.member.password);
  await expect(page.getByTestId('consent-facts')).toContainText(`Registered for ${FLIGHT_DECK.appName} by the administrators of ${ROCKETS.orgName}`);
  await page.getByRole('button', { name: 'Allow' }).click();
  const tokens = await flight.exchange();
  expect(decodeJwt(tokens.access_token)).toMatchObject({ aud: FLIGHT_DECK.identity, azp: externalClientId });
  externalRefreshToken = tokens.refresh_token;

  await authorize(page, externalClientId, `${new URL(ROCKETS.redirectUri).origin}/api/mcp`);
  await expect(page.getByTestId('authorization-refused')).toHaveAttribute('data-reason', 'other_app');
});

let externalRefreshToken: string;

test('revocation is scoped to the app: refused from another app, then revoked at its own: no login, no refresh', async ({ page }) => {
  // Revoking is what the clients.revoke tool does: each call is confirmed by the person in Portico first (428, then the token).
  const revoke = (appId: string) =>
    confirmed(page, ENGINEER, (extra) =>
      fetch(`${REST}/apps/${appId}/clients/${externalClientId}/revoke`, { method: 'POST', headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json' }, body: JSON.stringify(extra) }),
    );
  // Malformed ids are answered like unknown ones, never with a server error.
  for (const appId of ['-'.repeat(36), 'not-an-app']) expect((await revoke(appId)).status).toBe(404);
  const crossApp = await revoke(ROCKETS.appId);
  expect(crossApp.status).toBe(409);
  expect((await crossApp.json()).error).toBe('not_linked');
  // Nothing happened: the client still refreshes.
  const stillAlive = await refresh(externalClientId, externalRefreshToken);
  expect(stillAlive.status).toBe(200);
  externalRefreshToken = (await stillAlive.json()).refresh_token;

  const revoked = await revoke(FLIGHT_DECK.appId);
  expect(revoked.status).toBe(200);
  expect(await revoked.json()).toMatchObject({ revoked: true, grants_ended: 1 });
  const afterRevoke = await refresh(externalClientId, externalRefreshToken);
  // An external client exists for its one app: revoked there, the client itself is gone (RFC 6749 §5.2).
  expect(afterRevoke.status).toBe(401);
  expect((await afterRevoke.json()).error).toBe('invalid_client');

  // No new login either.
  await authorize(page, externalClientId, FLIGHT_DECK.resource);
  await expect(page.locator('body')).not.toContainText('Allow');
  expect(page.url()).not.toContain('/auth/app/');

  const again = await revoke(FLIGHT_DECK.appId);
  expect(again.status).toBe(409);
  expect((await again.json()).error).toBe('already_revoked');
});

test('the Clients page lists dynamically registered clients that reached the app, and revokes them there', async ({ page }) => {
  // A dynamic client the pilot lets in to Flight Deck.
  const registered = await fetch(`${E2E_ISSUER}/oauth/register`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ client_name: 'Listed dynamic client', redirect_uris: [CLIENT_REDIRECT] }),
  });
  const dynamicClientId = (await registered.json()).client_id as string;
  const flow = await authorize(page, dynamicClientId, FLIGHT_DECK.resource);
  await fillSignIn(page, ROCKETS.member.email, ROCKETS.member.password);
  await page.getByRole('button', { name: 'Allow' }).click();
  const tokens = await flow.exchange();

  await page.context().clearCookies();
  await consoleSignIn(page, ENGINEER, /\/console\/acme-rockets\/apps$/);
  await page.goto('/console/acme-rockets/clients');
  const row = page.getByTestId(`client-${dynamicClientId}`);
  await expect(row).toContainText('Dynamic registration');
  await expect(row).toContainText(FLIGHT_DECK.appName);
  await row.getByRole('button', { name: 'Revoke' }).click();
  await row.getByRole('button', { name: 'Yes, revoke' }).click();
  await expect(page.getByTestId('action-ok')).toContainText('1 live connection(s) ended');
  expect((await refresh(dynamicClientId, tokens.refresh_token)).status).toBe(400);

  // The same client is refused at Flight Deck from now on, with the reason shown.
  await page.context().clearCookies();
  await authorize(page, dynamicClientId, FLIGHT_DECK.resource);
  await expect(page.getByTestId('authorization-refused')).toHaveAttribute('data-reason', 'revoked_for_app');
});

/** Starts a PKCE authorization in the page; `exchange` waits for the redirect and redeems the code. */
async function authorize(page: Page, clientId: string, resource: string) {
  let reached: URL | undefined;
  await page.unroute(`${CLIENT_REDIRECT}**`);
  await page.route(`${CLIENT_REDIRECT}**`, async (route) => {
    reached = new URL(route.request().url());
    await route.fulfill({ status: 200, contentType: 'text/plain', body: 'back at the client' });
  });
  const { url, verifier } = pkceAuthorizationRequest(E2E_ISSUER, { clientId, redirectUri: CLIENT_REDIRECT, resource });
  await page.goto(url.href);
  return {
    async exchange() {
      // The headless shell sends a redirected navigation past the route (the full browser now and then), to the
      // lane's listener on that address; the page's own URL then says it.
      const callback = () => reached ?? (page.url().startsWith(CLIENT_REDIRECT) ? new URL(page.url()) : undefined);
      await expect.poll(() => callback()?.searchParams.get('code')).toBeTruthy();
      const response = await fetch(`${E2E_ISSUER}/oidc/token`, {
        method: 'POST',
        body: new URLSearchParams({ grant_type: 'authorization_code', code: callback()!.searchParams.get('code')!, redirect_uri: CLIENT_REDIRECT, client_id: clientId, code_verifier: verifier }),
      });
      expect(response.status).toBe(200);
      return (await response.json()) as { access_token: string; refresh_token: string };
    },
  };
}

function refresh(clientId: string, refreshToken: string) {
  return fetch(`${E2E_ISSUER}/oidc/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId }) });
}
