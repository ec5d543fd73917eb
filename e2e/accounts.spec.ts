// Accounts that belong to their people, in a real browser, with real SMTP (the mailbox beside the e2e server) and
// openid-client as the app: invitations that cannot be pre-hijacked, "Forgot password?" that ends every refresh
// token, and a password change that ends the other sessions.
import { expect, test, type Browser, type Page } from './support/test';
import * as oidc from 'openid-client';
import { expectAccessible } from './support/accessibility';
import { consoleSignIn } from './support/console';
import { DEMO, E2E_ISSUER } from './support/constants';
import { FLIGHT_DECK } from './support/fixtures';
import { demoRelyingParty, fillSignIn, interceptCallback, newAuthorizationRequest } from './support/relying-party';
import { linkPath, waitForMail } from './support/mail';

const ALICE = { email: 'alice@accounts.e2e.test', name: 'Alice Example' };
const ALICE_PASSWORD = 'alice keeps her own words';
const ALICE_NEW_PASSWORD = 'a brand new phrase for alice';
const ENGINEER = FLIGHT_DECK.engineer; // an admin of Acme Rockets

test.describe.configure({ mode: 'serial' });

async function invite(page: Page, org: string, email: string): Promise<string> {
  await page.goto(`/console/${org}/members`);
  const form = page.getByTestId('invite-member');
  await form.getByLabel('Email').fill(email);
  await form.getByRole('button', { name: 'Send invitation' }).click();
  const status = form.getByTestId('action-ok');
  await expect(status).toBeVisible();
  return (await status.innerText()).replace(email, '<email>');
}

async function newPage(browser: Browser): Promise<Page> {
  return (await browser.newContext()).newPage();
}

test('an invitation: the invitee chooses the password, the admin learns nothing, and another organization gets nothing until accepted', async ({ page, browser }, testInfo) => {
  const since = Date.now();
  // Acme Rockets' admin invites alice first.
  const rockets = await newPage(browser);
  await consoleSignIn(rockets, ENGINEER);
  await invite(rockets, 'acme-rockets', ALICE.email);

  // The demo owner invites alice (no account) and the engineer (an account of another organization): same words.
  await consoleSignIn(page, DEMO);
  const forUnknown = await invite(page, 'demo', ALICE.email);
  const forKnown = await invite(page, 'demo', ENGINEER.email);
  expect(forKnown).toBe(forUnknown);
  await expect(page.getByTestId('pending-invitations').locator(`tr[data-email="${ALICE.email}"]`)).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath('members-invitations.png'), fullPage: true });
  await expectAccessible(page);

  // Alice opens the demo organization's link and creates her account with her own password.
  const demoInvitation = await waitForMail(ALICE.email, /Join Demo/, since);
  expect(demoInvitation.text).not.toMatch(/password:/i);
  const alice = await newPage(browser);
  await alice.goto(linkPath(demoInvitation));
  await expect(alice.getByRole('heading', { name: /Join Demo/ })).toBeVisible();
  // The same password rule, said the same way on every page that sets one (here 15: no second factor yet).
  const rule = 'The same rule on every page: 15 characters, or 8 once your account has a second factor';
  await expect(alice.getByText(rule)).toBeVisible();
  await alice.getByLabel('Your name').fill(ALICE.name);
  await alice.getByLabel('Choose a password').fill('password12345678');
  await alice.getByRole('button', { name: /Create my account/ }).click();
  // Refused next to the field; what she typed stays.
  await expect(alice.getByTestId('error-password')).toContainText('too easy to guess');
  await expect(alice.getByLabel('Choose a password')).toHaveAttribute('aria-invalid', 'true');
  await expect(alice.getByLabel('Your name')).toHaveValue(ALICE.name);
  await alice.screenshot({ path: testInfo.outputPath('invitation-refused.png'), fullPage: true });
  await expectAccessible(alice);
  await alice.getByLabel('Choose a password').fill(ALICE_PASSWORD);
  await alice.getByRole('button', { name: /Create my account/ }).click();
  await alice.waitForURL(/\/console\/demo\/apps$/);
  // The link is spent.
  await alice.goto(linkPath(demoInvitation));
  await expect(alice.getByRole('heading', { name: 'This invitation is no longer valid' })).toBeVisible();

  // Acme Rockets holds no membership for her until she accepts its invitation, with her password (unchanged).
  await rockets.goto('/console/acme-rockets/members');
  await expect(rockets.getByTestId('members').locator(`tr[data-email="${ALICE.email}"]`)).toHaveCount(0);
  await expect(rockets.getByTestId('pending-invitations').locator(`tr[data-email="${ALICE.email}"]`)).toBeVisible();
  const rocketsInvitation = await waitForMail(ALICE.email, /Join Acme Rockets/, since);
  await alice.goto(linkPath(rocketsInvitation));
  await expect(alice.getByText('This address already has a Portico account')).toBeVisible();
  await alice.screenshot({ path: testInfo.outputPath('invitation-existing-account.png'), fullPage: true });
  await alice.getByLabel('Password', { exact: true }).fill('not her password at all');
  await alice.getByRole('button', { name: /Sign in and join/ }).click();
  await expect(alice.getByTestId('error-password')).toContainText('not the password');
  await alice.getByLabel('Password', { exact: true }).fill(ALICE_PASSWORD);
  await alice.getByRole('button', { name: /Sign in and join/ }).click();
  await alice.waitForURL(/\/console\/acme-rockets\/apps$/);
  await rockets.reload();
  await expect(rockets.getByTestId('members').locator(`tr[data-email="${ALICE.email}"]`)).toBeVisible();
});

