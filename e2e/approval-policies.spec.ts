// Approval policies end to end: the owner sets "2 of these people" for root requests on one app (a quorum that
// could never be reached is refused next to its field, and the form keeps what was ticked); an agent's root request
// then goes to the central instead of the CLI and is mailed to both deciders over SMTP; the first approval (with
// step-up) is recorded as "1 of 2" and shows in the second decider's inbox; the second approval grants, once.
import { expect, test, type Browser } from './support/test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { DEMO, E2E_ISSUER } from './support/constants';
import { consoleSignIn } from './support/console';
import { ROCKETS } from './support/fixtures';
import { linkPath, waitForMail } from './support/mail';
import { accessTokenThroughConsent } from './support/mcp-oauth';
import { expectAccessible } from './support/accessibility';

const PILOT = ROCKETS.member;
const SECOND = ROCKETS.outsider;

/** One decider approves in the central, in a browser of their own, with their password typed again. */
async function approveInCentral(browser: Browser, person: { email: string; password: string }, path: string) {
  const context = await browser.newContext({ baseURL: E2E_ISSUER });
  const central = await context.newPage();
  await central.goto('/central');
  await central.getByLabel('Email').fill(person.email);
  await central.getByLabel('Password').fill(person.password);
  await central.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(central.getByTestId('central-operator')).toHaveText(person.email);
  await central.goto(path);
  await central.getByLabel(/Your password, again/).fill(person.password);
  await central.getByRole('button', { name: 'Approve' }).click();
  return { central, context };
}

