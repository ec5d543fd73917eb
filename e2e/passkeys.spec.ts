// Passkeys in a real browser, with Chromium's virtual authenticator (CDP WebAuthn.addVirtualAuthenticator: a
// platform authenticator with resident keys and user verification): a person adds one on their account page (the
// password again; recovery codes shown once), signs in with it alone (console, an app's card with openid-client as
// the app, the central), uses it as the second step after a password, confirms a tool call with it (user
// verification required: without it the step-up is refused), and removes it (step-up with the passkey itself), after
// which it signs nobody in.
import { expect, test, type BrowserContext, type CDPSession, type Page } from './support/test';
import * as oidc from 'openid-client';
import { expectAccessible } from './support/accessibility';
import { E2E_ISSUER } from './support/constants';
import { ROCKETS } from './support/fixtures';
import { accessTokenThroughConsent } from './support/mcp-oauth';
import { demoRelyingParty, fillSignIn, interceptCallback, newAuthorizationRequest } from './support/relying-party';

const PERSON = ROCKETS.passkey;
test.describe.configure({ mode: 'serial' });

let context: BrowserContext;
let page: Page;
let cdp: CDPSession;
let authenticatorId = '';
let apiToken = '';

test.beforeAll(async ({ browser }) => {
  context = await browser.newContext({ baseURL: E2E_ISSUER });
  page = await context.newPage();
  cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  ({ authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  }));
});
test.afterAll(async () => context?.close());

test('(setup) a Portico API token for the person, while a password alone signs them in', async () => {
  apiToken = await accessTokenThroughConsent(page, E2E_ISSUER, { resource: `${E2E_ISSUER}/api/mcp`, scope: 'mcp', person: PERSON });
  await context.clearCookies();
});

test('a person adds a passkey on their account page: the password again, a name, recovery codes shown once', async ({}, testInfo) => {
  await page.goto('/console/login');
  await fillSignIn(page, PERSON.email, PERSON.password);
  await page.waitForURL(/\/console\//);
  await page.goto('/console/account#passkeys');
  await expect(page.getByTestId('passkey-list')).toContainText('no passkey');
  const add = page.getByTestId('add-passkey');
  await add.getByLabel('Name for this passkey').fill('Test laptop');
  await add.getByLabel('Your password').fill('not my password at all');
  await add.getByRole('button', { name: 'Add a passkey' }).click();
  await expect(add.getByTestId('error-currentPassword')).toContainText('not right');
  // What was typed stays.
  await expect(add.getByLabel('Name for this passkey')).toHaveValue('Test laptop');
  await add.getByLabel('Your password').fill(PERSON.password);
  await add.getByRole('button', { name: 'Add a passkey' }).click();
  const done = page.getByTestId('add-passkey-done');
  await expect(done).toContainText('Your passkey is added');
  await expect(done.getByTestId('recovery-codes').locator('li')).toHaveCount(10);
  await page.screenshot({ path: testInfo.outputPath('passkey-added.png'), fullPage: true });
  await done.getByRole('link', { name: 'I have stored them' }).click();
  await expect(page.getByTestId('passkey-list')).toContainText('Test laptop');
  await expect(page.getByTestId('two-step-status')).toContainText('On through your passkeys');
  await expectAccessible(page);
  await page.screenshot({ path: testInfo.outputPath('account-passkeys.png'), fullPage: true });
  const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
  expect(credentials).toHaveLength(1);
  expect(credentials[0]!.isResidentCredential).toBe(true);
});

test('“Sign in with a passkey” signs in to the console without email or password', async ({}, testInfo) => {
  await context.clearCookies();
  await page.goto('/console/login');
  await expectAccessible(page);
  await page.screenshot({ path: testInfo.outputPath('console-login-passkey.png'), fullPage: true });
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await page.waitForURL(/\/console\/demo\//);
});

test('after the password, the second step takes the passkey', async ({}, testInfo) => {
  await context.clearCookies();
  await page.goto('/console/login');
  await fillSignIn(page, PERSON.email, PERSON.password);
  await expect(page.getByTestId('passkey-second_factor')).toBeVisible();
  await expectAccessible(page);
  await page.screenshot({ path: testInfo.outputPath('second-step-passkey.png'), fullPage: true });
  await page.getByRole('button', { name: 'Use a passkey' }).click();
  await page.waitForURL(/\/console\/demo\//);
});

test('an app’s sign-in card takes the passkey alone; the ID token says so (openid-client)', async () => {
  const config = await demoRelyingParty(E2E_ISSUER);
  const request = await newAuthorizationRequest(config, 'openid email');
  const callback = await interceptCallback(page);
  await page.goto(request.url.href);
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  const tokens = await oidc.authorizationCodeGrant(config, await callback(), { pkceCodeVerifier: request.codeVerifier, expectedState: request.state, expectedNonce: request.nonce });
  const claims = tokens.claims()!;
  expect((await oidc.fetchUserInfo(config, tokens.access_token, claims.sub)).email).toBe(PERSON.email);
  expect(claims.acr).toBe('urn:portico:acr:mfa');
  expect(claims.amr).toContain('mfa');
  expect(claims.amr).not.toContain('pwd');
  expect((claims.amr as string[]).some((method) => method === 'hwk' || method === 'swk')).toBe(true);
});

test('a tool confirmation takes the passkey with user verification, and refuses it without', async ({}, testInfo) => {
  const call = (extra: Record<string, unknown>) =>
    fetch(`${E2E_ISSUER}/api/tools/clients.revoke`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ org: 'demo', app: 'no-such-app', client_id: 'no-such-client', ...extra }),
    });
  const challenge = await call({});
  expect(challenge.status).toBe(428);
  const { confirmation_url: url, confirmation_token: token } = (await challenge.json()) as { confirmation_url: string; confirmation_token: string };
  await page.goto(url);
  await expect(page.getByTestId('confirmation-call')).toContainText('clients.revoke');
  await expect(page.getByRole('button', { name: 'Confirm with passkey' })).toBeVisible();
  await expectAccessible(page);
  await page.screenshot({ path: testInfo.outputPath('confirmation-passkey.png'), fullPage: true });

  // The authenticator only proves presence now: a step-up needs user verification, so it is refused.
  await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: false });
  await page.getByRole('button', { name: 'Confirm with passkey' }).click();
  await expect(page.getByTestId('step-up-error')).toBeVisible();
  expect((await call({ _confirmation_token: token })).status).toBe(428);

  await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: true });
  await page.getByRole('button', { name: 'Confirm with passkey' }).click();
  await expect(page.getByTestId('confirmation-done')).toContainText('Confirmed');
  // The call ran (and the tool itself refused the unknown app): the gate let it through, once.
  const ran = await call({ _confirmation_token: token });
  expect(ran.status).toBe(422);
  expect((await call({ _confirmation_token: token })).status).toBe(428);
});