test('forgot password from an app’s sign-in card: the same answer for any email, one link by mail, every refresh token ends', async ({ page }, testInfo) => {
  const config = await demoRelyingParty(E2E_ISSUER);
  const request = await newAuthorizationRequest(config, 'openid email offline_access', { prompt: 'consent' });
  const callback = await interceptCallback(page);
  await page.goto(request.url.href);
  await fillSignIn(page, ALICE.email, ALICE_PASSWORD);
  const tokens = await oidc.authorizationCodeGrant(config, await callback(), { pkceCodeVerifier: request.codeVerifier, expectedState: request.state, expectedNonce: request.nonce });
  expect(tokens.refresh_token).toBeTruthy();
  // The invitation proved her address (OIDC Core §5.1: the userinfo claims).
  const profile = await oidc.fetchUserInfo(config, tokens.access_token, tokens.claims()!.sub);
  expect(profile).toMatchObject({ email: ALICE.email, email_verified: true });

  // A new sign-in, then "Forgot password?" on its card.
  const again = await newAuthorizationRequest(config);
  await page.context().clearCookies();
  await page.goto(again.url.href);
  await page.getByTestId('forgot-password').click();
  await expect(page.getByRole('heading', { name: 'Forgot your password?' })).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath('recover.png'), fullPage: true });
  await expectAccessible(page);
  const recoverUrl = page.url();
  await page.getByLabel('Email').fill('nobody-here@accounts.e2e.test');
  await page.getByRole('button', { name: 'Send me a link' }).click();
  const unknownAnswer = await page.getByTestId('recovery-sent').innerText();
  await page.goto(recoverUrl);
  const since = Date.now();
  await page.getByLabel('Email').fill(ALICE.email);
  await page.getByRole('button', { name: 'Send me a link' }).click();
  expect(await page.getByTestId('recovery-sent').innerText()).toBe(unknownAnswer);
  await page.screenshot({ path: testInfo.outputPath('recover-sent.png'), fullPage: true });

  const reset = await waitForMail(ALICE.email, /Reset your password/, since);
  expect(reset.text).toContain('Demo Organization');
  await page.goto(linkPath(reset));
  await expect(page.getByRole('heading', { name: 'Choose a new password' })).toBeVisible();
  await page.getByLabel('New password').fill(ALICE_NEW_PASSWORD);
  await page.screenshot({ path: testInfo.outputPath('reset-form.png'), fullPage: true });
  await expectAccessible(page);
  await page.getByRole('button', { name: 'Save the new password' }).click();
  await expect(page.getByTestId('set-password-done')).toContainText('every session was signed out');
  await waitForMail(ALICE.email, /Your password was changed/, since);

  // Every refresh token ended with the reset; the link works once.
  await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
  await page.goto(linkPath(reset));
  await expect(page.getByRole('heading', { name: 'This link has expired' })).toBeVisible();
  await consoleSignIn(page, { email: ALICE.email, password: ALICE_NEW_PASSWORD });
});

