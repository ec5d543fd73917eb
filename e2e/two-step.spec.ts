// Two-step sign-in in a real browser: a person sets up an authenticator app on their account page (the codes are
// computed here from the key the page shows, as the app on their phone would), and from then on every sign-in —
// console, an app's sign-in card (openid-client as the app), the central — asks for a code after the password. A
// wrong code is said next to the field; a recovery code works once; the ID token says how the person signed in.
import { readFileSync } from 'node:fs';
import { expect, test, type Page } from './support/test';
import { Secret, TOTP } from 'otpauth';
import * as oidc from 'openid-client';
import { expectAccessible } from './support/accessibility';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { consoleSignIn } from './support/console';
import { DEMO, E2E_ISSUER } from './support/constants';
import { expectNoSidewaysScroll, sameSessionsIn } from './support/layout';
import { accessTokenThroughConsent } from './support/mcp-oauth';
import { ROCKETS } from './support/fixtures';
import { demoRelyingParty, fillSignIn, interceptCallback, newAuthorizationRequest } from './support/relying-party';

const PERSON = ROCKETS.twoStep;
test.describe.configure({ mode: 'serial' });

let secret = '';
let recoveryCodes: string[] = [];
/**
 * The next code of the authenticator app. A code works once (its time step must be later than the last one used)
 * and within one step of the clock (RFC 6238 §6): the steps used run from one before now, waiting when ahead.
 */
let lastStep = 0;
async function nextCode(page: Page): Promise<string> {
  for (;;) {
    const now = Math.floor(Date.now() / 30_000);
    const candidate = Math.max(lastStep + 1, now - 1);
    // A code of the previous step near the next boundary may be two steps old when the server checks it: wait.
    const lateInStep = Date.now() % 30_000 > 25_000;
    if (candidate <= now + 1 && !(candidate < now && lateInStep)) {
      lastStep = candidate;
      return new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: candidate * 30_000 });
    }
    await page.waitForTimeout(1_000);
  }
}

async function passwordStep(page: Page, path: string) {
  await page.goto(path);
  await fillSignIn(page, PERSON.email, PERSON.password);
  await expect(page.getByTestId('second-factor-form')).toBeVisible();
}

test('a person turns on two-step sign-in from their account page and stores recovery codes shown once', async ({ page }, testInfo) => {
  await page.goto('/console/login');
  await fillSignIn(page, PERSON.email, PERSON.password);
  await page.waitForURL(/\/console\//);
  await page.goto('/console/account');
  await expect(page.getByTestId('two-step-status')).toContainText('Off');
  await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
  const enrollment = page.getByTestId('totp-enrollment');
  await expect(enrollment.getByRole('img', { name: /QR code/ })).toBeVisible();
  secret = ((await enrollment.getByTestId('totp-secret').textContent()) ?? '').replace(/\s+/g, '');
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  await page.screenshot({ path: testInfo.outputPath('two-step-enrollment.png'), fullPage: true });
  await expectAccessible(page);

  // Turning it on needs the password too (a session someone else holds cannot bind the account to their phone). A
  // wrong password or code is refused next to its field, and what was typed stays.
  const confirm = page.getByTestId('confirm-totp');
  await confirm.getByLabel('Code from the app').fill('000000');
  await confirm.getByLabel('Your password').fill('not the password at all');
  await confirm.getByRole('button', { name: 'Turn on two-step sign-in' }).click();
  await expect(confirm.getByText('That password is not right')).toBeVisible();
  await expect(confirm.getByLabel('Code from the app')).toHaveValue('000000');
  await confirm.getByLabel('Your password').fill(PERSON.password);
  await confirm.getByRole('button', { name: 'Turn on two-step sign-in' }).click();
  await expect(confirm.getByText('not the one your authenticator app shows')).toBeVisible();
  await confirm.getByLabel('Code from the app').fill(await nextCode(page));
  await confirm.getByLabel('Your password').fill(PERSON.password);
  await confirm.getByRole('button', { name: 'Turn on two-step sign-in' }).click();
  const codes = page.getByTestId('recovery-codes');
  await expect(codes.locator('li')).toHaveCount(10);
  recoveryCodes = await codes.locator('code').allTextContents();
  // Kept as a file in one click; on a phone no code breaks in the middle (one per line).
  const downloading = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download as a file' }).click();
  expect(readFileSync((await (await downloading).path())!, 'utf8')).toBe(`${recoveryCodes.join('\n')}\n`);
  await page.setViewportSize({ width: 390, height: 844 });
  for (const code of await codes.locator('code').all()) expect((await code.boundingBox())!.height).toBeLessThan(30);
  await expectNoSidewaysScroll(page, 'the recovery codes');
  await page.screenshot({ path: testInfo.outputPath('two-step-recovery-codes-390.png'), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: testInfo.outputPath('two-step-recovery-codes.png'), fullPage: true });
  await page.getByRole('link', { name: 'I have stored them' }).click();
  await expect(page.getByTestId('two-step-status')).toContainText('10 of 10 recovery codes left');
  // Shown once: the page does not show them again.
  await expect(page.getByTestId('recovery-codes')).toHaveCount(0);
});

test('the console asks for the code after the password; a wrong one is said next to the field', async ({ page }, testInfo) => {
  await passwordStep(page, '/console/login');
  await page.getByLabel('Code from your authenticator app').fill('123456');
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByTestId('second-factor-error')).toContainText('not right');
  await expect(page.getByLabel('Code from your authenticator app')).toHaveAttribute('aria-invalid', 'true');
  await page.screenshot({ path: testInfo.outputPath('two-step-console-wrong.png'), fullPage: true });
  await expectAccessible(page);
  await page.getByLabel('Code from your authenticator app').fill(await nextCode(page));
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForURL(/\/console\/demo\//);
});

test('an app’s sign-in card asks for it too, and the ID token says pwd + otp (openid-client)', async ({ page }, testInfo) => {
  const config = await demoRelyingParty(E2E_ISSUER);
  const request = await newAuthorizationRequest(config, 'openid email');
  const callback = await interceptCallback(page);
  await passwordStep(page, request.url.href);
  await page.screenshot({ path: testInfo.outputPath('two-step-app-card.png'), fullPage: true });
  await expectAccessible(page);
  await page.getByLabel('Code from your authenticator app').fill(await nextCode(page));
  await page.getByRole('button', { name: 'Continue' }).click();
  const tokens = await oidc.authorizationCodeGrant(config, await callback(), { pkceCodeVerifier: request.codeVerifier, expectedState: request.state, expectedNonce: request.nonce });
  expect(tokens.claims()).toMatchObject({ amr: ['pwd', 'otp', 'mfa'], acr: 'urn:portico:acr:mfa' });
});

test('the central asks for it; a recovery code works once', async ({ page }) => {
  await passwordStep(page, '/central');
  await page.getByTestId('use-recovery-code').click();
  await page.getByLabel('Recovery code').fill(recoveryCodes[0]!);
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByRole('heading', { name: 'Pending requests' })).toBeVisible();

  await page.context().clearCookies();
  await passwordStep(page, '/central');
  await page.getByTestId('use-recovery-code').click();
  await page.getByLabel('Recovery code').fill(recoveryCodes[0]!);
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByTestId('second-factor-error')).toContainText('not right');
});

