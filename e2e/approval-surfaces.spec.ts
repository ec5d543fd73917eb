// The approval inside the chat client. The e2e Portico runs with PORTICO_APPROVAL_SURFACE=adaptive and lists one
// test MCP host (https://127.0.0.1:4989) in PORTICO_OPERATOR_FRAME_ANCESTORS. The agent's side is the MCP SDK's
// client advertising the MCP Apps extension; the host is a page with the ext-apps AppBridge that renders Portico's
// view in the minimal sandbox. The operator signs in inside the frame (Enter, no form submission) and decides there;
// a host on another origin gets no frame but keeps the link; the external central refuses every frame.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { expect, test, type Page } from './support/test';
import { FRAME_READY_TIMEOUT_MS } from '../lib/mcp/approval-view/timing';
import { DEMO, E2E_ISSUER, FOREIGN_HOST_PORT, MCP_HOST_PORT } from './support/constants';
import { ROCKETS } from './support/fixtures';
import { startMcpHost, type McpHost } from './support/mcp-host';
import { accessTokenThroughConsent } from './support/mcp-oauth';
import { confirmInPortico } from './support/confirmation';

const VIEW_URI = 'ui://portico/authorizations-v1.html';
const CONFIRMATION_VIEW_URI = 'ui://portico/confirmations-v1.html';
const PILOT = ROCKETS.member;
const FULL_HOST = { openLinks: {}, serverTools: {}, sandbox: { csp: { frameDomains: [E2E_ISSUER] } } };

test.use({ ignoreHTTPSErrors: true });

