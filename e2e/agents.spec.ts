// The console's Agents page and the agents REST API: create, grant, connect with an explicit mode (none is
// refused), and the same rules over REST.
import { expect, test, type Page } from '@playwright/test';
import { E2E_ISSUER } from './support/constants';
import { FLIGHT_DECK, ROCKETS } from './support/fixtures';
import { connectWithOAuth, PageOAuthProvider } from './support/mcp-oauth';

const ENGINEER = FLIGHT_DECK.engineer; // an admin of Acme Rockets

async function consoleSignIn(page: Page) {
  await page.goto('/console/login');
  await page.getByLabel('Email').fill(ENGINEER.email);
  await page.getByLabel('Password').fill(ENGINEER.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/console\/acme-rockets\/apps$/);
}

test.describe.configure({ mode: 'serial' });

test('an admin creates an agent, grants it a scope and connects it — only with an explicit mode', async ({ page }, testInfo) => {
  await consoleSignIn(page);
  await page.getByRole('link', { name: 'Agents' }).click();
  await expect(page.getByRole('heading', { name: 'Agents' })).toBeVisible();
  await page.getByTestId('create-agent').getByLabel('Agent name').fill('Release bot');
  await page.getByTestId('create-agent').getByRole('button', { name: 'Create agent' }).click();
  const agent = page.getByTestId('agent-Release bot');
  await expect(agent).toBeVisible();

  await agent.getByLabel('App').first().selectOption({ label: FLIGHT_DECK.appName });
  await agent.getByLabel('Scope').fill('deploy:run');
  await agent.getByRole('button', { name: 'Grant' }).click();
  await expect(agent).toContainText(`${FLIGHT_DECK.appName}: deploy:run`);

  const connect = page.getByTestId('connect-Release bot');
  await connect.getByLabel('App').selectOption({ label: FLIGHT_DECK.appName });
  await connect.getByRole('button', { name: 'Connect' }).click();
  await expect(connect.getByTestId('action-error')).toBeVisible(); // no mode chosen: refused
  await expect(agent).toContainText('Not connected to any app.');

  await connect.getByRole('radio', { name: /Delegated/ }).check();
  await connect.getByRole('button', { name: 'Connect' }).click();
  await expect(connect.getByTestId('action-error')).toBeVisible(); // delegated without a person: refused

  await connect.getByRole('radio', { name: /Own/ }).check();
  await connect.getByRole('button', { name: 'Connect' }).click();
  await expect(agent.getByTestId(`connection-${FLIGHT_DECK.appName}`)).toContainText('own mode');
  await page.screenshot({ path: testInfo.outputPath('console-agents.png'), fullPage: true });
});

test('REST: the same rules for agents and connections', async ({ page }) => {
  const provider = new PageOAuthProvider('http://127.0.0.1:4994/callback', { clientName: 'Agents REST client' });
  const client = await connectWithOAuth(page, `${E2E_ISSUER}/api/mcp`, provider, ENGINEER);
  await client.close();
  const token = provider.tokens()!.access_token;
  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${E2E_ISSUER}/api/v1/orgs/acme-rockets/agents${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });

  const created = await call('POST', '', { name: 'REST agent' });
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as { id: string };
  expect(id).toMatch(/^agt_/);

  for (const [body, fragment] of [
    [{ app_id: FLIGHT_DECK.appId }, 'mode'],
    [{ app_id: FLIGHT_DECK.appId, mode: 'own', delegate_user_id: '00000000-0000-4000-8000-000000000000' }, ''],
    [{ app_id: FLIGHT_DECK.appId, mode: 'delegated' }, ''],
    [{ app_id: FLIGHT_DECK.appId, mode: 'sometimes' }, 'mode'],
  ] as const) {
    const refused = await call('POST', `/${id}/connections`, body);
    expect(refused.status, JSON.stringify(body)).toBe(400);
    const error = (await refused.json()) as { error: string; error_description: string };
    expect(error.error).toBe('invalid_request');
    expect(error.error_description).toContain(fragment);
  }
  const connected = await call('POST', `/${id}/connections`, { app_id: FLIGHT_DECK.appId, mode: 'own' });
  expect(connected.status).toBe(201);
  expect(await connected.json()).toMatchObject({ app_id: FLIGHT_DECK.appId, mode: 'own', delegate_user_id: null });
  expect((await call('POST', `/${id}/connections`, { app_id: FLIGHT_DECK.appId, mode: 'own' })).status).toBe(409);

  expect((await call('POST', `/${id}/grants`, { app_id: ROCKETS.appId, scope: 'launch' })).status).toBe(201);
  const listed = (await (await call('GET', '')).json()) as { agents: { id: string; grants: unknown[]; connections: unknown[] }[] };
  expect(listed.agents.find((agent) => agent.id === id)).toMatchObject({ grants: [{ app_id: ROCKETS.appId, scope: 'launch' }], connections: [{ mode: 'own' }] });

  expect((await call('DELETE', `/${id}`)).status).toBe(200);
  expect((await call('DELETE', `/${id}`)).status).toBe(404);
  expect((await fetch(`${E2E_ISSUER}/api/v1/orgs/acme-rockets/agents`)).status).toBe(401);
});
