// The device authorization grant (RFC 8628) end to end: a headless MCP client registers itself for the device grant,
// openid-client's initiateDeviceAuthorization gives it a user code, the person types it on /oidc/device in Chromium
// (a wrong code first: refused next to the field), checks the client and the app, signs in and says who acts on the
// consent screen; openid-client's pollDeviceAuthorizationGrant gets the token, and the MCP SDK client calls the
// example app (Flight Deck, guarded by the app kit) with it.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect, test } from './support/test';
import * as oidc from 'openid-client';
import { expectAccessible } from './support/accessibility';
import { expectNoSidewaysScroll } from './support/layout';
import { E2E_ISSUER } from './support/constants';
import { FLIGHT_DECK, ROCKETS } from './support/fixtures';
import { startFlightDeck, type ExampleApp } from './support/flight-deck';
import { fillSignIn } from './support/relying-party';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
let flightDeck: ExampleApp | undefined;
test.afterAll(async () => flightDeck?.close());

test('a headless client signs a person in with a device code and calls the app with the token', async ({ page }, testInfo) => {
  const registered = await fetch(`${E2E_ISSUER}/oauth/register`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ client_name: 'Launch CLI', grant_types: [DEVICE_GRANT, 'refresh_token'] }),
  });
  expect(registered.status).toBe(201);
  const { client_id: clientId } = (await registered.json()) as { client_id: string };
  const config = await oidc.discovery(new URL(E2E_ISSUER), clientId, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
  expect(config.serverMetadata().device_authorization_endpoint).toBe(`${E2E_ISSUER}/oidc/device/auth`);
  const started = await oidc.initiateDeviceAuthorization(config, { scope: 'mcp notes:read', resource: FLIGHT_DECK.resource });

  await page.goto(started.verification_uri);
  // The language footer every page has: Portuguese, then back to English, on the same page.
  await page.getByTestId('language-footer').getByTestId('language-pt-BR').click();
  await expect(page.locator('html')).toHaveAttribute('lang', 'pt-BR');
  await expect(page).toHaveURL(started.verification_uri);
  await page.setViewportSize({ width: 390, height: 844 });
  await expectNoSidewaysScroll(page, 'the device page in pt-BR');
  await page.screenshot({ path: testInfo.outputPath('device-code-entry-pt-BR-390.png'), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.getByTestId('language-footer').getByTestId('language-en').click();
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
  // The footer's endpoint goes back only to a path of this site, and only for a form of this site.
  const choose = (back: string, origin: string) =>
    page.request.post('/language', { form: { locale: 'en', back }, headers: { Origin: origin }, maxRedirects: 0 });
  expect((await choose('//evil.example/x', E2E_ISSUER)).headers().location).toBe('/');
  expect((await choose('https://evil.example/x', E2E_ISSUER)).headers().location).toBe('/');
  expect((await choose('/oidc/device', E2E_ISSUER)).headers().location).toBe('/oidc/device');
  expect((await choose('/oidc/device', 'https://evil.example')).status()).toBe(403);
  await expectAccessible(page);
  await page.screenshot({ path: testInfo.outputPath('device-code-entry.png'), fullPage: true });
  await page.getByLabel('Code').fill('BCDF-GHJK');
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByTestId('device-code-error')).toContainText('not valid');
  await expect(page.getByLabel('Code')).toHaveAttribute('aria-invalid', 'true');
  await page.screenshot({ path: testInfo.outputPath('device-code-wrong.png'), fullPage: true });

  // As the person types it: lower case, without the dash.
  await page.getByLabel('Code').fill(started.user_code.toLowerCase().replace('-', ''));
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByTestId('device-user-code')).toHaveText(started.user_code);
  await expect(page.getByTestId('device-app')).toContainText(FLIGHT_DECK.appName);
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Connect Launch CLI?');
  await expectAccessible(page);
  await page.screenshot({ path: testInfo.outputPath('device-code-confirm.png'), fullPage: true });
  await page.getByTestId('device-confirm').click();

  await fillSignIn(page, ROCKETS.deviceUser.email, ROCKETS.deviceUser.password);
  await page.getByTestId('who-acts').waitFor();
  await page.waitForLoadState('networkidle');
  await expect(page.getByTestId('consent-redirect-host')).toContainText('This device');
  await expectAccessible(page);
  await page.screenshot({ path: testInfo.outputPath('device-consent.png'), fullPage: true });
  await page.getByRole('button', { name: 'Allow' }).click();
  await expect(page.getByTestId('device-done')).toHaveText('Device connected');
  await page.screenshot({ path: testInfo.outputPath('device-done.png'), fullPage: true });

  const tokens = await oidc.pollDeviceAuthorizationGrant(config, started);
  expect(tokens.refresh_token).toEqual(expect.any(String));

  // The MCP SDK client with the device-flow token, against the app kit's gate.
  flightDeck = await startFlightDeck();
  const client = new Client({ name: 'launch-cli', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(FLIGHT_DECK.resource), { requestInit: { headers: { Authorization: `Bearer ${tokens.access_token}` } } }));
  const whoami = await client.callTool({ name: 'whoami', arguments: {} });
  const text = (whoami.content as { type: string; text: string }[])[0]!.text;
  expect(JSON.parse(text)).toMatchObject({ act: null, client_id: clientId });
  await client.close();
});
