// The sign-in card: which app, whose brand, and never a canvas for text from the query string.
import { expect, test, type Page } from './support/test';
import * as oidc from 'openid-client';
import { DEMO, E2E_ISSUER, lanePort } from './support/constants';
import { ROCKETS } from './support/fixtures';
import { expectAccessible } from './support/accessibility';
import { appAuthorizationUrl, demoRelyingParty, fillSignIn, interceptCallback, newAuthorizationRequest, signInAndExchange } from './support/relying-party';

const rocketsAuthorizationUrl = (extra: Record<string, string> = {}) => appAuthorizationUrl(ROCKETS, extra);

async function backgroundOf(page: Page, selector: string): Promise<string> {
  return page.locator(selector).first().evaluate((element) => getComputedStyle(element).backgroundColor);
}

test.describe('the sign-in card', () => {
  test('starts with the email of an email-shaped login_hint, and ignores any other hint', async ({ page }) => {
    await page.goto((await rocketsAuthorizationUrl({ login_hint: ROCKETS.member.email })).href);
    await expect(page.getByLabel('Email')).toHaveValue(ROCKETS.member.email);
    for (const hint of ['"><script>alert(1)</script>', 'not an email']) {
      await page.goto((await rocketsAuthorizationUrl({ login_hint: hint })).href);
      await expect(page.getByRole('heading', { name: `Sign in to ${ROCKETS.appName}` })).toBeVisible();
      await expect(page.getByLabel('Email')).toHaveValue('');
      expect(await page.content()).not.toContain('<script>alert(1)</script>');
    }
    // A NUL character in a parameter is a bad request, answered to the app in the protocol's shape (RFC 6749
    // §4.1.2.1), not a server error.
    const callback = await interceptCallback(page, ROCKETS.redirectUri);
    await page.goto((await rocketsAuthorizationUrl({ login_hint: `${ROCKETS.member.email}\u0000` })).href);
    expect((await callback()).searchParams.get('error')).toBe('invalid_request');
  });

  test("shows the app's name and address dressed in the organization's whitelabel brand", async ({ page }, testInfo) => {
    await page.goto((await rocketsAuthorizationUrl()).href);
    await expect(page.getByRole('heading', { name: `Sign in to ${ROCKETS.appName}` })).toBeVisible();
    await expect(page.locator('[data-brand="organization"]')).toBeVisible();
    await expect(page.locator('.brand-bar')).toHaveText(ROCKETS.brandName);
    await expect(page.locator('.brand-bar img')).toBeVisible();
    await expect(page.getByTestId('app-header')).toContainText(`http://127.0.0.1:${lanePort(4997)}`);
    await expect(page.getByText('Secured by Portico')).toBeVisible();
    expect(await backgroundOf(page, '[data-brand="organization"]')).toBe('rgb(255, 244, 230)');
    expect(await backgroundOf(page, 'button[type="submit"]')).toBe('rgb(217, 72, 15)');
    await page.screenshot({ path: testInfo.outputPath('whitelabel-card.png'), fullPage: true });
  });

  test("without a whitelabel the card wears Portico's brand", async ({ page }) => {
    const config = await demoRelyingParty(E2E_ISSUER);
    await page.goto((await newAuthorizationRequest(config)).url.href);
    await expect(page.locator('[data-brand="portico"]')).toBeVisible();
    await expect(page.locator('.brand-bar')).toHaveText('Portico');
  });

  test('never shows text, markup or another origin taken from the query string', async ({ page }, testInfo) => {
    const hostile = {
      login_hint: '<script>window.__pwned=1</script>attacker@evil.example',
      ui_locales: '<b>Free money at https://evil.example</b>',
      claims_locales: 'EvilCorp Login',
      acr_values: '"><img src=x onerror="window.__pwned=1">',
      app_name: 'EvilCorp Login',
      client_name: 'EvilCorp Login',
      logo_uri: 'https://evil.example/logo.png',
    };
    await page.goto((await rocketsAuthorizationUrl(hostile)).href);
    await expect(page.getByRole('heading', { name: `Sign in to ${ROCKETS.appName}` })).toBeVisible();
    const text = await page.locator('body').innerText();
    const html = await page.content();
    for (const needle of ['evil.example', 'EvilCorp', 'Free money', '<script>window.__pwned', 'onerror=']) {
      expect(text).not.toContain(needle);
      expect(html).not.toContain(needle);
    }
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    await page.screenshot({ path: testInfo.outputPath('hostile-query.png'), fullPage: true });

    // An unknown client named with markup gets an error page that does not echo it either.
    const unknown = new URL('/oidc/auth', E2E_ISSUER);
    unknown.search = new URLSearchParams({ client_id: '<h1>EvilCorp</h1>', response_type: 'code', scope: 'openid' }).toString();
    const response = await page.goto(unknown.href);
    expect(response?.status()).toBe(400);
    await expect(page.getByRole('heading', { name: 'Sign-in cannot continue' })).toBeVisible();
    expect(await page.content()).not.toContain('EvilCorp');
  });

  test('a person outside the organization is told so, and gets no code', async ({ page }, testInfo) => {
    await interceptCallback(page, ROCKETS.redirectUri); // the app's redirect URI answers
    await page.goto((await rocketsAuthorizationUrl()).href);
    await fillSignIn(page, ROCKETS.outsider.email, ROCKETS.outsider.password);
    await expect(page.getByTestId('sign-in-error')).toHaveText(
      `Your account is not a member of ${ROCKETS.orgName}, which publishes ${ROCKETS.appName}. Ask one of its administrators to add you.`,
    );
    expect(page.url()).toContain(`${E2E_ISSUER}/auth/app/`);
    await page.screenshot({ path: testInfo.outputPath('not-a-member.png'), fullPage: true });

    await fillSignIn(page, ROCKETS.member.email, ROCKETS.member.password);
    await page.waitForURL((url) => url.href.startsWith(ROCKETS.redirectUri));
    expect(new URL(page.url()).searchParams.get('code')).toBeTruthy();
  });
});

