// An app's permission catalog in the console: add a permission with its description, retire and restore it. Then
// permissions end to end on the example app: tokens, tools, consent and the explanations agree.
import { expect, test, type Page } from './support/test';
import * as oidc from 'openid-client';
import { decodeJwt } from 'jose';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expectAccessible } from './support/accessibility';
import { consoleSignIn } from './support/console';
import { DEMO, E2E_ISSUER, lanePort } from './support/constants';
import { FLIGHT_DECK, ROCKETS } from './support/fixtures';
import { startFlightDeck, type ExampleApp } from './support/flight-deck';
import { callAfterStepUp, connectWithOAuth, PageOAuthProvider } from './support/mcp-oauth';
import { callbackListener, fillSignIn } from './support/relying-party';

test('an admin keeps the app’s permission catalog: the baseline, added permissions, retired ones', async ({ page }, testInfo) => {
  await consoleSignIn(page, DEMO);
  await page.getByRole('link', { name: 'Demo App' }).click();
  await page.getByRole('link', { name: 'Permissions' }).click();
  const catalog = page.getByTestId('permission-catalog');
  await expect(catalog.locator('tr[data-scope="mcp"]')).toContainText('Baseline');

  const form = page.getByTestId('add-permission');
  await form.getByLabel('Permission (scope)').fill('has space');
  await form.getByLabel('Description').fill('Read invoices');
  await form.getByRole('button', { name: 'Add permission' }).click();
  await expect(form.getByTestId('action-error')).toContainText('letters, digits');
  // What was typed stays.
  await expect(form.getByLabel('Description')).toHaveValue('Read invoices');
  await form.getByLabel('Permission (scope)').fill('invoices:read');
  await form.getByRole('button', { name: 'Add permission' }).click();
  await expect(form.getByTestId('action-ok')).toContainText('invoices:read is in the catalog');
  await page.reload();
  const row = page.getByTestId('permission-catalog').locator('tr[data-scope="invoices:read"]');
  await expect(row).toContainText('Read invoices');
  await expect(row).toContainText('added by an admin');
  await page.screenshot({ path: testInfo.outputPath('permissions.png'), fullPage: true });
  await expectAccessible(page);

  await row.getByRole('button', { name: 'Retire' }).click();
  await row.getByRole('button', { name: 'Yes, retire' }).click();
  // The page shows the new state at once: retired, with a way back.
  await expect(row).toContainText('Retired');
  await row.getByRole('button', { name: 'Restore' }).click();
  await expect(row).not.toContainText('Retired');
  await expect(row.getByRole('button', { name: 'Retire' })).toBeVisible();

  // Who can do what: the demo owner holds the baseline; a stranger is not revealed.
  const explain = page.getByTestId('explain-form');
  await explain.getByLabel('Person (email) or agent (agt_…)').fill(DEMO.email);
  await explain.getByRole('button', { name: 'Explain' }).click();
  await expect(page.getByTestId('explanation').locator('li[data-scope="mcp"]')).toContainText('baseline');
  await page.screenshot({ path: testInfo.outputPath('permissions-explained.png'), fullPage: true });
  await page.getByTestId('explain-form').getByLabel('Person (email) or agent (agt_…)').fill('nobody@nowhere.test');
  await page.getByTestId('explain-form').getByRole('button', { name: 'Explain' }).click();
  await expect(page.getByTestId('explain-none')).toBeVisible();
});

