// The example app on the app kit, end to end against a real Portico: a person signs in to it through Portico
// (OIDC, openid-client); the MCP SDK client onboards itself (registration, consent) and calls tools, including one
// that waits for confirmation; the app declares its surface to Portico; and an admin verifies it from the
// security tab: clean, drift, unsupported and unreachable, each produced for real.
import { expect, test, type Page } from './support/test';
import { createHash, randomBytes } from 'node:crypto';
import { APP_KIT_CONTRACT_VERSION } from '../app-kit';
import { CONFIRMATIONS_PATH, DECLARATION_PATH, signRequest } from '../app-kit/surface';
import { E2E_ISSUER, lanePort } from './support/constants';
import { consoleSignIn } from './support/console';
import { FLIGHT_DECK, ROCKETS } from './support/fixtures';
import { startFlightDeck, type ExampleApp } from './support/flight-deck';
import { connectWithOAuth, PageOAuthProvider } from './support/mcp-oauth';
import { fillSignIn } from './support/relying-party';
import { undeclaredExportTool } from '../examples/notes/tools';
import { expectAccessible } from './support/accessibility';

const PILOT = ROCKETS.member;
const CLIENT_REDIRECT = `http://127.0.0.1:${lanePort(4991)}/callback`;
const SECURITY_TAB = `/console/acme-rockets/apps/${FLIGHT_DECK.appId}/security`;

let app: ExampleApp | undefined;
let surfaceSecret = '';

test.describe.configure({ mode: 'serial' });

test.afterEach(async () => {
  await app?.close();
  app = undefined;
});

const text = (result: unknown) => ((result as { content: { type: string; text: string }[] }).content[0]?.text ?? '');

test('a person signs in to the example app through Portico', async ({ page }, testInfo) => {
  app = await startFlightDeck();
  await page.goto(FLIGHT_DECK.origin);
  await expect(page.getByRole('heading', { name: FLIGHT_DECK.appName })).toBeVisible();
  await page.getByRole('link', { name: 'Sign in with Portico' }).click();
  await page.waitForURL((url) => url.href.startsWith(E2E_ISSUER));
  await fillSignIn(page, PILOT.email, PILOT.password);
  await page.waitForURL(`${FLIGHT_DECK.origin}/`);
  await expect(page.getByTestId('signed-in')).toContainText('Pilot');
  await expect(page.getByTestId('signed-in')).toContainText(PILOT.email);
  await page.screenshot({ path: testInfo.outputPath('example-app-signed-in.png'), fullPage: true });
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('link', { name: 'Sign in with Portico' })).toBeVisible();
});

test('the MCP SDK client registers, the person consents, and tools run through the confirmation gate', async ({ page }, testInfo) => {
  const started = (app = await startFlightDeck());
  const provider = new PageOAuthProvider(CLIENT_REDIRECT, { clientName: 'Notes Assistant' });
  const client = await connectWithOAuth(page, FLIGHT_DECK.resource, provider, { ...PILOT, screenshot: { testInfo, name: 'example-app-consent.png' } });
  // The 401 named every scope the tools need and the SDK asked for exactly that; the pilot holds them all (through
  // the crew), so the token carries them: no step-up on the way (permissions.spec.ts steps up a person who lacks one).
  expect(provider.tokens()?.scope?.split(' ').sort()).toEqual(['mcp', 'notes:delete', 'notes:read']);
  const note = JSON.parse(text(await client.callTool({ name: 'notes.add', arguments: { title: 'Pre-flight', body: 'Check the fuel.' } }))) as { id: number };
  // notes.delete is approval_required: a confirmation challenge first.
  const challenge = text(await client.callTool({ name: 'notes.delete', arguments: { id: note.id } }));
  expect(challenge).toContain('Confirmation required');
  expect(started.notebook.notes.has(note.id)).toBe(true);
  const token = /"(confirm_[A-Za-z0-9_-]+)"/.exec(challenge)![1]!;
  expect(text(await client.callTool({ name: 'notes.delete', arguments: { id: note.id, _confirmation_token: token } }))).toContain('Deleted');
  expect(started.notebook.notes.has(note.id)).toBe(false);
  expect(started.events.map((event) => `${event.tool}:${event.outcome}`)).toEqual(['notes.add:succeeded', 'notes.delete:challenge_issued', 'notes.delete:succeeded']);
  await client.close();
});