test('one step to decide: the code typed at the central’s sign-in confirms the next approvals for five minutes', async ({ page, browser }, testInfo) => {
  test.setTimeout(180_000);
  // The demo's owner makes this person an operator of Vault for this test (removed at its end).
  const ownerContext = await browser.newContext({ baseURL: E2E_ISSUER });
  const consolePage = await ownerContext.newPage();
  await consoleSignIn(consolePage, DEMO);
  await consolePage.goto('/console/demo/apps');
  await consolePage.getByRole('link', { name: ROCKETS.vault.appName, exact: true }).click();
  await consolePage.getByRole('navigation', { name: 'App sections' }).getByRole('link', { name: 'Operators' }).click();
  const operators = consolePage.getByTestId('app-operators');
  await operators.getByLabel('Member').selectOption((await operators.locator('option', { hasText: PERSON.email }).getAttribute('value'))!);
  await operators.getByRole('button', { name: 'Add operator' }).click();
  await expect(operators.getByTestId('add-operator').getByTestId('action-ok')).toBeVisible();
  try {
    // An agent asks for work access to Vault (the MCP SDK's client on Portico's /api/mcp).
    const token = await accessTokenThroughConsent(await ownerContext.newPage(), E2E_ISSUER, { resource: `${E2E_ISSUER}/api/mcp`, scope: 'mcp', person: ROCKETS.member });
    const agent = new Client({ name: 'ledger-agent', version: '1.0.0' });
    await agent.connect(new StreamableHTTPClientTransport(new URL(`${E2E_ISSUER}/api/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    const ask = async () =>
      (await agent.callTool({ name: 'permissions.request_sensitive_access', arguments: { org: 'demo', app: 'vault', resource: '/ledgers/close', profile: 'work', duration_seconds: 1800, reason: 'month-end close' } })).structuredContent as Record<string, string>;
    const first = await ask();

    // The link of the mail: password, then the code, then the request.
    await passwordStep(page, first.operator_approval_url!);
    await page.getByLabel('Code from your authenticator app').fill(await nextCode(page));
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect(page.getByTestId('central-request')).toHaveAttribute('data-request-id', first.request_id!);
    // No second code (the one just typed could not be used twice): the sign-in's counts, and the page says until when.
    await expect(page.getByTestId('step-up-covered')).toContainText('The authenticator code you signed in with counts as your confirmation until');
    await expect(page.getByLabel(/code of your authenticator app/)).toHaveCount(0);
    await page.screenshot({ path: testInfo.outputPath('central-step-up-covered-en.png'), fullPage: true });
    await expectAccessible(page);
    const reader = await sameSessionsIn(browser, page.context(), 'pt-BR');
    await reader.goto(first.operator_approval_url!);
    await expect(reader.getByTestId('step-up-covered')).toContainText('O código do autenticador com que você entrou vale como sua confirmação até');
    await reader.setViewportSize({ width: 390, height: 844 });
    await expectNoSidewaysScroll(reader, 'the request page with the sign-in’s step-up');
    await reader.screenshot({ path: testInfo.outputPath('central-step-up-covered-pt-BR-390.png'), fullPage: true });
    await reader.context().close();
    await page.getByRole('button', { name: 'Approve' }).click();
    await expect(page.getByTestId('decision-result')).toHaveAttribute('data-state', 'approved');

    // The next request within the window: one click again.
    const second = await ask();
    await page.goto(second.operator_approval_url!);
    await page.getByRole('button', { name: 'Approve' }).click();
    await expect(page.getByTestId('decision-result')).toHaveAttribute('data-state', 'approved');
    await agent.close();
  } finally {
    await consolePage.reload();
    await operators.locator('li').filter({ hasText: PERSON.email }).getByRole('button').click();
    await expect(operators.locator('li').filter({ hasText: PERSON.email })).toHaveCount(0);
  }
});
