// An app's whole lifecycle in the console, with openid-client as the app: a deep link survives the console sign-in;
// the admin creates an app, a member signs in to it (refresh token kept); turned off, the sign-in card says so (no
// password asked, also for a signed-in browser) and the refresh is refused; on again, it works; deleted (type the
// slug), its tokens end with it and the audit log says so.
import { expect, test } from './support/test';
import * as oidc from 'openid-client';
import { expectAccessible } from './support/accessibility';
import { DEMO, E2E_ISSUER, lanePort } from './support/constants';
import { ROCKETS } from './support/fixtures';
import { fillSignIn, interceptCallback, newAuthorizationRequest } from './support/relying-party';

const REDIRECT = `http://127.0.0.1:${lanePort(4995)}/lifecycle/callback`;
const PERSON = ROCKETS.outsider;

test('an app is created, turned off and on, and deleted; its sign-ins and tokens follow', async ({ page, browser }, testInfo) => {
  test.setTimeout(120_000);
  // A deep link: signed out, the console asks for the sign-in and then shows the page that was asked for.
  await page.goto('/console/demo/audit?action=app.created');
  await expect(page).toHaveURL(/\/console\/login\?next=%2Fconsole%2Fdemo%2Faudit%3Faction%3Dapp\.created$/);
  await fillSignIn(page, DEMO.email, DEMO.password);
  await page.waitForURL(/\/console\/demo\/audit\?action=app\.created$/);

  await page.goto('/console/demo/apps/new');
  await page.getByLabel('Name').fill('Lifecycle');
  await page.getByLabel('Publish address').fill('ftp://lifecycle.demo.test');
  await page.getByLabel('Redirect URI').fill(REDIRECT);
  await page.getByTestId('create-app').getByRole('button', { name: 'Create app' }).click();
  // Refused: the error stands next to its field, which is marked; everything typed stays.
  await expect(page.getByLabel('Publish address')).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByTestId('create-app').getByTestId('field-error-field-origin')).toBeVisible();
  await expect(page.getByLabel('Name')).toHaveValue('Lifecycle');
  await expect(page.getByLabel('Redirect URI')).toHaveValue(REDIRECT);
  await expectAccessible(page);
  // The address follows the name; a long name gives a valid one (cut), and one chosen by hand that another app has
  // is refused next to its field with a free one suggested.
  await expect(page.getByLabel('Address (slug)')).toHaveValue('lifecycle');
  await page.getByLabel('Name').fill(`Lifecycle ${'x'.repeat(70)}`);
  await expect(page.getByLabel('Address (slug)')).toHaveValue(`lifecycle-${'x'.repeat(54)}`);
  await page.getByLabel('Name').fill('Lifecycle');
  await page.getByLabel('Address (slug)').fill('demo-app');
  await page.getByLabel('Publish address').fill('https://lifecycle.demo.test');
  await page.getByTestId('create-app').getByRole('button', { name: 'Create app' }).click();
  await expect(page.getByTestId('create-app').getByTestId('field-error-app-slug')).toHaveText('The address demo-app is taken by another app. demo-app-2 is free.');
  await expect(page.getByLabel('Address (slug)')).toHaveAttribute('aria-invalid', 'true');
  await page.getByLabel('Address (slug)').fill('lifecycle');
  await page.getByTestId('create-app').getByRole('button', { name: 'Create app' }).click();
  const credentials = (await page.getByTestId('secret-once').textContent()) ?? '';
  const clientId = /PORTICO_CLIENT_ID=(\S+?)(?=PORTICO_|\s|$)/.exec(credentials)?.[1];
  const clientSecret = /PORTICO_CLIENT_SECRET=(\S+?)(?=PORTICO_|\s|$)/.exec(credentials)?.[1];
  expect(clientId && clientSecret).toBeTruthy();
  const config = await oidc.discovery(new URL(E2E_ISSUER), clientId!, undefined, oidc.ClientSecretBasic(clientSecret!), { execute: [oidc.allowInsecureRequests] });
  // Stored: the app's page, where the redirect URI on another origin than the publish address is marked.
  await page.getByTestId('credentials-stored').click();
  await expect(page.getByTestId('new-credentials')).toHaveCount(0);
  await expect(page.getByRole('heading', { name: 'Lifecycle' })).toBeVisible();
  await expect(page.getByTestId('redirect-other-origin')).toContainText('not the publish address (https://lifecycle.demo.test)');
  await expect(page.getByTestId('app-env')).not.toContainText(clientSecret!);

  // A member signs in to it, in their own browser (kept: its session is what a turned-off app must not honour).
  const member = await (await browser.newContext({ baseURL: E2E_ISSUER })).newPage();
  const signIn = async () => {
    const request = await newAuthorizationRequest(config, 'openid email offline_access', { prompt: 'consent', redirect_uri: REDIRECT });
    const callback = await interceptCallback(member, REDIRECT);
    await member.goto(request.url.href);
    return { request, callback };
  };
  const first = await signIn();
  // With the keyboard alone: the email field has the focus first, Tab to the password, Enter.
  await expect(member.getByLabel('Email')).toBeFocused();
  await member.keyboard.type(PERSON.email);
  await member.keyboard.press('Tab');
  await expect(member.getByLabel('Password')).toBeFocused();
  await member.keyboard.type(PERSON.password);
  await member.keyboard.press('Enter');
  const tokens = await oidc.authorizationCodeGrant(config, await first.callback(), { pkceCodeVerifier: first.request.codeVerifier, expectedState: first.request.state, expectedNonce: first.request.nonce });
  expect(tokens.refresh_token).toBeTruthy();

  // Off.
  await page.goto('/console/demo/apps');
  await page.getByRole('link', { name: 'Lifecycle' }).click();
  await page.waitForURL(/\/console\/demo\/apps\/[0-9a-f-]{36}$/);
  const appUrl = page.url();
  await page.getByTestId('set-app-disabled').getByRole('button', { name: 'Turn the app off' }).click();
  await expect(page.getByTestId('set-app-disabled').getByRole('status')).toContainText('Lifecycle is off');
  await page.reload();
  await expect(page.getByTestId('app-disabled')).toBeVisible();
  await page.goto('/console/demo/apps');
  await expect(page.getByTestId('app-off-lifecycle')).toHaveText('off');

  // The member's browser, still signed in: the card says the app is off; no password is asked, no code comes.
  await member.goto((await newAuthorizationRequest(config, 'openid email', { redirect_uri: REDIRECT })).url.href);
  await expect(member.getByTestId('authorization-refused')).toHaveAttribute('data-reason', 'app_disabled');
  await expect(member.getByTestId('authorization-refused')).toContainText('turned it off for now');
  await expect(member.getByLabel('Password')).toHaveCount(0);
  await expectAccessible(member);
  await member.screenshot({ path: testInfo.outputPath('app-off-sign-in.png'), fullPage: true });
  await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });

  // On again: the refresh token kept meanwhile works.
  await page.goto(appUrl);
  await page.getByTestId('set-app-disabled').getByRole('button', { name: 'Turn the app on' }).click();
  await expect(page.getByTestId('set-app-disabled').getByRole('status')).toContainText('on again');
  const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
  expect(refreshed.refresh_token).toBeTruthy();

  // Deleted: the slug typed wrong is refused; typed right and confirmed, the app and its tokens are gone.
  await page.reload();
  await expectAccessible(page);
  await page.screenshot({ path: testInfo.outputPath('app-lifecycle.png'), fullPage: true });
  const remove = page.getByTestId('delete-app');
  await remove.getByLabel('Type lifecycle to confirm').fill('lifecycl');
  await remove.getByRole('button', { name: 'Delete app' }).click();
  await remove.getByRole('button', { name: 'Yes, delete it' }).click();
  await expect(remove.getByTestId('action-error')).toContainText('Type the app\'s slug, lifecycle, to confirm.');
  await remove.getByLabel('Type lifecycle to confirm').fill('lifecycle');
  await remove.getByRole('button', { name: 'Delete app' }).click();
  await remove.getByRole('button', { name: 'Yes, delete it' }).click();
  await page.waitForURL(/\/console\/demo\/apps\?deleted=1$/);
  await expect(page.getByTestId('app-deleted')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Lifecycle' })).toHaveCount(0);
  // On a phone the navigation folds into one menu.
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByRole('navigation', { name: 'Organization', exact: true })).toBeHidden();
  await page.getByTestId('nav-menu').getByText('Menu').click();
  await expect(page.getByRole('navigation', { name: 'Organization menu' }).getByRole('link', { name: 'Audit log' })).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath('apps-390.png'), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 720 });
  await expect(oidc.refreshTokenGrant(config, refreshed.refresh_token!)).rejects.toThrow();
  // Its page is gone: 404, said inside the console (its navigation stays); so is any path the console does not serve.
  for (const missing of [appUrl, `${E2E_ISSUER}/console/demo/no-such-page`]) {
    const response = await page.goto(missing);
    expect(response?.status(), missing).toBe(404);
    await expect(page.getByTestId('console-not-found')).toBeVisible();
    await expect(page.getByRole('navigation', { name: 'Organization', exact: true })).toBeVisible();
  }
  const events = (await (await page.request.get('/console/demo/audit/export?format=json')).json()) as { action: string; subjectLabel: string | null }[];
  expect(events.filter((event) => event.subjectLabel === 'Lifecycle').map((event) => event.action)).toEqual(['app.deleted', 'app.enabled', 'app.disabled', 'app.created']);
  await member.context().close();
});