test('the central signs in with a passkey alone, which confirms the next approvals; after a password sign-in, approving steps up with the passkey, bound to the decision', async ({}, testInfo) => {
  // Access requests for work on an app the person operates (an owner of the demo organization), from their own token.
  const ask = async (resource: string) => {
    const asked = await fetch(`${E2E_ISSUER}/api/tools/permissions.request_sensitive_access`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ org: 'demo', app: 'demo-app', resource, profile: 'work', duration_seconds: 600, reason: 'rotate the keys' }),
    });
    expect(asked.status).toBe(200);
    return ((await asked.json()) as { result: { request_id: string; operator_approval_url: string } }).result;
  };

  // A passkey sign-in (user verification required) is the proof a step-up asks for: for five minutes it counts.
  const first = await ask('/keys/rotation');
  await context.clearCookies();
  await page.goto('/central');
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await expect(page.getByRole('heading', { name: 'Pending requests' })).toBeVisible();
  await page.goto(first.operator_approval_url);
  await expect(page.getByTestId('step-up-covered')).toContainText('The passkey you signed in with counts as your confirmation until');
  await page.getByRole('button', { name: 'Approve' }).click();
  await expect(page.getByTestId('decision-result')).toHaveAttribute('data-state', 'approved');

  // After the password and the passkey as a second step (user verification only preferred there), approving asks
  // for the passkey again, for this very decision.
  const second = await ask('/keys/rotation/next');
  await context.clearCookies();
  await page.goto('/central');
  await fillSignIn(page, PERSON.email, PERSON.password);
  await page.getByRole('button', { name: 'Use a passkey' }).click();
  await expect(page.getByRole('heading', { name: 'Pending requests' })).toBeVisible();
  await page.goto(second.operator_approval_url);
  await expect(page.getByTestId('step-up-passkey')).toBeVisible();
  await expectAccessible(page);
  await page.screenshot({ path: testInfo.outputPath('central-passkey-step-up.png'), fullPage: true });
  // Without user verification the passkey does not step up: nothing is decided.
  await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: false });
  await page.getByRole('button', { name: 'Approve' }).click();
  await expect(page.getByTestId('decision-error')).toBeVisible();
  await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: true });
  await page.reload();
  await page.getByRole('button', { name: 'Approve' }).click();
  await expect(page.getByTestId('decision-result')).toHaveAttribute('data-state', 'approved');
});

test('removing the passkey needs step-up with it (the strongest factor); afterwards it signs nobody in', async ({}, testInfo) => {
  await context.clearCookies();
  await page.goto('/console/login');
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await page.waitForURL(/\/console\/demo\//);
  await page.goto('/console/account#passkeys');
  const remove = page.locator('[data-testid^="remove-passkey-"]');
  // No password field: the passkey itself is asked for, with user verification.
  await expect(remove.getByLabel('Your password')).toHaveCount(0);
  await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: false });
  await remove.getByRole('button', { name: 'Remove this passkey' }).click();
  await expect(remove.getByTestId('form-error')).toBeVisible();
  await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: true });
  await remove.getByRole('button', { name: 'Remove this passkey' }).click();
  await expect(page.getByText('The passkey is removed')).toBeVisible();

  // The authenticator still holds the credential; Portico no longer knows it.
  await context.clearCookies();
  await page.goto('/console/login');
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await expect(page.getByTestId('sign-in-error')).toContainText('did not sign you in');
  await page.screenshot({ path: testInfo.outputPath('passkey-removed-refused.png'), fullPage: true });
  // And the password alone signs in again (no second factor left).
  await fillSignIn(page, PERSON.email, PERSON.password);
  await page.waitForURL(/\/console\/demo\//);
});