async function agentWithViews(page: Page, person: { email: string; password: string } = PILOT): Promise<Client> {
  const token = await accessTokenThroughConsent(page, E2E_ISSUER, { resource: `${E2E_ISSUER}/api/mcp`, scope: 'mcp', person });
  const agent = new Client({ name: 'chat-with-views', version: '1.0.0' }, { capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } } as ClientCapabilities });
  await agent.connect(new StreamableHTTPClientTransport(new URL(`${E2E_ISSUER}/api/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return agent;
}

async function askInView(agent: Client, resource: string) {
  const result = await agent.callTool({ name: 'permissions.request_sensitive_access', arguments: { org: 'demo', app: 'vault', resource, profile: 'read', duration_seconds: 1800, reason: 'reconcile in chat' } });
  const viewHtml = ((await agent.readResource({ uri: VIEW_URI })).contents[0] as { text: string }).text;
  return { result, fields: result.structuredContent as Record<string, string>, viewHtml };
}

test('an MCP host on an allowed origin frames the view and the embedded central: sign-in and decision work inside', async ({ page, browser }, testInfo) => {
  const agent = await agentWithViews(page);
  const { result, fields, viewHtml } = await askInView(agent, '/ledgers/chat');
  expect(result._meta).toMatchObject({ ui: { resourceUri: VIEW_URI } });
  expect(fields).toMatchObject({ approval_channel: 'mcp_app', embedded_central_url: `${E2E_ISSUER}/embedded-central/requests/${fields.request_id}` });

  const host: McpHost = await startMcpHost(MCP_HOST_PORT, { client: agent, viewHtml, toolResult: result, hostCapabilities: FULL_HOST });
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  try {
    const chat = await context.newPage();
    await chat.goto(`${host.origin}/`);
    const view = chat.frameLocator('#view');
    await expect(view.locator('#request-id')).toHaveText(fields.request_id!);
    await expect(view.locator('#approval-url')).toHaveValue(fields.operator_approval_url!);
    await expect(view.locator('#status')).toHaveText('pending');

    // The operator signs in inside the frame, with Enter: the sandbox has no allow-forms.
    const central = view.frameLocator('#central-frame');
    await expect(central.getByTestId('embedded-sign-in')).toBeVisible();
    await chat.screenshot({ path: testInfo.outputPath('mcp-host-sign-in.png'), fullPage: true });
    await central.getByLabel('Email').fill(DEMO.email);
    await central.getByLabel('Password').fill(DEMO.password);
    const signIn = chat.waitForResponse((response) => response.url() === `${E2E_ISSUER}/embedded-central/api/session` && response.request().method() === 'POST');
    await central.getByLabel('Password').press('Enter');
    const setCookie = await (await signIn).headerValue('set-cookie');
    expect(setCookie).toMatch(/^portico_central_embedded=[A-Za-z0-9_-]{43}; Path=\/embedded-central; HttpOnly; Secure; SameSite=None; Partitioned; Max-Age=900$/);
    await expect(central.getByTestId('central-operator')).toHaveText(DEMO.email);
    await expect(central.getByTestId('request-access')).toContainText('read access to /ledgers/chat');
    await chat.screenshot({ path: testInfo.outputPath('mcp-host-embedded-central.png'), fullPage: true });

    await central.getByLabel('I have read what is asked, and I approve it.').check();
    await central.getByRole('button', { name: 'Approve' }).click();
    await expect(central.getByTestId('decision-result')).toHaveAttribute('data-state', 'approved');
    // The view reads the status through the host (serverTools), never by itself.
    await expect(view.locator('#status')).toHaveText('approved', { timeout: 15_000 });
    expect(await chat.evaluate(() => window.porticoHost.toolCalls)).toContain('permissions.approval_status');
    const status = await agent.callTool({ name: 'permissions.approval_status', arguments: { request_id: fields.request_id } });
    expect((status.structuredContent as Record<string, string>).status).toBe('approved');

    // ui/open-link only after a click, and only because the host advertised openLinks.
    expect(await chat.evaluate(() => window.porticoHost.openedLinks)).toEqual([]);
    await view.getByRole('button', { name: 'Open in the browser' }).click();
    await expect.poll(() => chat.evaluate(() => window.porticoHost.openedLinks)).toEqual([fields.operator_approval_url]);
    await chat.screenshot({ path: testInfo.outputPath('mcp-host-approved.png'), fullPage: true });

    // The embedded session is the frame's only: the external central does not know it.
    const cookies = await context.cookies(E2E_ISSUER);
    expect(cookies.map((cookie) => cookie.name)).not.toContain('portico_central');
  } finally {
    await context.close();
    await host.close();
    await agent.close();
  }
});

test('a host that advertises less gets less: no frame, no open-link button, no status calls; the link stays', async ({ page, browser }, testInfo) => {
  const agent = await agentWithViews(page);
  const { result, fields, viewHtml } = await askInView(agent, '/ledgers/plain');
  const minimal = await startMcpHost(MCP_HOST_PORT, { client: agent, viewHtml, toolResult: result, hostCapabilities: {} });
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  try {
    const chat = await context.newPage();
    await chat.goto(`${minimal.origin}/`);
    const view = chat.frameLocator('#view');
    await expect(view.locator('#approval-url')).toHaveValue(fields.operator_approval_url!);
    await expect(view.locator('#status-note')).toContainText('Ask the agent');
    await expect(view.getByRole('button', { name: 'Open in the browser' })).toBeHidden();
    await expect(view.locator('#central-frame')).toHaveCount(0);
    expect(await chat.evaluate(() => window.porticoHost.toolCalls)).toEqual([]);
    await expect(view.locator('#cli')).toHaveText(`npm run portico -- approvals show ${fields.request_id}`);
    await chat.screenshot({ path: testInfo.outputPath('mcp-host-minimal.png'), fullPage: true });
  } finally {
    await minimal.close();
  }

  // Booleans, lists and text where objects are expected: the bridge refuses the handshake, and the view keeps the
  // central's link and the CLI on screen.
  const malformed = await startMcpHost(MCP_HOST_PORT, { client: agent, viewHtml, toolResult: result, hostCapabilities: { openLinks: true, serverTools: ['tools/call'], sandbox: { csp: { frameDomains: E2E_ISSUER } } } });
  try {
    const chat = await context.newPage();
    await chat.goto(`${malformed.origin}/`);
    const view = chat.frameLocator('#view');
    await expect(view.locator('#note')).toContainText('did not connect', { timeout: 15_000 });
    await expect(view.getByRole('link', { name: `${E2E_ISSUER}/central` })).toBeVisible();
    await expect(view.locator('#cli')).toContainText('npm run portico -- approvals');
    await expect(view.locator('#central-frame')).toHaveCount(0);
    expect(await chat.evaluate(() => window.porticoHost.toolCalls)).toEqual([]);
    await chat.screenshot({ path: testInfo.outputPath('mcp-host-malformed.png'), fullPage: true });
  } finally {
    await context.close();
    await malformed.close();
    await agent.close();
  }
});

test('a host on an origin that is not listed cannot frame the embedded central: the view falls back to the link', async ({ page, browser }, testInfo) => {
  const agent = await agentWithViews(page);
  const { result, fields, viewHtml } = await askInView(agent, '/ledgers/foreign');
  const host = await startMcpHost(FOREIGN_HOST_PORT, { client: agent, viewHtml, toolResult: result, hostCapabilities: FULL_HOST });
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  // The view's own clock: its wait for the framed central's "ready" is jumped over, not waited for.
  await context.clock.install();
  try {
    const chat = await context.newPage();
    const refused = chat.waitForResponse((response) => response.url().startsWith(`${E2E_ISSUER}/embedded-central/requests/`));
    await chat.goto(`${host.origin}/`);
    const csp = (await refused).headers()['content-security-policy'];
    expect(csp).toContain(`frame-ancestors https://127.0.0.1:${MCP_HOST_PORT}`);
    expect(csp).not.toContain(String(FOREIGN_HOST_PORT));
    const view = chat.frameLocator('#view');
    // The browser blocks the frame; the view hears no "ready" within its wait and removes the frame.
    await expect(view.locator('#central-frame')).toHaveCount(1);
    await expect(view.locator('#note')).not.toContainText('could not be shown here');
    await context.clock.fastForward(FRAME_READY_TIMEOUT_MS);
    await expect(view.locator('#note')).toContainText('could not be shown here');
    await expect(view.locator('#central-frame')).toHaveCount(0);
    await expect(view.locator('#approval-url')).toHaveValue(fields.operator_approval_url!);
    await expect(view.locator('#cli')).toContainText(fields.request_id!);
    await chat.screenshot({ path: testInfo.outputPath('mcp-host-foreign.png'), fullPage: true });

    // The external central refuses every frame, the listed host's too.
    const listed = await startMcpHost(MCP_HOST_PORT, { client: agent, viewHtml, toolResult: result, hostCapabilities: FULL_HOST });
    try {
      const direct = await context.newPage();
      const externalResponse = direct.waitForResponse((response) => response.url() === `${E2E_ISSUER}/central`);
      await direct.goto(`${listed.origin}/frame?src=${encodeURIComponent(`${E2E_ISSUER}/central`)}`);
      const headers = (await externalResponse).headers();
      expect(headers['x-frame-options']).toBe('DENY');
      expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
      await direct.waitForTimeout(1000);
      await expect(direct.frameLocator('#direct').getByText('Operator central')).toHaveCount(0);
      expect(direct.frames().some((frame) => frame.url().startsWith(`${E2E_ISSUER}/central`))).toBe(false);
    } finally {
      await listed.close();
    }
  } finally {
    await context.close();
    await host.close();
    await agent.close();
  }
});