async function verify(page: Page, outcome: string) {
  await page.getByTestId('verify-surface').getByRole('button', { name: 'Verify surface now' }).click();
  await expect(page.getByTestId('surface-outcome')).toHaveAttribute('data-outcome', outcome);
}

test('the app declares its surface; the admin verifies it: clean, drift, unsupported, unreachable', async ({ page }, testInfo) => {
  await consoleSignIn(page, FLIGHT_DECK.engineer);
  await page.goto(SECURITY_TAB);
  await expect(page.getByTestId('surface-secret-state')).toContainText('No surface secret yet');
  // Nothing to sign with yet: verification says so instead of pretending.
  await page.getByTestId('verify-surface').getByRole('button', { name: 'Verify surface now' }).click();
  await expect(page.getByTestId('verify-surface').getByTestId('action-error')).toContainText('Create a surface secret first');

  await page.getByTestId('surface-secret').getByRole('button', { name: 'Create surface secret' }).click();
  const shown = await page.getByTestId('surface-secret').getByTestId('secret-once').textContent();
  surfaceSecret = /PORTICO_SURFACE_SECRET=(pss_[A-Za-z0-9_-]+)/.exec(shown ?? '')![1]!;

  app = await startFlightDeck({ surfaceSecret });
  expect(app.declaration).toEqual({ ok: true, tools: 5 });
  await page.reload();
  await expect(page.getByTestId('surface-declared')).toContainText('notes.delete · approval_required');

  await verify(page, 'clean');
  await page.screenshot({ path: testInfo.outputPath('surface-clean.png'), fullPage: true });

  // A new version adds a tool and does not declare it.
  await app.close();
  app = await startFlightDeck({ surfaceSecret, declareOnStart: false, extraTools: (notebook) => [undeclaredExportTool(notebook)] });
  await verify(page, 'drift');
  await expect(page.getByTestId('surface-undeclared')).toContainText('notes.export_all');
  await page.screenshot({ path: testInfo.outputPath('surface-drift.png'), fullPage: true });

  await app.close();
  app = await startFlightDeck({ surfaceSecret, declareOnStart: false, introspection: false });
  await verify(page, 'unsupported');
  await page.screenshot({ path: testInfo.outputPath('surface-unsupported.png'), fullPage: true });

  await app.close();
  app = undefined;
  await verify(page, 'unreachable');
  await expect(page.getByTestId('surface-outcome')).toContainText('could not be reached');
  await page.screenshot({ path: testInfo.outputPath('surface-unreachable.png'), fullPage: true });

  // Each verification is audited with its outcome.
  await page.reload();
  await expect(page.getByTestId('security-audit')).toContainText('app.surface_verified');
});

test('Portico refuses a declaration with a bad signature, an old timestamp, a changed body or a replayed nonce', async () => {
  expect(surfaceSecret).toMatch(/^pss_/);
  const body = JSON.stringify({ kit_contract_version: APP_KIT_CONTRACT_VERSION, risk_model_version: 1, resource: FLIGHT_DECK.resource, tools: [] });
  const send = (header: string, sentBody = body) =>
    fetch(`${E2E_ISSUER}${DECLARATION_PATH}`, { method: 'POST', body: sentBody, headers: { 'Content-Type': 'application/json', 'Portico-Signature': header } });
  const sign = (options: { secret?: string; now?: Date } = {}) => signRequest(options.secret ?? surfaceSecret, { method: 'POST', path: DECLARATION_PATH, body }, { keyId: FLIGHT_DECK.clientId, now: options.now }).header;

  const wrongSecret = await send(sign({ secret: `pss_${'A'.repeat(43)}` }));
  expect(wrongSecret.status).toBe(401);
  expect(await wrongSecret.json()).toMatchObject({ error: 'invalid_signature' });
  expect((await send(sign({ now: new Date(Date.now() - 301_000) }))).status).toBe(401);
  expect((await send(sign(), body.replace('"tools":[]', '"tools":[{"name":"x","riskLevel":"safe","requiredScopes":["mcp"]}]'))).status).toBe(401);
  expect((await send('t=1, n=short, s=x')).status).toBe(401);

  const header = sign();
  const accepted = await send(header);
  expect(accepted.status).toBe(200);
  expect(await accepted.json()).toMatchObject({ tools: 0 });
  const replayed = await send(header);
  expect(replayed.status).toBe(401);
  expect(await replayed.json()).toMatchObject({ error: 'invalid_signature', error_description: 'this signature was used already' });

  const wrongResource = JSON.stringify({ kit_contract_version: APP_KIT_CONTRACT_VERSION, risk_model_version: 1, resource: 'https://elsewhere.example/api/mcp', tools: [] });
  const signedWrong = signRequest(surfaceSecret, { method: 'POST', path: DECLARATION_PATH, body: wrongResource }, { keyId: FLIGHT_DECK.clientId }).header;
  expect((await send(signedWrong, wrongResource)).status).toBe(400);
});

