// The MCP gateway end to end (issue 58): an admin puts @modelcontextprotocol/server-everything behind Portico from
// the console, approves its tools and raises one to approval_required; the MCP SDK's stock client (its own OAuth
// handling; the person signs in and consents in Chromium) lists and calls the safe tools and is stopped by a
// challenge on the raised one; the person confirms that exact call with their passkey (Chromium's virtual
// authenticator) and the call runs once. (A changed definition withheld until approved again, a hostile upstream
// and per-person OAuth: test/gateway/.)
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect, test, type BrowserContext, type Page } from './support/test';
import { expectAccessible } from './support/accessibility';
import { consoleSignIn } from './support/console';
import { E2E_ISSUER, EVERYTHING_URL, lanePort } from './support/constants';
import { GATEWAY_CO } from './support/fixtures';
import { expectNoSidewaysScroll } from './support/layout';
import { connectWithOAuth, PageOAuthProvider } from './support/mcp-oauth';

test.describe.configure({ mode: 'serial' });

const ORG = `/console/${GATEWAY_CO.orgSlug}`;
const RESOURCE = `${E2E_ISSUER}/mcp/${GATEWAY_CO.orgSlug}/everything`;
const OWNER = GATEWAY_CO.owner;
type ToolResult = { content: { type: string; text: string }[]; isError?: boolean; _meta?: Record<string, { confirmation_url?: string; status?: string; token?: string }> };

let context: BrowserContext;
let page: Page;
let client: Client | undefined;

test.beforeAll(async ({ browser }) => {
  context = await browser.newContext({ baseURL: E2E_ISSUER });
  page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
});
test.afterAll(async () => {
  await client?.close();
  await context?.close();
});

test('an admin puts server-everything behind Portico, approves its tools and raises one to approval_required', async ({}, testInfo) => {
  await consoleSignIn(page, OWNER);
  await page.goto(`${ORG}/servers`);
  await expect(page.getByTestId('empty-state')).toBeVisible();
  await page.getByTestId('add-server-link').click();
  const form = page.getByTestId('add-server');
  await form.locator('input[name="name"]').fill('Everything');
  // An address the guard will not reach is refused next to its field, with what was typed kept.
  await form.locator('input[name="url"]').fill('ftp://127.0.0.1/mcp');
  await form.getByRole('button', { name: 'Add the server' }).click();
  await expect(form.getByTestId('field-error-field-url')).toBeVisible();
  await expect(form.locator('input[name="name"]')).toHaveValue('Everything');
  await form.locator('input[name="url"]').fill(EVERYTHING_URL);
  await form.getByRole('button', { name: 'Add the server' }).click();
  await page.waitForURL(/\/servers\/everything\?added=1$/);
  await expect(page.getByTestId('server-resource')).toContainText(RESOURCE);

  // Nothing is offered before an admin approves it; each tool shows its proposed level.
  const echo = page.getByTestId('tool-echo');
  await expect(echo).toHaveAttribute('data-state', 'pending');
  await echo.getByTestId('tool-approve').click();
  await expect(echo.getByTestId('tool-outcome')).toHaveAttribute('data-tone', 'success');
  await expect(echo).toHaveAttribute('data-state', 'approved');
  const sum = page.getByTestId('tool-get-sum');
  await sum.getByTestId('tool-level').selectOption('approval_required');
  await sum.getByTestId('tool-approve').click();
  await expect(sum).toHaveAttribute('data-state', 'approved');
  await expect(sum.getByTestId('tool-level')).toHaveValue('approval_required');
  await expectAccessible(page);
  await expectNoSidewaysScroll(page, page.url());
  await page.screenshot({ path: testInfo.outputPath('gateway-server.png'), fullPage: true });
});

test('a stock client, authorized by the person, lists and calls the approved tools', async () => {
  const provider = new PageOAuthProvider(`http://127.0.0.1:${lanePort(4983)}/callback`, { clientName: 'Stock MCP client' });
  client = await connectWithOAuth(page, RESOURCE, provider, { email: OWNER.email, password: OWNER.password });
  expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['echo', 'get-sum']);
  expect(((await client.callTool({ name: 'echo', arguments: { message: 'through Portico' } })) as ToolResult).content[0]?.text).toBe('Echo: through Portico');
});

test('the person adds a passkey', async () => {
  await page.goto('/console/account#passkeys');
  const add = page.getByTestId('add-passkey');
  await add.getByLabel('Name for this passkey').fill('Laptop');
  await add.getByLabel('Your password').fill(OWNER.password);
  await add.getByRole('button', { name: 'Add a passkey' }).click();
  await page.getByTestId('add-passkey-done').getByRole('link', { name: 'I have stored them' }).click();
  await expect(page.getByTestId('passkey-list')).toContainText('Laptop');
});

test('the raised tool is held by a challenge, and runs once after the person confirms that exact call with their passkey', async ({}, testInfo) => {
  if (!client) throw new Error('no client');

  const held = (await client.callTool({ name: 'get-sum', arguments: { a: 20, b: 22 } })) as ToolResult;
  const challenge = held._meta?.['io.portico/confirmation'];
  expect(challenge?.status).toBe('confirmation_required');
  await page.goto(challenge!.confirmation_url!);
  await expect(page.getByTestId('confirmation-arguments')).toContainText('"a": 20');
  await expectAccessible(page);
  await page.screenshot({ path: testInfo.outputPath('gateway-confirmation.png'), fullPage: true });
  await page.getByTestId('confirm-call').click();
  await expect(page.getByTestId('confirmation-done')).toBeVisible();

  // Other arguments with the confirmed token: a new challenge; the confirmed ones: run once.
  const other = (await client.callTool({ name: 'get-sum', arguments: { a: 20, b: 23, _confirmation_token: challenge!.token } })) as ToolResult;
  expect(other._meta?.['io.portico/confirmation']?.status).toBe('confirmation_required');
  const ran = (await client.callTool({ name: 'get-sum', arguments: { a: 20, b: 22, _confirmation_token: challenge!.token } })) as ToolResult;
  expect(ran.isError).toBeFalsy();
  expect(ran.content[0]?.text).toContain('42');
  const again = (await client.callTool({ name: 'get-sum', arguments: { a: 20, b: 22, _confirmation_token: challenge!.token } })) as ToolResult;
  expect(again._meta?.['io.portico/confirmation']?.status).toBe('confirmation_required');

  // The audit log: the raised call succeeded once (a safe call is not audited).
  await page.goto(`${ORG}/audit`);
  await expect(page.getByRole('row').filter({ hasText: 'gateway.tool_succeeded' })).toHaveCount(1);
});