test('reset requests are limited per address, with Retry-After, whether or not the address has an account', async ({ request }) => {
  const ask = (email: string) => request.post('/account/recover/request', { form: { email }, headers: { origin: E2E_ISSUER }, maxRedirects: 0 });
  for (let i = 0; i < 3; i += 1) expect((await ask('limited@accounts.e2e.test')).status()).toBe(303);
  const limited = await ask('limited@accounts.e2e.test');
  expect(limited.status()).toBe(429);
  expect(Number(limited.headers()['retry-after'])).toBeGreaterThan(0);
  expect(await limited.text()).toContain('Too many requests');
  // Another site cannot make a browser ask.
  expect((await request.post('/account/recover/request', { form: { email: ALICE.email }, headers: { origin: 'https://evil.example' }, maxRedirects: 0 })).status()).toBe(403);
});

test('a password change ends the other console sessions and mails a notice; an admin’s reset mails the person, not the admin', async ({ page, browser }, testInfo) => {
  const other = await newPage(browser);
  await consoleSignIn(other, { email: ALICE.email, password: ALICE_NEW_PASSWORD });
  await consoleSignIn(page, { email: ALICE.email, password: ALICE_NEW_PASSWORD });
  await page.goto('/console/account');
  await expect(page.getByTestId('email-status')).toContainText('confirmed');
  await expect(page.getByTestId('recent-sign-ins')).toContainText('Console');
  const since = Date.now();
  const form = page.getByTestId('change-password');
  await expect(form.getByText('The same rule on every page: 15 characters, or 8 once your account has a second factor')).toBeVisible();
  await form.getByLabel('Current password').fill('this is not the current one');
  await form.getByLabel('New password').fill('the third phrase alice chose');
  await form.getByRole('button', { name: 'Change password' }).click();
  await expect(form.getByTestId('error-currentPassword')).toHaveText('This is not your current password.');
  await expect(form.getByLabel('New password')).toHaveValue('the third phrase alice chose');
  await page.screenshot({ path: testInfo.outputPath('account-password-refused.png'), fullPage: true });
  await expectAccessible(page);
  await form.getByLabel('Current password').fill(ALICE_NEW_PASSWORD);
  await form.getByRole('button', { name: 'Change password' }).click();
  await expect(page.getByTestId('change-password-done')).toBeVisible();
  await waitForMail(ALICE.email, /Your password was changed/, since);
  // This browser stays signed in; the other one is out.
  await page.goto('/console/account');
  await expect(page.getByRole('heading', { name: 'Your account' })).toBeVisible();
  await other.goto('/console/account');
  await other.waitForURL(/\/console\/login\?next=%2Fconsole%2Faccount$/);
  await page.screenshot({ path: testInfo.outputPath('account.png'), fullPage: true });

  // The demo owner sends alice a reset link: the admin sees a confirmation, never a link or a password.
  const admin = await newPage(browser);
  await consoleSignIn(admin, DEMO);
  await admin.goto('/console/demo/members');
  await admin.getByTestId('members').getByRole('link', { name: `Manage ${ALICE.email}` }).click();
  const membership = admin.getByTestId('membership');
  await membership.getByRole('button', { name: 'Send password reset link' }).click();
  await membership.getByRole('button', { name: 'Yes, send the link' }).click();
  await expect(membership.getByTestId('action-ok')).toContainText(`A password reset link was sent to ${ALICE.email}`);
  expect(await admin.content()).not.toMatch(/\/account\/password\/[A-Za-z0-9_-]{43}/);
  const adminReset = await waitForMail(ALICE.email, /Reset your password/, since);
  expect(adminReset.text).toContain('An administrator of your organization');
});