test.describe('platform sessions', () => {
  test('the session cookie is HttpOnly and SameSite=Lax (Secure only off loopback)', async ({ page, context }) => {
    await signInAndExchange(page, await demoRelyingParty(E2E_ISSUER));
    const session = (await context.cookies(E2E_ISSUER)).find((cookie) => cookie.name === '_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', secure: false, path: '/' });
  });

  test('RP-initiated logout ends the session: the next sign-in asks for the password', async ({ page }, testInfo) => {
    const config = await demoRelyingParty(E2E_ISSUER);
    const { tokens } = await signInAndExchange(page, config);
    await page.goto(oidc.buildEndSessionUrl(config, { id_token_hint: tokens.id_token! }).href);
    await page.screenshot({ path: testInfo.outputPath('logout-confirm.png'), fullPage: true });
    await page.getByRole('button', { name: 'Yes, sign me out' }).click();
    await expect(page.getByRole('heading', { name: 'You are signed out' })).toBeVisible();
    await page.goto((await newAuthorizationRequest(config)).url.href);
    await expect(page.getByRole('heading', { name: 'Sign in to Demo App' })).toBeVisible();
  });

  test('one account area: the app sign-in is listed with its app named, and ends on its own', async ({ page }, testInfo) => {
    const config = await demoRelyingParty(E2E_ISSUER);
    await signInAndExchange(page, config);
    // The old address leads to the account area; the console asks who this is first and comes back.
    await page.goto('/account/sessions');
    await page.waitForURL(/\/console\/login/);
    await page.getByLabel('Email').fill(DEMO.email);
    await page.getByLabel('Password').fill(DEMO.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(/\/console\/account/);
    const sessions = page.getByTestId('account-sessions');
    await expect(sessions.locator('[data-kind="console"]').getByText('This browser')).toBeVisible();
    // Newest first: this browser's app sign-in (earlier tests may have left other sessions of this person).
    const appSessions = sessions.locator('[data-kind="app"]');
    const appSession = appSessions.first();
    await expect(appSession.getByTestId('session-apps')).toHaveText('Demo App');
    const before = await appSessions.count();
    const consoleSessions = await sessions.locator('[data-kind="console"]').count();
    await page.screenshot({ path: testInfo.outputPath('account-sessions.png'), fullPage: true });
    await expectAccessible(page);

    await appSession.getByRole('button', { name: 'Sign out of Apps: Demo App' }).click();
    await expect(page.getByTestId('session-ended')).toBeVisible();
    await expect(appSessions).toHaveCount(before - 1);
    // No console session was touched (earlier tests may have left some of this person's).
    await expect(sessions.locator('[data-kind="console"]')).toHaveCount(consoleSessions);

    // Silent sign-in at the app is over: the app gets the card again.
    const request = await newAuthorizationRequest(config);
    const callback = await interceptCallback(page);
    await page.goto(request.url.href);
    await expect(page.getByRole('heading', { name: 'Sign in to Demo App' })).toBeVisible();
    await fillSignIn(page, DEMO.email, DEMO.password);
    expect((await callback()).searchParams.get('code')).toBeTruthy();

    // "Sign out everywhere else" ends that new app session too, and keeps this console.
    await page.goto('/console/account');
    await expect(appSessions.first().getByTestId('session-apps')).toHaveText('Demo App');
    await page.getByRole('button', { name: 'Sign out everywhere else' }).click();
    await expect(page.getByText('Every other session has ended.')).toBeVisible();
    await expect(sessions.locator('[data-kind="app"]')).toHaveCount(0);
    await expect(sessions.locator('[data-kind="console"]')).toHaveCount(1);
  });
});