test('a held call is shown by the confirmation view: the person opens Portico’s page on a click, confirms there, and the retry runs once', async ({ page, browser }, testInfo) => {
  const agent = await agentWithViews(page, { email: DEMO.email, password: DEMO.password });
  const { tools } = await agent.listTools();
  expect(tools.find((tool) => tool.name === 'clients.revoke')?._meta).toMatchObject({ ui: { resourceUri: CONFIRMATION_VIEW_URI } });
  const call = (extra: Record<string, unknown> = {}) => agent.callTool({ name: 'clients.revoke', arguments: { org: 'demo', app: 'no-such-app', client_id: 'no-such-client', ...extra } });
  const held = await call();
  const meta = (held._meta as Record<string, Record<string, string>>)['io.portico/confirmation']!;
  expect(meta).toMatchObject({ status: 'confirmation_required', tool: 'clients.revoke' });
  const viewHtml = ((await agent.readResource({ uri: CONFIRMATION_VIEW_URI })).contents[0] as { text: string }).text;

  const host = await startMcpHost(MCP_HOST_PORT, { client: agent, viewHtml, toolResult: held, hostCapabilities: FULL_HOST });
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  try {
    const chat = await context.newPage();
    await chat.goto(`${host.origin}/`);
    const view = chat.frameLocator('#view');
    await expect(view.locator('#tool')).toHaveText('clients.revoke');
    await expect(view.locator('#status')).toHaveText('needs your confirmation');
    await expect(view.locator('#confirmation-url')).toHaveValue(meta.confirmation_url!);
    await chat.screenshot({ path: testInfo.outputPath('mcp-host-confirmation.png'), fullPage: true });
    // The view offers the page on the person's click; nothing it does confirms the call.
    expect(await chat.evaluate(() => window.porticoHost.openedLinks)).toEqual([]);
    await view.getByRole('button', { name: 'Open in the browser' }).click();
    await expect.poll(() => chat.evaluate(() => window.porticoHost.openedLinks)).toEqual([meta.confirmation_url]);
    expect(await chat.evaluate(() => window.porticoHost.toolCalls)).toEqual([]);
    const early = await call({ _confirmation_token: meta.token });
    expect((early._meta as Record<string, Record<string, string>>)['io.portico/confirmation']).toMatchObject({ status: 'waiting' });

    // The person confirms in Portico (their own origin, step-up there); the agent's retry runs once.
    await confirmInPortico(page, meta.confirmation_url!, { email: DEMO.email, password: DEMO.password });
    const ran = await call({ _confirmation_token: meta.token });
    expect(ran._meta?.['io.portico/confirmation']).toBeUndefined();
    expect(JSON.stringify(ran.content)).toContain('clients.revoke');
    expect((await call({ _confirmation_token: meta.token }))._meta).toMatchObject({ 'io.portico/confirmation': { status: 'confirmation_required' } });
  } finally {
    await host.close();
  }

  // A result whose link is not this Portico's confirmation page (another origin): the view shows no link to open.
  const foreignResult = { ...held, _meta: { 'io.portico/confirmation': { ...meta, confirmation_url: `https://evil.example/console/confirm/${meta.confirmation_url!.split('/').pop()}` } } };
  const tampered = await startMcpHost(MCP_HOST_PORT, { client: agent, viewHtml, toolResult: foreignResult, hostCapabilities: FULL_HOST });
  try {
    const chat = await context.newPage();
    await chat.goto(`${tampered.origin}/`);
    const view = chat.frameLocator('#view');
    await expect(view.locator('#summary')).toContainText('did not receive a Portico page');
    await expect(view.locator('#link-section')).toBeHidden();
    await expect(view.getByRole('button', { name: 'Open in the browser' })).toBeHidden();
    await chat.screenshot({ path: testInfo.outputPath('mcp-host-confirmation-foreign.png'), fullPage: true });
  } finally {
    await context.close();
    await tampered.close();
    await agent.close();
  }
});

