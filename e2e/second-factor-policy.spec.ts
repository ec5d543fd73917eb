// An organization's second-factor policy and an app's acr_values and max_age, in a real browser: the owner requires
// a second factor of everyone; a member without one is taken, right after the password, to set up an authenticator
// (codes computed here from the key the page shows), sees the recovery codes once and continues to the console. An
// app (openid-client) asking acr_values=urn:portico:acr:mfa makes a password-only session sign in again with a
// second factor — set up on the way when there is none — and max_age=0 makes any session sign in again.
import { expect, test, type Page, type TestInfo } from './support/test';
import { Secret, TOTP } from 'otpauth';
import * as oidc from 'openid-client';
import { expectAccessible } from './support/accessibility';
import { E2E_ISSUER } from './support/constants';
import { consoleSignIn } from './support/console';
import { POLICY_CO, ROCKETS } from './support/fixtures';
import { demoRelyingParty, fillSignIn, interceptCallback, newAuthorizationRequest } from './support/relying-party';
import { DEMO } from './support/constants';

test.describe.configure({ mode: 'serial' });

/** A code of the authenticator set up from the key on the page (the current step; RFC 6238). */
async function codeFromSetupPage(page: Page): Promise<string> {
  const secret = ((await page.getByTestId('totp-secret').textContent()) ?? '').replace(/\s+/g, '');
  // Away from a step boundary, so that the code is still current when the server checks it.
  while (Date.now() % 30_000 > 26_000) await page.waitForTimeout(500);
  return new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate();
}

async function setUpAuthenticator(page: Page, testInfo?: TestInfo) {
  await page.waitForURL(/\/account\/two-step-setup$/);
  await expect(page.getByTestId('setup-required')).toBeVisible();
  if (testInfo) {
    await expectAccessible(page);
    await page.screenshot({ path: testInfo.outputPath('two-step-setup.png'), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: testInfo.outputPath('two-step-setup-390.png'), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 720 });
  }
  const form = page.getByTestId('setup-totp');
  await form.getByLabel('Code from the app').fill('000000');
  await form.getByRole('button', { name: 'Turn on two-step sign-in' }).click();
  await expect(form.getByTestId('error-code')).toBeVisible();
  await form.getByLabel('Code from the app').fill(await codeFromSetupPage(page));
  await form.getByRole('button', { name: 'Turn on two-step sign-in' }).click();
  await expect(page.getByTestId('setup-totp-done').getByTestId('recovery-codes').locator('li')).toHaveCount(10);
  await page.getByRole('link', { name: 'I have stored them' }).click();
  await page.getByTestId('continue-sign-in').click();
}