test('a root request under "2 of these people" is mailed to both, recorded as 1 of 2, and granted by the second', async ({ page, browser }, testInfo) => {
  test.setTimeout(180_000);
  await consoleSignIn(page, DEMO);
  await page.goto('/console/demo/settings/approvals');
  const form = page.getByTestId('set-policy');
  try {
    await form.getByLabel('Applies to').selectOption({ label: ROCKETS.vault.appName });
    await form.getByLabel('Requests').selectOption('root');
    await form.getByLabel('Deciders').selectOption('people');
    await form.getByRole('checkbox', { name: DEMO.email }).check();
    await form.getByRole('checkbox', { name: SECOND.email }).check();
    await form.getByLabel('Approvals needed').fill('3');
    await form.getByRole('button', { name: 'Save policy' }).click();
    await expect(page.getByTestId('field-error-field-quorum')).toHaveText('Only 2 people are named, so 2 approvals are the most that can be asked.');
    await expect(form.getByRole('checkbox', { name: SECOND.email })).toBeChecked();
    await expect(form.getByLabel('Deciders')).toHaveValue('people');
    await form.getByLabel('Approvals needed').fill('2');
    await form.getByRole('button', { name: 'Save policy' }).click();
    await expect(form.getByTestId('action-ok')).toBeVisible();
    await page.reload();
    await expect(page.getByTestId('approval-policies').locator('tr[data-kind="root"]')).toContainText(ROCKETS.vault.appName);
    await expectAccessible(page);
    await page.screenshot({ path: testInfo.outputPath('approval-policies.png'), fullPage: true });

    // The agent asks; the policy sends the request to the central.
    const since = Date.now();
    const agentContext = await browser.newContext({ baseURL: E2E_ISSUER });
    const token = await accessTokenThroughConsent(await agentContext.newPage(), E2E_ISSUER, { resource: `${E2E_ISSUER}/api/mcp`, scope: 'mcp', person: PILOT });
    const agent = new Client({ name: 'ledger-agent', version: '1.0.0' });
    await agent.connect(new StreamableHTTPClientTransport(new URL(`${E2E_ISSUER}/api/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    const call = async (name: string, args: Record<string, unknown>) => (await agent.callTool({ name, arguments: args })).structuredContent as Record<string, string>;
    const root = await call('permissions.request_root_access', { org: 'demo', app: 'vault', reason: 'reindex <b>everything</b>', duration_seconds: 1800 });
    expect(root.approval_channel).toBe('central');
    const path = `/central/requests/${root.request_id}`;

    // Both deciders are mailed the link; it carries nothing but the request's address.
    for (const person of [DEMO, SECOND]) {
      const mail = await waitForMail(person.email, /root access to Vault/, since);
      expect(linkPath(mail)).toBe(path);
      expect(mail.text).toContain('“reindex <b>everything</b>”');
    }

    // The first decider: recorded, not granted.
    const first = await approveInCentral(browser, DEMO, path);
    await expect(first.central.getByTestId('decision-result')).toHaveAttribute('data-state', 'pending');
    await expect(first.central.getByTestId('decision-result')).toContainText('waits for the other deciders');
    // One source for the count: the summary on the same page, without a reload, already counts this approval.
    await expect(first.central.getByTestId('request-votes')).toContainText(`1 of 2 approvals`);
    await expect(first.central.getByTestId('request-votes')).toContainText(`Approved by ${DEMO.email}`);
    await first.central.reload();
    await expect(first.central.getByTestId('request-votes')).toContainText(`1 of 2 approvals`);
    await expect(first.central.getByTestId('request-votes')).toContainText(`Approved by ${DEMO.email}`);
    await expect(first.central.getByTestId('request-policy')).toContainText('It needs 2 approvals from different people');
    await expect(first.central.getByTestId('request-state')).toContainText('it waits for one more approval');
    await first.central.screenshot({ path: testInfo.outputPath('central-quorum.png'), fullPage: true });
    expect((await call('permissions.approval_status', { request_id: root.request_id })).status).toBe('pending');
    await first.context.close();

    // The second decider sees it in their inbox (and its count in the console's header).
    const secondContext = await browser.newContext({ baseURL: E2E_ISSUER });
    const secondConsole = await secondContext.newPage();
    await consoleSignIn(secondConsole, SECOND);
    await secondConsole.goto('/console/demo/members');
    await expect(secondConsole.getByTestId('inbox-link')).toContainText(/\d/);
    await secondConsole.getByTestId('inbox-link').click();
    await expect(secondConsole.getByTestId('inbox-requests')).toContainText('1 of 2 approvals');
    await expectAccessible(secondConsole);
    await secondConsole.screenshot({ path: testInfo.outputPath('inbox.png'), fullPage: true });

    const second = await approveInCentral(browser, SECOND, path);
    await expect(second.central.getByTestId('decision-result')).toHaveAttribute('data-state', 'approved');
    // Decided: the summary counts both approvals and shows no countdown any more.
    await expect(second.central.getByTestId('request-votes')).toContainText(`2 of 2 approvals`);
    await expect(second.central.getByTestId('request-expiry')).toHaveCount(0);
    expect((await call('permissions.approval_status', { request_id: root.request_id })).status).toBe('approved');
    // A decider of the request may revoke what it granted (and the specs after this one expect no root grant).
    await second.central.reload();
    await second.central.getByRole('button', { name: 'Revoke grant' }).click();
    await second.central.getByRole('button', { name: 'Yes, revoke' }).click();
    await expect(second.central.getByTestId('revoke-result')).toBeVisible();
    expect((await call('permissions.approval_status', { request_id: root.request_id })).status).toBe('grant_revoked');
    await second.context.close();
    await agent.close();
    await Promise.all([agentContext.close(), secondContext.close()]);
  } finally {
    // Other specs expect root requests to be the CLI's.
    await page.goto('/console/demo/settings/approvals');
    const row = page.getByTestId('approval-policies').locator('tr[data-kind="root"]');
    if (await row.count()) {
      await row.getByRole('button', { name: 'Remove' }).click();
      await row.getByRole('button', { name: 'Yes, remove it' }).click();
      await expect(page.getByTestId('approval-policies')).toHaveCount(0);
    }
  }
});