test('Portico keeps an app’s challenges only from signed calls whose arguments match their digest', async () => {
  expect(surfaceSecret).toMatch(/^pss_/);
  const post = (payload: Record<string, unknown>, options: { secret?: string } = {}) => {
    const body = JSON.stringify(payload);
    const header = signRequest(options.secret ?? surfaceSecret, { method: 'POST', path: CONFIRMATIONS_PATH, body }, { keyId: FLIGHT_DECK.clientId }).header;
    return fetch(`${E2E_ISSUER}${CONFIRMATIONS_PATH}`, { method: 'POST', body, headers: { 'Content-Type': 'application/json', 'Portico-Signature': header } });
  };
  const digest = (value: string) => createHash('sha256').update(value).digest('base64url');
  const challenge = {
    action: 'save',
    nonce_hash: digest(`confirm_${randomBytes(24).toString('base64url')}`),
    tool: 'notes.delete',
    // An agent of the app's organization acting on its own (an own-mode token: Portico's internal client).
    subject: FLIGHT_DECK.copilot.id,
    actor: '',
    client_id: 'portico-internal',
    arguments_digest: digest('{"id":1}'),
    risk_level: 'approval_required',
    description: 'Deletes one of your notes.',
    canonical_arguments: '{"id":1}',
  };
  expect((await post(challenge, { secret: `pss_${'A'.repeat(43)}` })).status).toBe(401);
  // Only the app's own calls: a person who is not a member of its organization, or a client that is not the app's.
  expect((await post({ ...challenge, subject: '00000000-0000-4000-8000-000000000001' })).status).toBe(403);
  expect((await post({ ...challenge, client_id: 'someone-elses-client' })).status).toBe(403);
  // Arguments the gate could not have bound (1e400 parses as Infinity): refused, not a server error.
  expect((await post({ ...challenge, canonical_arguments: '{"id":1e400}' })).status).toBe(400);
  // The page must show what the token binds: other arguments than the digest covers are refused.
  const tampered = await post({ ...challenge, canonical_arguments: '{"id":2}' });
  expect(tampered.status).toBe(400);
  expect(await tampered.json()).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining('arguments_digest') });
  expect((await post({ ...challenge, risk_level: 'review' })).status).toBe(400);
  expect((await post({ ...challenge, subject: 'someone' })).status).toBe(400);
  const saved = await post(challenge);
  expect(saved.status).toBe(201);
  expect(((await saved.json()) as { confirmation_url: string }).confirmation_url).toMatch(/\/console\/confirm\/cnf_/);
  expect((await post(challenge)).status).toBe(409);
  // Not confirmed yet: waiting; an unknown token: invalid.
  const redeem = { action: 'redeem', nonce_hash: challenge.nonce_hash, tool: challenge.tool, subject: challenge.subject, actor: '', client_id: challenge.client_id, arguments_digest: challenge.arguments_digest };
  expect(await (await post(redeem)).json()).toEqual({ redemption: 'waiting' });
  expect(await (await post({ ...redeem, nonce_hash: digest('confirm_unknown') })).json()).toEqual({ redemption: 'invalid' });
});