test('an owner requires a second factor of everyone; a member without one sets it up after the password', async ({ page, browser }, testInfo) => {
  await consoleSignIn(page, POLICY_CO.owner);
  await page.goto('/console/policy-co/settings');
  const policy = page.getByTestId('second-factor-policy');
  await policy.getByLabel('Require a second factor for').selectOption('everyone');
  await policy.getByRole('button', { name: 'Save' }).click();
  await expect(policy).toContainText('Saved: everyone must have a second factor');
  await expect(policy.getByLabel('Require a second factor for')).toHaveValue('everyone');
  await expectAccessible(page);
  await page.screenshot({ path: testInfo.outputPath('second-factor-policy.png'), fullPage: true });

  const member = await (await browser.newContext({ baseURL: E2E_ISSUER })).newPage();
  await member.goto('/console/login');
  await fillSignIn(member, POLICY_CO.member.email, POLICY_CO.member.password);
  await setUpAuthenticator(member, testInfo);
  await member.waitForURL(/\/console\/policy-co\//);
  await member.context().close();
});

test('an app asking acr_values=…:mfa signs a password-only session in again, with a second factor set up on the way', async ({ page }) => {
  const person = ROCKETS.acr;
  const config = await demoRelyingParty(E2E_ISSUER);
  const plain = await newAuthorizationRequest(config, 'openid email');
  let callback = await interceptCallback(page);
  await page.goto(plain.url.href);
  await fillSignIn(page, person.email, person.password);
  const first = await oidc.authorizationCodeGrant(config, await callback(), { pkceCodeVerifier: plain.codeVerifier, expectedState: plain.state, expectedNonce: plain.nonce });
  expect(first.claims()).toMatchObject({ amr: ['pwd'], acr: 'urn:portico:acr:pwd' });

  // The same browser session, now asked for MFA: the card again (not a silent SSO), then the setup, then the app.
  const strict = await newAuthorizationRequest(config, 'openid email', { acr_values: 'urn:portico:acr:mfa' });
  callback = await interceptCallback(page);
  await page.goto(strict.url.href);
  await expect(page.getByLabel('Password')).toBeVisible();
  await fillSignIn(page, person.email, person.password);
  await setUpAuthenticator(page);
  const second = await oidc.authorizationCodeGrant(config, await callback(), { pkceCodeVerifier: strict.codeVerifier, expectedState: strict.state, expectedNonce: strict.nonce });
  expect(second.claims()).toMatchObject({ amr: ['pwd', 'otp', 'mfa'], acr: 'urn:portico:acr:mfa' });
});

test('the setup offers a passkey too: created there (virtual authenticator), the sign-in continues and the ID token says so', async ({ browser }, testInfo) => {
  const person = ROCKETS.acrPasskey;
  const context = await browser.newContext({ baseURL: E2E_ISSUER });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  try {
    const config = await demoRelyingParty(E2E_ISSUER);
    const strict = await newAuthorizationRequest(config, 'openid email', { acr_values: 'urn:portico:acr:mfa' });
    const callback = await interceptCallback(page);
    await page.goto(strict.url.href);
    await fillSignIn(page, person.email, person.password);
    await page.waitForURL(/\/account\/two-step-setup$/);
    const form = page.getByTestId('setup-passkey');
    await expect(form.getByRole('button', { name: 'Create a passkey' })).toBeVisible();
    await page.screenshot({ path: testInfo.outputPath('two-step-setup-passkey.png'), fullPage: true });
    // A name is required (said next to the field, before any passkey is made), then the browser creates the passkey.
    await form.getByLabel('Name for this passkey').fill('   ');
    await form.getByRole('button', { name: 'Create a passkey' }).click();
    await expect(form.getByLabel('Name for this passkey')).toHaveAttribute('aria-invalid', 'true');
    await expect(form.getByTestId('error-name')).toContainText('Give the passkey a name');
    await form.getByLabel('Name for this passkey').fill('Laptop');
    await form.getByRole('button', { name: 'Create a passkey' }).click();
    await expect(page.getByTestId('setup-passkey-done').getByTestId('recovery-codes').locator('li')).toHaveCount(10);
    await page.getByRole('link', { name: 'I have stored them' }).click();
    await expect(page.getByText('your passkey signs you in')).toBeVisible();
    await expectAccessible(page);
    await page.getByTestId('continue-sign-in').click();
    const tokens = await oidc.authorizationCodeGrant(config, await callback(), { pkceCodeVerifier: strict.codeVerifier, expectedState: strict.state, expectedNonce: strict.nonce });
    const claims = tokens.claims()!;
    expect(claims.acr).toBe('urn:portico:acr:mfa');
    expect(claims.amr).toEqual(expect.arrayContaining(['pwd', 'user', 'mfa']));
    expect(claims.amr).not.toContain('otp');
    expect((claims.amr as string[]).some((method) => method === 'hwk' || method === 'swk')).toBe(true);
  } finally {
    await context.close();
  }
});

test('max_age=0 makes a signed-in browser sign in again', async ({ page }) => {
  const config = await demoRelyingParty(E2E_ISSUER);
  const first = await newAuthorizationRequest(config, 'openid email');
  let callback = await interceptCallback(page);
  await page.goto(first.url.href);
  await fillSignIn(page, DEMO.email, DEMO.password);
  await oidc.authorizationCodeGrant(config, await callback(), { pkceCodeVerifier: first.codeVerifier, expectedState: first.state, expectedNonce: first.nonce });

  // Without max_age the session signs the person in silently; with max_age=0 the card asks again.
  const silent = await newAuthorizationRequest(config, 'openid email');
  callback = await interceptCallback(page);
  await page.goto(silent.url.href);
  await callback();
  await page.waitForTimeout(1_100);
  // The session's sign-in is older than this instant; a fresh one is not.
  const before = Math.floor(Date.now() / 1000);
  const fresh = await newAuthorizationRequest(config, 'openid email', { max_age: '0' });
  callback = await interceptCallback(page);
  await page.goto(fresh.url.href);
  await expect(page.getByLabel('Password')).toBeVisible();
  await fillSignIn(page, DEMO.email, DEMO.password);
  const again = await oidc.authorizationCodeGrant(config, await callback(), { pkceCodeVerifier: fresh.codeVerifier, expectedState: fresh.state, expectedNonce: fresh.nonce, maxAge: 0 });
  expect(again.claims()!.auth_time).toBeGreaterThanOrEqual(before);
});
