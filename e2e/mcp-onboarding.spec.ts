// MCP clients onboard themselves against a published app's /api/mcp: the MCP SDK's own client does discovery,
// registration (RFC 7591) or a client ID metadata document, PKCE with `resource`, and the person signs in and
// consents in the browser, naming who acts. Then the refusals: unknown resources, tampered consent forms.
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { readFileSync } from 'node:fs';
import { expect, test, type APIRequestContext, type Page } from './support/test';
import { decodeJwt } from 'jose';
import { E2E_ISSUER, lanePort } from './support/constants';
import { FLIGHT_DECK, ROCKETS } from './support/fixtures';
import { startFlightDeck, type ExampleApp } from './support/flight-deck';
import { connectWithOAuth, PageOAuthProvider, pkceAuthorizationRequest } from './support/mcp-oauth';
import { fillSignIn } from './support/relying-party';
import { loopbackTlsFiles } from './support/tls';

const PILOT = ROCKETS.member;
const CLIENT_REDIRECT = `http://127.0.0.1:${lanePort(4994)}/callback`;
const CIMD_ORIGIN = `https://localhost:${lanePort(4993)}`;
const CIMD_CLIENT_ID = `${CIMD_ORIGIN}/mcp-client.json`;

let app: ExampleApp;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  app = await startFlightDeck();
});
test.afterAll(async () => {
  await app.close();
});

function whoami(result: unknown): { sub: string; act: string | null; client_id: string } {
  const content = (result as { content: { type: string; text: string }[] }).content;
  return JSON.parse(content[0]!.text);
}

test('the MCP SDK client registers itself, the person consents, tools work, and refresh works', async ({ page }, testInfo) => {
  const metadata = await (await fetch(`${FLIGHT_DECK.origin}/.well-known/oauth-protected-resource/api/mcp`)).json();
  expect(metadata).toEqual({
    resource: FLIGHT_DECK.resource,
    authorization_servers: [E2E_ISSUER],
    // The baseline and every scope the app's tools need (the example's notes.list and notes.delete).
    scopes_supported: ['mcp', 'notes:read', 'notes:delete'],
    bearer_methods_supported: ['header'],
    resource_name: 'Flight Deck',
  });

  const provider = new PageOAuthProvider(CLIENT_REDIRECT, { clientName: 'Cockpit Assistant' });
  const client = await connectWithOAuth(page, FLIGHT_DECK.resource, provider, {
    ...PILOT,
    screenshot: { testInfo, name: 'consent-dynamic-client.png' },
  });
  expect(provider.clientInformation()?.client_id).toMatch(/^dcr_/);
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name)).toContain('whoami');
  const me = whoami(await client.callTool({ name: 'whoami' }));
  expect(me.act).toBeNull();
  expect(me.sub).not.toMatch(/^agt_/);

  const first = provider.tokens()!;
  const claims = decodeJwt(first.access_token);
  expect(claims.aud).toBe(FLIGHT_DECK.identity);
  expect(claims.act).toBeUndefined();
  expect(first.refresh_token).toBeTruthy();

  // Refresh: the SDK meets a 401 with the spoiled token, refreshes, retries. The binding stays Flight Deck's.
  provider.spoilAccessToken();
  expect(whoami(await client.callTool({ name: 'whoami' })).sub).toBe(me.sub);
  const second = provider.tokens()!;
  expect(second.refresh_token).not.toBe(first.refresh_token);
  expect(decodeJwt(second.access_token).aud).toBe(FLIGHT_DECK.identity);
  await client.close();
});

test('a person may let one of their agents act: the token carries act, the subject stays the person (keyboard only)', async ({ page }, testInfo) => {
  const provider = new PageOAuthProvider(CLIENT_REDIRECT, { clientName: 'Agent Runner' });
  const client = await connectWithOAuth(page, FLIGHT_DECK.resource, provider, {
    ...PILOT,
    actsAs: FLIGHT_DECK.copilot.name,
    keyboardOnly: true,
    screenshot: { testInfo, name: 'consent-choose-agent.png' },
  });
  const me = whoami(await client.callTool({ name: 'whoami' }));
  expect(me.act).toBe(FLIGHT_DECK.copilot.id);
  expect(me.sub).not.toMatch(/^agt_/);
  expect(decodeJwt(provider.tokens()!.access_token).act).toEqual({ sub: FLIGHT_DECK.copilot.id });
  await client.close();
});