test('the member’s and the agent’s pages say what they may do in each app, and why', async ({ page }, testInfo) => {
  await consoleSignIn(page, FLIGHT_DECK.engineer);
  await page.goto('/console/acme-rockets/members');
  await page.getByRole('link', { name: `Permissions of ${ROCKETS.member.email}` }).click();
  const deck = page.getByTestId('permissions-flight-deck');
  // The pilot's crew holds the notes permissions on Flight Deck.
  await expect(deck.locator('li[data-scope="mcp"]')).toContainText('baseline');
  await expect(deck.locator('li[data-scope="notes:delete"]')).toContainText(`team ${FLIGHT_DECK.crewTeam}`);
  // A direct grant, chosen from the catalog on the member's page, shows with its source; revoking takes it away.
  const direct = page.getByTestId('direct-grants');
  await direct.getByLabel('Permission', { exact: true }).selectOption({ label: 'deploy:run — Run deployments' });
  await direct.getByRole('button', { name: 'Grant' }).click();
  await expect(direct).toContainText(`${FLIGHT_DECK.appName}: deploy:run`);
  await page.reload();
  await expect(deck.locator('li[data-scope="deploy:run"]')).toContainText('direct');
  await page.screenshot({ path: testInfo.outputPath('member-permissions.png'), fullPage: true });
  await expectAccessible(page);
  await direct.getByRole('button', { name: 'Revoke' }).click();
  // Reloaded once the server action answered (a reload before it could show the grant still there).
  const revoked = page.waitForResponse((response) => response.request().method() === 'POST');
  await direct.getByRole('button', { name: 'Yes, revoke' }).click();
  await revoked;
  await page.reload();
  await expect(deck.locator('li[data-scope="deploy:run"]')).toHaveCount(0);

  // An agent holds what it was granted directly, chosen from the app's catalog.
  await page.goto('/console/acme-rockets/agents');
  const copilot = page.getByTestId(`agent-${FLIGHT_DECK.copilot.name}`);
  await copilot.getByLabel('Permission', { exact: true }).selectOption({ label: 'notes:read — Read notes' });
  await copilot.getByRole('button', { name: 'Grant' }).click();
  await expect(copilot).toContainText(`${FLIGHT_DECK.appName}: notes:read`);
  await copilot.getByRole('link', { name: 'What it may do, and why' }).click();
  await expect(page.getByRole('heading', { name: FLIGHT_DECK.copilot.name })).toBeVisible();
  await expect(page.getByTestId('permissions-flight-deck').locator('li[data-scope="notes:read"]')).toContainText('direct');
  await expect(page.getByTestId('permissions-flight-deck').locator('li[data-scope="mcp"]')).toHaveCount(0);
  await page.screenshot({ path: testInfo.outputPath('agent-permissions.png'), fullPage: true });
  await expectAccessible(page);
});