test('with confirmations in Portico, notes.delete runs only after the person confirmed it there with step-up', async ({ page }, testInfo) => {
  expect(surfaceSecret).toMatch(/^pss_/);
  // With its surface secret the example app keeps its challenges in Portico (confirmations: 'portico').
  const started = (app = await startFlightDeck({ surfaceSecret, declareOnStart: false }));
  const provider = new PageOAuthProvider(CLIENT_REDIRECT, { clientName: 'Notes Assistant' });
  const connected = await connectWithOAuth(page, FLIGHT_DECK.resource, provider, PILOT);
  expect(connected.getServerCapabilities()?.experimental?.['io.portico/risk-model']).toMatchObject({ confirmation_mode: 'human' });
  const note = JSON.parse(text(await connected.callTool({ name: 'notes.add', arguments: { title: 'Countdown', body: 'T-minus 5' } }))) as { id: number };
  // The first consent already carried notes:delete (the 401 names every scope the tools need, and the pilot holds it).
  const client = connected;
  const first = (await client.callTool({ name: 'notes.delete', arguments: { id: note.id } })) as { _meta?: Record<string, { token?: string; confirmation_url?: string }> };
  const { token, confirmation_url: url } = first._meta!['io.portico/confirmation']!;
  expect(url).toMatch(new RegExp(`^${E2E_ISSUER}/console/confirm/cnf_`));
  expect(text(first)).toContain(url!);

  // The agent relays the token itself at once: it waits, nothing is deleted.
  const retry = { name: 'notes.delete', arguments: { id: note.id, _confirmation_token: token } };
  expect(text(await client.callTool(retry))).toContain('Waiting for confirmation');
  expect(started.notebook.notes.has(note.id)).toBe(true);

  // Someone else signed in to Portico sees nothing to confirm.
  await page.context().clearCookies();
  await consoleSignIn(page, FLIGHT_DECK.engineer);
  await page.goto(url!);
  await expect(page.getByTestId('confirmation-missing')).toBeVisible();

  // The person signs in, sees the call as it will run, and confirms with their password.
  await page.context().clearCookies();
  await page.goto(url!);
  await page.waitForURL(/\/console\/login\?/);
  await expect(page.getByRole('heading', { name: 'Sign in to Portico' })).toBeVisible();
  await page.getByLabel('Email').fill(PILOT.email);
  await page.getByLabel('Password').fill(PILOT.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL(url!);
  await expect(page.getByTestId('confirmation-call')).toContainText('notes.delete');
  await expect(page.getByTestId('confirmation-call')).toContainText(FLIGHT_DECK.appName);
  expect(JSON.parse((await page.getByTestId('confirmation-arguments').textContent()) ?? '')).toEqual({ id: note.id });
  await expectAccessible(page);
  await page.screenshot({ path: testInfo.outputPath('confirmation-page.png'), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: testInfo.outputPath('confirmation-page-390.png'), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 720 });

  await page.getByLabel('Your password').fill('not the password');
  await page.getByTestId('confirm-call').click();
  await expect(page.getByTestId('step-up-error')).toContainText('not right');
  await expect(page.getByLabel('Your password')).toHaveAttribute('aria-invalid', 'true');
  expect(text(await client.callTool(retry))).toContain('Waiting for confirmation');
  await page.getByLabel('Your password').fill(PILOT.password);
  await page.getByTestId('confirm-call').click();
  await expect(page.getByTestId('confirmation-done')).toContainText('Confirmed');
  await page.screenshot({ path: testInfo.outputPath('confirmation-done.png'), fullPage: true });

  // Exactly one retry runs; the next one is a new challenge.
  expect(text(await client.callTool(retry))).toContain(`Deleted`);
  expect(started.notebook.notes.has(note.id)).toBe(false);
  expect(text(await client.callTool(retry))).toContain('Confirmation required');
  await page.reload();
  await expect(page.getByTestId('confirmation-missing')).toBeVisible();
  await client.close();
});
