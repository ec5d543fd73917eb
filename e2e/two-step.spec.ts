// Two-step sign-in in a real browser: a person sets up an authenticator app on their account page (the codes are
// computed here from the key the page shows, as the app on their phone would), and from then on every sign-in —
// console, an app's sign-in card (openid-client as the app), the central — asks for a code after the password. A
// wrong code is said next to the field; a recovery code works once; the ID token says how the person signed in.
import { expect, test, type Page } from './support/test';
import { Secret, TOTP } from 'otpauth';
import * as oidc from 'openid-client';
import { expectAccessible } from './support/accessibility';
import { E2E_ISSUER } from './support/constants';
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
