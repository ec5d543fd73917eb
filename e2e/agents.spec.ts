// The console's Agents page and the agents REST API: create, grant, connect with an explicit mode (none is
// refused), and the same rules over REST.
import { expect, test } from './support/test';
import { E2E_ISSUER, lanePort } from './support/constants';
import { consoleSignIn } from './support/console';
import { FLIGHT_DECK, ROCKETS } from './support/fixtures';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { decodeJwt } from 'jose';
import { confirmed } from './support/confirmation';
import { startFlightDeck } from './support/flight-deck';
import { accessTokenThroughConsent, connectWithOAuth, PageOAuthProvider } from './support/mcp-oauth';

const ENGINEER = FLIGHT_DECK.engineer; // an admin of Acme Rockets


test.describe.configure({ mode: 'serial' });

test('an admin creates an agent, grants it a scope and connects it — only with an explicit mode', async ({ page }, testInfo) => {
  await consoleSignIn(page, ENGINEER, /\/console\/acme-rockets\/apps$/);
  await page.getByRole('link', { name: 'Agents' }).click();
  await expect(page.getByRole('heading', { name: 'Agents' })).toBeVisible();
  await page.getByTestId('create-agent').getByLabel('Agent name').fill('Release bot');
  await page.getByTestId('create-agent').getByRole('button', { name: 'Create agent' }).click();
  const agent = page.getByTestId('agent-Release bot');
  await expect(agent).toBeVisible();

  // The picker offers each app's catalog, by scope and description (no free text).
  await agent.getByLabel('Permission', { exact: true }).selectOption({ label: 'deploy:run — Run deployments' });
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
  const provider = new PageOAuthProvider(`http://127.0.0.1:${lanePort(4994)}/callback`, { clientName: 'Agents REST client' });
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

  // Granting is what the agents.grant tool does: held for a human's confirmation, then run once.
  const grant = (extra: Record<string, unknown>) => call('POST', `/${id}/grants`, { app_id: ROCKETS.appId, scope: 'launch', ...extra });
  expect((await confirmed(page, ENGINEER, grant)).status).toBe(201);
  const listed = (await (await call('GET', '')).json()) as { agents: { id: string; grants: unknown[]; connections: unknown[] }[] };
  expect(listed.agents.find((agent) => agent.id === id)).toMatchObject({ grants: [{ app_id: ROCKETS.appId, scope: 'launch' }], connections: [{ mode: 'own' }] });

  expect((await call('DELETE', `/${id}`)).status).toBe(200);
  expect((await call('DELETE', `/${id}`)).status).toBe(404);
  expect((await fetch(`${E2E_ISSUER}/api/v1/orgs/acme-rockets/agents`)).status).toBe(401);
});