test('both central sessions set exactly the cookie their surface needs', async ({ request }) => {
  const origin = new URL(E2E_ISSUER).origin;
  const external = await request.post(`${E2E_ISSUER}/central/session`, { headers: { Origin: origin }, form: { email: DEMO.email, password: DEMO.password }, maxRedirects: 0 });
  expect(external.status()).toBe(303);
  // Loopback http issuer: no Secure on the external cookie (it is added for https issuers).
  expect(external.headers()['set-cookie']).toMatch(/^portico_central=[A-Za-z0-9_-]{43}; Path=\/central; HttpOnly; SameSite=Strict; Max-Age=900$/);
  const embedded = await request.post(`${E2E_ISSUER}/embedded-central/api/session`, { headers: { Origin: origin }, data: { email: DEMO.email, password: DEMO.password } });
  expect(embedded.status()).toBe(200);
  expect(embedded.headers()['set-cookie']).toMatch(/^portico_central_embedded=[A-Za-z0-9_-]{43}; Path=\/embedded-central; HttpOnly; Secure; SameSite=None; Partitioned; Max-Age=900$/);
  // Cross-site sign-in (login CSRF) is refused on both.
  expect((await request.post(`${E2E_ISSUER}/embedded-central/api/session`, { headers: { Origin: 'https://evil.example' }, data: { email: DEMO.email, password: DEMO.password } })).status()).toBe(403);
  const signOut = await request.post(`${E2E_ISSUER}/embedded-central/api/session/end`, { headers: { Origin: origin } });
  expect(signOut.headers()['set-cookie']).toBe('portico_central_embedded=; Path=/embedded-central; HttpOnly; Secure; SameSite=None; Partitioned; Max-Age=0');
});
