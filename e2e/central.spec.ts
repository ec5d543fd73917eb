// The approval broker end to end: an agent's client asks for access through Portico's tools, gets a request id and
// an HTTPS link; the operator signs in to the central on their own, sees requests arrive live, opens one by its
// link and decides it — read with an explicit confirmation, work only with the password typed again — and the
// status the agent polls follows the broker.
import { expect, test } from './support/test';
import { DEMO, E2E_ISSUER, lanePort } from './support/constants';
import { ROCKETS } from './support/fixtures';
import { expectNoSidewaysScroll, sameSessionsIn } from './support/layout';
import { accessTokenThroughConsent } from './support/mcp-oauth';
import { createAppKit, defineTool } from '../app-kit';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const PILOT = ROCKETS.member;

test('an agent asks, the operator decides in the central, and the status follows', async ({ page, browser }, testInfo) => {
  // The central's whole story, and an app of another kind asking in the standard way (AuthZEN) at its end.
  test.setTimeout(180_000);
  const token = await accessTokenThroughConsent(page, E2E_ISSUER, { resource: `${E2E_ISSUER}/api/mcp`, scope: 'mcp', person: PILOT });
  // The agent's side is the MCP SDK's own client on Portico's /api/mcp.
  const agent = new Client({ name: 'ledger-agent', version: '1.0.0' });
  await agent.connect(new StreamableHTTPClientTransport(new URL(`${E2E_ISSUER}/api/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  const tool = async (name: string, args: Record<string, unknown>) => {
    const result = await agent.callTool({ name, arguments: args });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    return result.structuredContent as Record<string, string>;
  };
  const ask = (profile: string, resource = '/ledgers/2026', reason = `close the books (${profile})`) =>
    tool('permissions.request_sensitive_access', { org: 'demo', app: 'vault', resource, profile, duration_seconds: 1800, reason });
  const status = async (requestId: string) => (await tool('permissions.approval_status', { request_id: requestId })).status;

  const read = await ask('read');
  expect(read).toMatchObject({ approval_contract_version: '1', approval_channel: 'central', status: 'pending', retry_after_seconds: '3' });
  expect(read.operator_approval_url).toBe(`${E2E_ISSUER}/central/requests/${read.request_id}`);
  const root = await tool('permissions.request_root_access', { org: 'demo', app: 'vault', reason: 'reindex everything' });
  expect(root.approval_channel).toBe('cli');
  expect(root.operator_approval_url).toBeUndefined();

  // The operator, in a browser of their own, signs in to the central independently.
  const operatorContext = await browser.newContext({ baseURL: E2E_ISSUER });
  const central = await operatorContext.newPage();
  const landing = await central.goto('/central');
  expect(landing?.headers()['x-frame-options']).toBe('DENY');
  expect(landing?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
  await central.getByLabel('Email').fill(DEMO.email);
  await central.getByLabel('Password').fill(DEMO.password);
  await central.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(central.getByTestId('central-operator')).toHaveText(DEMO.email);
  await expect(central.locator(`[data-request-id="${read.request_id}"]`)).toBeVisible();
  const cookie = (await operatorContext.cookies()).find((entry) => entry.name === 'portico_central')!;
  expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/central' });
  expect(cookie.expires - Date.now() / 1000).toBeLessThanOrEqual(15 * 60 + 5);

  // A new request shows up without a reload.
  // Its reason carries a right-to-left override: the central shows the character, it does not obey it.
  const work = await ask('work', '/ledgers/2026/q4', 'quarter close \u202Eetirw ylno\u202C');
  await expect(central.locator(`[data-request-id="${work.request_id}"]`)).toBeVisible({ timeout: 10_000 });
  await central.screenshot({ path: testInfo.outputPath('central-pending.png'), fullPage: true });

  // Read: approved with an explicit confirmation, no password.
  await central.goto(read.operator_approval_url!);
  await expect(central.getByTestId('request-access')).toContainText('read access to /ledgers/2026');
  // The page the approval mail opens fits a phone, in both languages: the long client and request IDs break
  // inside the card instead of pushing it past the screen (issue 56, item 4).
  for (const language of ['en', 'pt-BR']) {
    const reader = await sameSessionsIn(browser, operatorContext, language);
    await reader.goto(read.operator_approval_url!);
    await expect(reader.locator('html')).toHaveAttribute('lang', language);
    for (const width of [390, 320]) {
      await reader.setViewportSize({ width, height: 844 });
      await expectNoSidewaysScroll(reader, `the request page in ${language}`);
    }
    await reader.screenshot({ path: testInfo.outputPath(`central-request-${language}-320.png`), fullPage: true });
    await reader.context().close();
  }
  // Who asks through which client, when, and how long is left (counting down).
  await expect(central.getByTestId('request-client')).not.toBeEmpty();
  await expect(central.getByTestId('request-asked').locator('time')).toHaveAttribute('datetime', /^\d{4}-\d{2}-\d{2}T/);
  const left = await central.getByTestId('countdown').textContent();
  expect(left).toMatch(/\d+ (min|s)/);
  await expect.poll(() => central.getByTestId('countdown').textContent(), { timeout: 5_000 }).not.toBe(left);
  // Approve waits for the box.
  await expect(central.getByRole('button', { name: 'Approve' })).toBeDisabled();
  await central.getByLabel('I have read what is asked, and I approve it.').check();
  await expect(central.getByRole('button', { name: 'Approve' })).toBeEnabled();
  await central.screenshot({ path: testInfo.outputPath('central-read-request.png'), fullPage: true });
  await central.getByRole('button', { name: 'Approve' }).click();
  await expect(central.getByTestId('decision-result')).toHaveAttribute('data-state', 'approved');
  await expect(central.getByTestId('back-to-requests')).toHaveAttribute('href', '/central');
  expect(await status(read.request_id!)).toBe('approved');

  // Work: only with the password typed again for this request.
  await central.goto(work.operator_approval_url!);
  await expect(central.getByTestId('request-reason')).toHaveText('quarter close ⟨U+202E⟩etirw ylno⟨U+202C⟩');
  await expect(central.getByRole('button', { name: 'Approve' })).toBeDisabled();
  await central.getByLabel(/Your password, again/).fill('not my password at all');
  await central.getByRole('button', { name: 'Approve' }).click();
  await expect(central.getByTestId('decision-error')).toContainText('not right');
  expect(await status(work.request_id!)).toBe('pending');
  await central.getByLabel(/Your password, again/).fill(DEMO.password);
  await central.getByRole('button', { name: 'Approve' }).click();
  await expect(central.getByTestId('decision-result')).toHaveAttribute('data-state', 'approved');
  await central.screenshot({ path: testInfo.outputPath('central-work-approved.png'), fullPage: true });
  expect(await status(work.request_id!)).toBe('approved');

  // The app asks the broker before the operation, through the kit (signed with its surface secret, which the org
  // owner creates in the app's security tab).
  const consolePage = await operatorContext.newPage();
  await consolePage.goto('/console/login');
  await consolePage.getByLabel('Email').fill(DEMO.email);
  await consolePage.getByLabel('Password').fill(DEMO.password);
  await consolePage.getByRole('button', { name: 'Sign in', exact: true }).click();
  await consolePage.waitForURL(/\/console\/.+\/apps$/);
  await consolePage.goto('/console/demo/apps');
  await consolePage.getByRole('link', { name: ROCKETS.vault.appName, exact: true }).click();
  await consolePage.getByRole('link', { name: 'Security' }).click();
  await consolePage.getByTestId('surface-secret').getByRole('button', { name: /surface secret/ }).click();
  const armed = consolePage.getByTestId('surface-secret').getByRole('button', { name: 'Yes, replace' });
  if (await armed.isVisible()) await armed.click();
  const shown = await consolePage.getByTestId('surface-secret').getByTestId('secret-once').textContent();
  const vault = createAppKit({
    issuer: E2E_ISSUER,
    appIdentity: 'urn:portico:app:vault',
    origin: `http://127.0.0.1:${lanePort(4998)}`,
    clientId: ROCKETS.vault.clientId,
    surfaceSecret: /PORTICO_SURFACE_SECRET=(pss_[A-Za-z0-9_-]+)/.exec(shown ?? '')![1]!,
  });
  const pilotId = (await tool('whoami', {})).sub!;
  expect(await vault.checkGrant({ subject: pilotId, kind: 'sensitive_access', resource: '/ledgers/2026/january.csv', profile: 'read' })).toMatchObject({ granted: true });
  expect(await vault.checkGrant({ subject: pilotId, kind: 'sensitive_access', resource: '/ledgers/2027', profile: 'read' })).toEqual({ granted: false });
  expect(await vault.checkGrant({ subject: pilotId, kind: 'root_access' })).toEqual({ granted: false });

  // Deny: no password. An elevated request is the CLI's: the central only says so.
  const denied = await ask('compose', '/ledgers/drafts');
  await central.goto(denied.operator_approval_url!);
  await central.getByRole('button', { name: 'Deny' }).click();
  await expect(central.getByTestId('decision-result')).toHaveAttribute('data-state', 'denied');
  expect(await status(denied.request_id!)).toBe('denied');
  await central.goto(`/central/requests/${root.request_id}`);
  await expect(central.getByTestId('request-state')).toContainText('with the CLI');
  await expect(central.getByTestId('cli-command')).toContainText(`npm run portico -- approvals approve ${root.request_id}`);
  // The agent may cancel its own pending request; nothing is granted.
  expect((await tool('permissions.cancel_approval', { request_id: root.request_id })).status).toBe('cancelled');
  expect(await status(root.request_id!)).toBe('cancelled');

  // Revocation is explicit, from the central, the console or REST; the next grant check is refused each time.
  await central.goto(read.operator_approval_url!);
  await central.getByRole('button', { name: 'Revoke grant' }).click();
  await central.getByRole('button', { name: 'Yes, revoke' }).click();
  await expect(central.getByTestId('revoke-result')).toBeVisible();
  expect(await status(read.request_id!)).toBe('grant_revoked');
  expect(await vault.checkGrant({ subject: pilotId, kind: 'sensitive_access', resource: '/ledgers/2026/january.csv', profile: 'read' })).toEqual({ granted: false });

  await consolePage.goto('/console/demo/approvals');
  const workRow = consolePage.getByTestId(`approval-${work.request_id}`);
  await expect(workRow.getByTestId('approval-outcome')).toContainText('Granted until');
  await expect(consolePage.getByTestId(`approval-${read.request_id}`).getByTestId('approval-outcome')).toContainText('Revoked');
  await consolePage.screenshot({ path: testInfo.outputPath('console-approvals.png'), fullPage: true });
  await workRow.getByRole('button', { name: 'Revoke' }).click();
  await workRow.getByRole('button', { name: 'Yes, revoke' }).click();
  await expect(workRow.getByTestId('action-ok')).toBeVisible();
  expect(await status(work.request_id!)).toBe('grant_revoked');

  // Decided with the keyboard alone: tick the box with Space, Tab to Approve, Enter.
  const archive = await ask('read', '/ledgers/archive');
  await central.goto(archive.operator_approval_url!);
  await central.getByLabel('I have read what is asked, and I approve it.').focus();
  await central.keyboard.press('Space');
  await central.keyboard.press('Tab');
  await expect(central.getByRole('button', { name: 'Approve' })).toBeFocused();
  await central.keyboard.press('Enter');
  await expect(central.getByTestId('decision-result')).toHaveAttribute('data-state', 'approved');
  // The owner's own API client, authorized in a browser of its own (this page's Portico session is the pilot's).
  const ownerBrowser = await browser.newContext({ baseURL: E2E_ISSUER });
  const ownerToken = await accessTokenThroughConsent(await ownerBrowser.newPage(), E2E_ISSUER, { resource: `${E2E_ISSUER}/api/mcp`, scope: 'mcp', person: DEMO });
  await ownerBrowser.close();
  const listed = (await (await fetch(`${E2E_ISSUER}/api/v1/orgs/demo/approvals`, { headers: { Authorization: `Bearer ${ownerToken}` } })).json()) as { approvals: { request_id: string; grant: { grant_id: string; active: boolean } | null }[] };
  const archiveGrant = listed.approvals.find((entry) => entry.request_id === archive.request_id)!.grant!;
  expect(archiveGrant.active).toBe(true);
  const revokeOverRest = () => fetch(`${E2E_ISSUER}/api/v1/orgs/demo/approvals/grants/${archiveGrant.grant_id}/revoke`, { method: 'POST', headers: { Authorization: `Bearer ${ownerToken}` } });
  // A member who is not the app's operator may not revoke, and sees none of its requests.
  expect((await fetch(`${E2E_ISSUER}/api/v1/orgs/demo/approvals/grants/${archiveGrant.grant_id}/revoke`, { method: 'POST', headers: { Authorization: `Bearer ${token}` } })).status).toBe(404);
  expect(((await (await fetch(`${E2E_ISSUER}/api/v1/orgs/demo/approvals`, { headers: { Authorization: `Bearer ${token}` } })).json()) as { approvals: unknown[] }).approvals).toEqual([]);
  expect((await revokeOverRest()).status).toBe(200);
  expect((await revokeOverRest()).status).toBe(404);
  expect(await status(archive.request_id!)).toBe('grant_revoked');

  // Any app may ask Portico for a decision in the standard way (OpenID AuthZEN 1.0), with nothing but HTTP and its
  // own client's secret; a denial that needs an approval leads into this central (issue 60).
  const metadata = (await (await fetch(`${E2E_ISSUER}/.well-known/authzen-configuration`)).json()) as Record<string, string>;
  expect(metadata.policy_decision_point).toBe(E2E_ISSUER);
  // An app of its own (other tests rotate the Vault's secret and set policies on it): created in the console, its
  // credentials and surface secret copied from the page that shows them once.
  const closerOrigin = 'https://closer.demo.test';
  await consolePage.goto('/console/demo/apps/new');
  await consolePage.getByLabel('Name').fill('Ledger closer');
  await consolePage.getByLabel('Publish address').fill(closerOrigin);
  await consolePage.getByLabel('Redirect URI').fill(`${closerOrigin}/callback`);
  await consolePage.getByTestId('create-app').getByRole('button', { name: 'Create app' }).click();
  const credentials = (await consolePage.getByTestId('secret-once').textContent()) ?? '';
  const closerClientId = /PORTICO_CLIENT_ID=(\S+?)(?=PORTICO_|\s|$)/.exec(credentials)![1]!;
  const closerSecret = /PORTICO_CLIENT_SECRET=(\S+?)(?=PORTICO_|\s|$)/.exec(credentials)![1]!;
  // A web app gets its surface secret with its credentials, shown once on the same page.
  const closerSurface = /PORTICO_SURFACE_SECRET=(pss_[A-Za-z0-9_-]+)/.exec(credentials)![1]!;
  await consolePage.getByTestId('credentials-stored').click();
  const closerBasic = `Basic ${Buffer.from(`${encodeURIComponent(closerClientId)}:${encodeURIComponent(closerSecret)}`).toString('base64')}`;
  const pdp = (url: string, body?: unknown) =>
    fetch(url, { method: body === undefined ? 'GET' : 'POST', headers: { Authorization: closerBasic, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  // The app declares a tool that runs only once approved (the kit's signed declaration).
  const closer = createAppKit({
    issuer: E2E_ISSUER,
    appIdentity: 'urn:portico:app:closer',
    origin: closerOrigin,
    clientId: closerClientId,
    surfaceSecret: closerSurface,
    tools: [defineTool({ name: 'ledgers.close', description: 'Closes the year’s ledgers.', riskLevel: 'approval_required', run: () => ({ content: [{ type: 'text', text: 'closed' }] }) })],
  });
  expect((await closer.declareSurface()).tools).toBe(1);
  const question = { subject: { type: 'user', id: pilotId }, action: { name: 'call' }, resource: { type: 'tool', id: 'ledgers.close' } };
  const evaluate = async (context?: unknown) => (await (await pdp(metadata.access_evaluation_endpoint!, { ...question, ...(context ? { context } : {}) })).json()) as { decision: boolean; context?: Record<string, any> };
  const denial = await evaluate();
  expect(denial.decision).toBe(false);
  expect(denial.context?.reason).toBe('approval_required');
  const submitted = await pdp(metadata.access_request_endpoint!, {
    ...question,
    context: { business_justification: 'year-end close' },
    denial: { evaluation_id: denial.context!.evaluation_id, expires_at: denial.context!.access_request.expires_at, binding_token: denial.context!.access_request.binding_token },
  });
  expect(submitted.status).toBe(202);
  const { task } = (await submitted.json()) as { task: { id: string; status_endpoint: string; links: { review: string } } };
  // The operator decides it in the central like any request: work access, with the password typed again.
  await central.goto(task.links.review);
  await expect(central.getByTestId('request-reason')).toHaveText('year-end close');
  await central.getByLabel(/Your password, again/).fill(DEMO.password);
  await central.getByRole('button', { name: 'Approve' }).click();
  await expect(central.getByTestId('decision-result')).toHaveAttribute('data-state', 'approved');
  const completed = (await (await pdp(task.status_endpoint)).json()) as { task: { status: string }; result: { mode: string; approval: { id: string } } };
  expect(completed.task.status).toBe('approved');
  expect(completed.result.mode).toBe('reevaluate');
  expect((await evaluate({ approval: completed.result.approval })).decision).toBe(true);
  // The grant ends (revoked in the central): the same question is denied again, and may be asked for anew.
  await central.goto(task.links.review);
  await central.getByRole('button', { name: 'Revoke grant' }).click();
  await central.getByRole('button', { name: 'Yes, revoke' }).click();
  await expect(central.getByTestId('revoke-result')).toBeVisible();
  const after = await evaluate({ approval: completed.result.approval });
  expect(after.decision).toBe(false);
  expect(after.context).toMatchObject({ reason: 'approval_expired', next_action: 'request' });

  // A direct, cross-site decision POST is refused; signing out undoes nothing.
  const forged = await fetch(`${E2E_ISSUER}/central/api/decisions`, { method: 'POST', headers: { Origin: 'https://evil.example', 'Content-Type': 'application/json', Cookie: `portico_central=${cookie.value}` }, body: '{}' });
  expect(forged.status).toBe(403);
  await central.goto('/central');
  await central.getByRole('button', { name: 'Sign out' }).click();
  await expect(central.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible();
  expect(await status(denied.request_id!)).toBe('denied');

  // The owner designates operators for the app: then they, not the owners, decide its requests.
  await consolePage.goto('/console/demo/apps');
  await consolePage.getByRole('link', { name: ROCKETS.vault.appName, exact: true }).click();
  await consolePage.getByRole('navigation', { name: 'App sections' }).getByRole('link', { name: 'Operators' }).click();
  const operators = consolePage.getByTestId('app-operators');
  await expect(operators).toContainText('Nobody is designated');
  await operators.getByLabel('Member').selectOption({ label: `Outsider (${ROCKETS.outsider.email})` });
  await operators.getByRole('button', { name: 'Add operator' }).click();
  await expect(operators.getByTestId('add-operator').getByTestId('action-ok')).toBeVisible();
  await expect(operators).toContainText(ROCKETS.outsider.email);
  await consolePage.screenshot({ path: testInfo.outputPath('console-app-operators.png'), fullPage: true });
  const laterRequest = await ask('read', '/ledgers/later');
  await central.goto('/central');
  await central.getByLabel('Email').fill(DEMO.email);
  await central.getByLabel('Password').fill(DEMO.password);
  await central.getByRole('button', { name: 'Sign in', exact: true }).click();
  await central.goto(laterRequest.operator_approval_url!);
  await expect(central.getByTestId('request-not-found')).toBeVisible();

  await operatorContext.close();
  await agent.close();
});