test('own mode end to end: Portico issues the agent a short access token, the app sees the agent; deleted, it gets none', async ({ page }) => {
  const app = await startFlightDeck();
  try {
    // A token the engineer granted agents:tokens to, by name on the consent screen.
    const token = await accessTokenThroughConsent(page, E2E_ISSUER, { resource: `${E2E_ISSUER}/api/mcp`, scope: 'mcp agents:tokens', person: ENGINEER });
    const rest = (method: string, path: string, body?: unknown) =>
      fetch(`${E2E_ISSUER}/api/v1/orgs/acme-rockets${path}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });

    const { id: agentId } = (await (await rest('POST', '/agents', { name: 'Flight helper' })).json()) as { id: string };
    expect((await confirmed(page, ENGINEER, (extra) => rest('POST', `/agents/${agentId}/grants`, { app_id: FLIGHT_DECK.appId, scope: 'mcp', ...extra }))).status).toBe(201);
    const { id: connectionId } = (await (await rest('POST', `/agents/${agentId}/connections`, { app_id: FLIGHT_DECK.appId, mode: 'own' })).json()) as { id: string };

    // An MCP client's ordinary token (scope mcp) may not obtain agent tokens.
    const provider = new PageOAuthProvider(`http://127.0.0.1:${lanePort(4994)}/callback`, { clientName: 'Plain MCP client' });
    await page.context().clearCookies();
    await (await connectWithOAuth(page, `${E2E_ISSUER}/api/mcp`, provider, ENGINEER)).close();
    const plain = await fetch(`${E2E_ISSUER}/api/v1/orgs/acme-rockets/agent-tokens`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${provider.tokens()!.access_token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ connection_id: connectionId }),
    });
    expect(plain.status).toBe(403);
    expect(plain.headers.get('www-authenticate')).toContain('error="insufficient_scope"');

    const issued = await rest('POST', '/agent-tokens', { connection_id: connectionId });
    expect(issued.status).toBe(200);
    const tokens = (await issued.json()) as Record<string, unknown>;
    expect(Object.keys(tokens).sort()).toEqual(['access_token', 'expires_in', 'issued_token_type', 'scope', 'token_type']);
    expect(decodeJwt(String(tokens.access_token))).toMatchObject({ sub: agentId, aud: FLIGHT_DECK.identity, scope: 'mcp' });

    const client = new Client({ name: 'agent-runtime', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(FLIGHT_DECK.resource), { requestInit: { headers: { Authorization: `Bearer ${String(tokens.access_token)}` } } }));
    const result = await client.callTool({ name: 'whoami' });
    expect(JSON.parse((result.content as { text: string }[])[0]!.text)).toMatchObject({ sub: agentId, act: null });
    await client.close();

    // Disabled: no new token. Deleted: the connection is gone with it.
    expect((await rest('PATCH', `/agents/${agentId}`, { disabled: true })).status).toBe(200);
    const refused = await rest('POST', '/agent-tokens', { connection_id: connectionId });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: string }).error).toBe('invalid_grant');
    expect((await rest('DELETE', `/agents/${agentId}`)).status).toBe(200);
    expect((await rest('POST', '/agent-tokens', { connection_id: connectionId })).status).toBe(404);

    // Delegated to the engineer: the engineer (and nobody else) gets a token whose subject is the engineer.
    const engineerId = String(decodeJwt(token).sub);
    const { id: helperId } = (await (await rest('POST', '/agents', { name: 'Engineer helper' })).json()) as { id: string };
    const delegated = (await (await rest('POST', `/agents/${helperId}/connections`, { app_id: FLIGHT_DECK.appId, mode: 'delegated', delegate_user_id: engineerId })).json()) as { id: string };
    const delegatedToken = await rest('POST', '/agent-tokens', { connection_id: delegated.id });
    expect(delegatedToken.status).toBe(200);
    expect(decodeJwt(String(((await delegatedToken.json()) as { access_token: string }).access_token))).toMatchObject({ sub: engineerId, act: { sub: helperId } });
  } finally {
    await app.close();
  }
});

test("the consent screen opens with the agent connected to the app for that person pre-selected", async ({ page }) => {
  const provider = new PageOAuthProvider(`http://127.0.0.1:${lanePort(4994)}/callback`, { clientName: 'Preselect admin client' });
  await (await connectWithOAuth(page, `${E2E_ISSUER}/api/mcp`, provider, ENGINEER)).close();
  const token = provider.tokens()!.access_token;
  const rest = (method: string, path: string, body?: unknown) =>
    fetch(`${E2E_ISSUER}/api/v1/orgs/acme-rockets${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
  const { agents } = (await (await rest('GET', '/agents')).json()) as { agents: { id: string; owner_id: string }[] };
  const pilotId = agents.find((agent) => agent.id === FLIGHT_DECK.copilot.id)!.owner_id;
  const created = await rest('POST', `/agents/${FLIGHT_DECK.copilot.id}/connections`, { app_id: FLIGHT_DECK.appId, mode: 'delegated', delegate_user_id: pilotId });
  expect(created.status).toBe(201);
  const { id: connectionId } = (await created.json()) as { id: string };
  try {
    await page.context().clearCookies();
    const client = new PageOAuthProvider(`http://127.0.0.1:${lanePort(4994)}/callback`, { clientName: 'Preselected client' });
    const app = await startFlightDeck();
    try {
      const connected = await connectWithOAuth(page, FLIGHT_DECK.resource, client, {
        ...ROCKETS.member,
        async onConsent(consent) {
          await expect(consent.locator(`input[name="actor"][value="${FLIGHT_DECK.copilot.id}"]`)).toBeChecked();
          await expect(consent.getByTestId('who-acts')).toContainText('connected to this app for you');
        },
      });
      await connected.close();
      expect(decodeJwt(client.tokens()!.access_token).act).toEqual({ sub: FLIGHT_DECK.copilot.id });
    } finally {
      await app.close();
    }
  } finally {
    expect((await rest('DELETE', `/agents/${FLIGHT_DECK.copilot.id}/connections/${connectionId}`)).status).toBe(200);
  }
});