test('a client ID metadata document client connects without registering, and localhost redirects are flagged', async ({ page }, testInfo) => {
  const tls = loopbackTlsFiles();
  const document = {
    client_id: CIMD_CLIENT_ID,
    client_name: 'Metadata Document Client',
    redirect_uris: [CLIENT_REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
  // Documents that must be refused: each breaks one rule of the draft or of Portico's client policy.
  const refused: Record<string, unknown> = {
    '/wrong-id.json': { ...document, client_id: `${CIMD_ORIGIN}/someone-else.json` },
    '/confidential.json': { ...document, client_id: `${CIMD_ORIGIN}/confidential.json`, token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [] } },
    '/claims-app.json': { ...document, client_id: `${CIMD_ORIGIN}/claims-app.json`, portico_kind: 'app', portico_app_id: FLIGHT_DECK.appId },
    '/evil-redirect.json': { ...document, client_id: `${CIMD_ORIGIN}/evil-redirect.json`, redirect_uris: ['http://evil.example/cb'] },
    '/huge.json': { ...document, client_id: `${CIMD_ORIGIN}/huge.json`, padding: 'x'.repeat(20 * 1024) },
  };
  let fetched = 0;
  const server: HttpsServer = createHttpsServer({ cert: readFileSync(tls.certPath), key: readFileSync(tls.keyPath) }, (req, res) => {
    const body = req.url === '/mcp-client.json' ? document : refused[req.url ?? ''];
    if (!body) return void res.writeHead(404).end();
    fetched++;
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'max-age=300' });
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(lanePort(4993), '127.0.0.1', resolve));
  try {
    const discovery = await (await fetch(`${E2E_ISSUER}/.well-known/oauth-authorization-server`)).json();
    expect(discovery.client_id_metadata_document_supported).toBe(true);

    const provider = new PageOAuthProvider(CLIENT_REDIRECT, { clientMetadataUrl: CIMD_CLIENT_ID });
    const client = await connectWithOAuth(page, FLIGHT_DECK.resource, provider, {
      ...PILOT,
      screenshot: { testInfo, name: 'consent-cimd-client.png' },
      async onConsent(consent) {
        await expect(consent.getByTestId('consent-client-name')).toHaveText(document.client_name);
        await expect(consent.getByTestId('consent-redirect-host')).toHaveText(`127.0.0.1:${lanePort(4994)}`);
        await expect(consent.getByTestId('localhost-warning')).toBeVisible();
        await expect(consent.getByTestId('consent-facts')).toContainText(`metadata document at localhost:${lanePort(4993)}`);
      },
    });
    expect(provider.clientInformation()?.client_id).toBe(CIMD_CLIENT_ID);
    expect(whoami(await client.callTool({ name: 'whoami' })).client_id).toBe(CIMD_CLIENT_ID);
    expect(fetched).toBeGreaterThan(0);
    await client.close();

    for (const path of Object.keys(refused)) {
      const { url } = pkceAuthorizationRequest(E2E_ISSUER, { clientId: `${CIMD_ORIGIN}${path}`, redirectUri: CLIENT_REDIRECT, resource: FLIGHT_DECK.resource });
      const response = await fetch(url, { redirect: 'manual' });
      expect(response.status, path).toBe(400); // an error page: an unknown client is never redirected to
      expect(response.headers.get('location'), path).toBeNull();
      expect(await response.text(), path).toContain('invalid_client');
    }
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A dynamically registered client and a PKCE authorization URL for it, built by hand (no SDK): for the refusals. */
async function handMadeAuthorization(request: APIRequestContext, resource: string | undefined) {
  const registered = await request.post(`${E2E_ISSUER}/oauth/register`, { data: { client_name: 'Hand-made client', redirect_uris: [CLIENT_REDIRECT] } });
  expect(registered.status()).toBe(201);
  const clientId = (await registered.json()).client_id as string;
  return { clientId, ...pkceAuthorizationRequest(E2E_ISSUER, { clientId, redirectUri: CLIENT_REDIRECT, resource }) };
}

async function interceptClientRedirect(page: Page): Promise<() => URL | undefined> {
  let reached: URL | undefined;
  await page.route(`${CLIENT_REDIRECT}**`, async (route) => {
    reached = new URL(route.request().url());
    await route.fulfill({ status: 200, contentType: 'text/plain', body: 'back at the client' });
  });
  // The headless shell sends a redirected navigation past the route (the full browser now and then), to the lane's
  // listener on that address; the page's own URL then says it.
  return () => reached ?? (page.url().startsWith(CLIENT_REDIRECT) ? new URL(page.url()) : undefined);
}

test('a missing or unknown resource is refused on the authorization screen, and the client gets invalid_target', async ({ page, request }, testInfo) => {
  const cases = [
    { resource: undefined, reason: 'missing_resource' },
    { resource: `http://127.0.0.1:${lanePort(4990)}/api/mcp`, reason: 'unknown_resource' },
    { resource: `${FLIGHT_DECK.origin}/api/other`, reason: 'unknown_resource' },
  ];
  for (const { resource, reason } of cases) {
    const reached = await interceptClientRedirect(page);
    const { url } = await handMadeAuthorization(request, resource);
    await page.goto(url.href);
    const refusal = page.getByTestId('authorization-refused');
    await expect(refusal).toHaveAttribute('data-reason', reason);
    await expect(page.getByLabel('Password')).toHaveCount(0); // nobody is asked for a password for nothing
    if (reason === 'missing_resource') await page.screenshot({ path: testInfo.outputPath('refused-missing-resource.png'), fullPage: true });
    await page.getByRole('button', { name: /Return to/ }).click();
    await expect.poll(() => reached()?.searchParams.get('error')).toBe('invalid_target');
    await page.unroute(`${CLIENT_REDIRECT}**`);
  }
});

test('consent tampering: another person’s agent or another organization’s agent is refused', async ({ page, request }, testInfo) => {
  const { url, clientId, verifier } = await handMadeAuthorization(request, FLIGHT_DECK.resource);
  const reached = await interceptClientRedirect(page);
  await page.goto(url.href);
  await fillSignIn(page, PILOT.email, PILOT.password);
  const whoActs = page.getByTestId('who-acts');
  await expect(whoActs).toContainText(FLIGHT_DECK.copilot.name);
  await expect(whoActs).toContainText(FLIGHT_DECK.navigator.name); // shared with the pilot
  await expect(whoActs).not.toContainText(FLIGHT_DECK.groundCrew.name);
  await expect(whoActs).not.toContainText(FLIGHT_DECK.demoHelper.name);

  for (const forged of [FLIGHT_DECK.groundCrew.id, FLIGHT_DECK.demoHelper.id, 'agt_does_not_exist_0000']) {
    // The tampering happens on the wire: the browser posts "self", the request that leaves names another agent.
    // (Editing the DOM instead would race with React's hydration, which may restore the input's value.)
    await page.route('**/consent', async (route) => {
      const form = new URLSearchParams(route.request().postData() ?? '');
      form.set('actor', forged);
      await route.continue({ postData: form.toString() });
    });
    // Mark this document, so the assertions below read the answer to this POST, not the previous page's error.
    await page.evaluate(() => document.body.setAttribute('data-answered', 'no'));
    await page.getByRole('button', { name: 'Allow' }).click();
    await expect(page.locator('body[data-answered]')).toHaveCount(0);
    await expect(page.getByTestId('consent-error')).toContainText('not one you may use');
    expect(reached()).toBeUndefined();
    await page.unroute('**/consent');
  }
  await page.screenshot({ path: testInfo.outputPath('consent-tampered.png'), fullPage: true });

  // The honest choice still works, and the token says exactly that.
  await page.waitForLoadState('networkidle'); // hydrated: the choice below is not reset
  await page.getByLabel(FLIGHT_DECK.navigator.name).check();
  await page.getByRole('button', { name: 'Allow' }).click();
  await expect.poll(() => reached()?.searchParams.get('code')).toBeTruthy();
  const token = await fetch(`${E2E_ISSUER}/oidc/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'authorization_code', code: reached()!.searchParams.get('code')!, redirect_uri: CLIENT_REDIRECT, client_id: clientId, code_verifier: verifier }),
  });
  expect(token.status).toBe(200);
  const tokens = await token.json();
  expect(decodeJwt(tokens.access_token)).toMatchObject({ aud: FLIGHT_DECK.identity, act: { sub: FLIGHT_DECK.navigator.id }, azp: clientId });

  // Refresh keeps the binding: another app's resource is refused, none gives Flight Deck again.
  const refresh = (extra: Record<string, string>) =>
    fetch(`${E2E_ISSUER}/oidc/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: clientId, ...extra }) });
  const elsewhere = await refresh({ resource: `${new URL(ROCKETS.redirectUri).origin}/api/mcp` });
  expect(elsewhere.status).toBe(400);
  expect((await elsewhere.json()).error).toBe('invalid_target');
  const again = await refresh({});
  expect(again.status).toBe(200);
  expect(decodeJwt((await again.json()).access_token)).toMatchObject({ aud: FLIGHT_DECK.identity, act: { sub: FLIGHT_DECK.navigator.id } });
});

test('denying sends the client access_denied and issues nothing', async ({ page, request }) => {
  const { url } = await handMadeAuthorization(request, FLIGHT_DECK.resource);
  const reached = await interceptClientRedirect(page);
  await page.goto(url.href);
  await fillSignIn(page, PILOT.email, PILOT.password);
  await page.getByRole('button', { name: 'Deny' }).click();
  await expect.poll(() => reached()?.searchParams.get('error')).toBe('access_denied');
  expect(reached()?.searchParams.get('code')).toBeNull();
});