// The example app (Flight Deck) on the app kit: its tools follow what the token holds, and the token follows what
// the person holds — through the app's own client (openid-client), and through an MCP client's consent.
test.describe('permissions reach the example app’s tools', () => {
  test.describe.configure({ mode: 'serial' });
  let app: ExampleApp | undefined;
  test.afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  const DECKHAND = FLIGHT_DECK.deckhand;
  const toolNames = async (accessToken: string) => {
    const client = new Client({ name: 'permissions-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(FLIGHT_DECK.resource), { requestInit: { headers: { Authorization: `Bearer ${accessToken}` } } }));
    const { tools } = await client.listTools();
    await client.close();
    return tools.map((tool) => tool.name).sort();
  };
  const scopeOf = (accessToken: string) => String(decodeJwt(accessToken).scope ?? '');

  /** What the Permissions page explains for the deckhand on Flight Deck, as scopes. */
  async function explained(page: Page): Promise<string> {
    await page.goto(`/console/acme-rockets/apps/${FLIGHT_DECK.appId}/permissions`);
    await page.getByTestId('explain-form').getByLabel('Person (email) or agent (agt_…)').fill(DECKHAND.email);
    await page.getByTestId('explain-form').getByRole('button', { name: 'Explain' }).click();
    await page.getByTestId('explanation').waitFor();
    return (await page.getByTestId('explanation').locator('li[data-scope]').evaluateAll((items) => items.map((item) => item.getAttribute('data-scope')))).join(' ');
  }

  async function crewMembership(page: Page, change: 'add' | 'remove') {
    await page.goto('/console/acme-rockets/teams');
    const crew = page.getByTestId(`team-${FLIGHT_DECK.crewTeam}`);
    if (change === 'add') {
      await crew.getByLabel('Member').selectOption({ label: DECKHAND.email });
      await crew.getByRole('button', { name: 'Add to team' }).click();
      await expect(crew.getByTestId('action-ok')).toBeVisible();
    } else {
      const row = crew.locator('li', { hasText: DECKHAND.email });
      await row.getByRole('button', { name: 'Remove' }).click();
      await row.getByRole('button', { name: /^Yes/ }).click();
      await expect(crew.locator('li', { hasText: DECKHAND.email })).toHaveCount(0);
    }
  }

  test('the app’s own client: a team grant shows at the next refresh, leaving the team removes it at the next', async ({ page, browser }, testInfo) => {
    // The app's own client signs the deckhand in through Portico, asking for the app's resource and naming none of
    // its permissions: all the deckhand holds. (Flight Deck is not running yet: its callback is caught here.)
    const config = await oidc.discovery(new URL(E2E_ISSUER), FLIGHT_DECK.clientId, undefined, oidc.ClientSecretBasic(FLIGHT_DECK.clientSecret), { execute: [oidc.allowInsecureRequests] });
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: FLIGHT_DECK.redirectUri,
      scope: 'openid offline_access',
      prompt: 'consent',
      resource: FLIGHT_DECK.resource,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    });
    const listener = await callbackListener(FLIGHT_DECK.redirectUri);
    let callback: URL;
    try {
      await page.goto(url.href);
      await fillSignIn(page, DECKHAND.email, DECKHAND.password);
      callback = await listener.reached(page);
    } finally {
      await listener.close();
    }
    const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state });
    expect(scopeOf(tokens.access_token)).toBe('mcp');

    app = await startFlightDeck();
    expect(await toolNames(tokens.access_token)).toEqual(['notes.add', 'notes.share', 'whoami']);

    const admin = await (await browser.newContext({ baseURL: E2E_ISSUER })).newPage();
    await consoleSignIn(admin, FLIGHT_DECK.engineer);
    expect(await explained(admin)).toBe('mcp');
    await crewMembership(admin, 'add');
    await admin.screenshot({ path: testInfo.outputPath('teams-crew.png'), fullPage: true });

    const widened = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(scopeOf(widened.access_token)).toBe('mcp notes:delete notes:read');
    expect(scopeOf(widened.access_token)).toBe(await explained(admin));
    await admin.screenshot({ path: testInfo.outputPath('permissions-explained-team.png'), fullPage: true });
    expect(await toolNames(widened.access_token)).toEqual(['notes.add', 'notes.delete', 'notes.list', 'notes.share', 'whoami']);

    await crewMembership(admin, 'remove');
    const narrowed = await oidc.refreshTokenGrant(config, widened.refresh_token!);
    expect(scopeOf(narrowed.access_token)).toBe('mcp');
    expect(await explained(admin)).toBe('mcp');
    expect(await toolNames(narrowed.access_token)).toEqual(['notes.add', 'notes.share', 'whoami']);
    await admin.context().close();
  });

  test('an MCP client: the consent lists what is granted; a call beyond it gets 403 insufficient_scope and the consent screen again', async ({ page, browser }, testInfo) => {
    // The consent marks permissions whose tools are approval_required in the app's declared surface: the app
    // declares it at start, with a surface secret created (or replaced) here.
    const admin = await (await browser.newContext({ baseURL: E2E_ISSUER })).newPage();
    await consoleSignIn(admin, FLIGHT_DECK.engineer);
    await admin.goto(`/console/acme-rockets/apps/${FLIGHT_DECK.appId}/security`);
    await admin.getByTestId('surface-secret').getByRole('button', { name: /surface secret/ }).click();
    const replace = admin.getByTestId('surface-secret').getByRole('button', { name: 'Yes, replace' });
    if (await replace.isVisible()) await replace.click();
    const shown = await admin.getByTestId('surface-secret').getByTestId('secret-once').textContent();
    const surfaceSecret = /PORTICO_SURFACE_SECRET=(pss_[A-Za-z0-9_-]+)/.exec(shown ?? '')?.[1];
    expect(surfaceSecret).toBeTruthy();
    app = await startFlightDeck({ surfaceSecret });
    expect(app.declaration).toMatchObject({ ok: true });
    const provider = new PageOAuthProvider(`http://127.0.0.1:${lanePort(4993)}/callback`, { clientName: 'Deck assistant' });
    const client = await connectWithOAuth(page, FLIGHT_DECK.resource, provider, {
      ...DECKHAND,
      onConsent: async (consent) => {
        // The 401 named every scope the tools need and the client asked for exactly that (MCP authorization, scope
        // selection); the deckhand holds the baseline only: it alone is granted, the others are said not held.
        await expect(consent.getByTestId('consent-permissions').locator('li[data-scope="mcp"]')).toContainText('Use the app’s tools');
        await expect(consent.getByTestId('consent-permissions').locator('li')).toHaveCount(1);
        await expect(consent.getByTestId('consent-not-held')).toContainText('Read notes');
        await expect(consent.getByTestId('consent-not-held')).toContainText('Delete notes');
        await consent.screenshot({ path: testInfo.outputPath('consent-permissions-baseline.png'), fullPage: true });
        await expectAccessible(consent);
      },
    });
    expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('notes.delete');
    await client.close();

    // A call of notes.delete before the deckhand holds it: the step-up's consent says the permission is not held,
    // and the new token still carries only the baseline.
    const notHeld = await callAfterStepUp(page, FLIGHT_DECK.resource, provider, {
      ...DECKHAND,
      onConsent: async (consent) => {
        await expect(consent.getByTestId('consent-not-held')).toContainText('Delete notes');
        await expectAccessible(consent);
      },
    }, (connected) => connected.callTool({ name: 'notes.delete', arguments: { id: 1 } }));
    expect(String(notHeld.error)).toMatch(/403/);
    expect(scopeOf(provider.tokens()!.access_token)).toBe('mcp');
    await notHeld.client.close();

    // The deckhand now holds the notes permissions through the crew…
    await crewMembership(admin, 'add');

    // …but this client's grant is what was consented to: a call of notes.delete is refused with the scope it needs.
    const accessToken = provider.tokens()!.access_token;
    const refused = await fetch(FLIGHT_DECK.resource, {
      method: 'POST',
      headers: { Authorization: `Bearer ${accessToken}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'notes.delete', arguments: { id: 1 } } }),
    });
    expect(refused.status).toBe(403);
    const challenge = refused.headers.get('www-authenticate') ?? '';
    expect(challenge).toContain('error="insufficient_scope"');
    // Only the scope this call needs (MCP 2026-07-28): the client accumulates it with what it already holds.
    expect(challenge).toContain('scope="notes:delete"');

    // The SDK answers that challenge with a refresh first, which cannot widen a consent: still refused.
    const upscoping = new Client({ name: 'permissions-e2e', version: '1.0.0' });
    await upscoping.connect(new StreamableHTTPClientTransport(new URL(FLIGHT_DECK.resource), { authProvider: provider }));
    await expect(upscoping.callTool({ name: 'notes.delete', arguments: { id: 1 } })).rejects.toThrow(/403/);
    expect(scopeOf(provider.tokens()!.access_token)).toBe('mcp');
    await upscoping.close();

    // Without a refresh token the SDK authorizes again with the challenge's scope (same registered client): the
    // consent screen comes back listing the newly held permission, and the new token carries it.
    const again = await callAfterStepUp(page, FLIGHT_DECK.resource, provider, {
      ...DECKHAND,
      onConsent: async (consent) => {
        const deletion = consent.getByTestId('consent-permissions').locator('li[data-scope="notes:delete"]');
        await expect(deletion).toContainText('Delete notes');
        await expect(deletion).toContainText('asks for confirmation');
        await consent.screenshot({ path: testInfo.outputPath('consent-permissions-delete.png'), fullPage: true });
      },
    }, (connected) => connected.callTool({ name: 'notes.delete', arguments: { id: 1 } }));
    expect(again.error).toBeUndefined();
    // What was asked from the start (every scope the tools need), now held through the crew.
    expect(scopeOf(provider.tokens()!.access_token)).toBe('mcp notes:delete notes:read');
    expect((await again.client.listTools()).tools.map((tool) => tool.name)).toContain('notes.delete');
    await again.client.close();

    await crewMembership(admin, 'remove');
    await admin.context().close();
  });
});
