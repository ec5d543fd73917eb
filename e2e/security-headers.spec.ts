import { expect, test } from './support/test';
import { appPaths } from './support/app-paths';
import { consoleSignIn } from './support/console';
import { MCP_HOST_PORT } from './support/constants';
import { FLIGHT_DECK, ROCKETS } from './support/fixtures';

function expectAntiFraming(headers: Record<string, string>) {
  expect(headers['x-frame-options']).toBe('DENY');
  expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['referrer-policy']).toBe('same-origin');
  // The issuer is loopback http here: HSTS only goes out over https.
  expect(headers['strict-transport-security']).toBeUndefined();
}

test('pages carry a nonce-based CSP and the anti-framing headers', async ({ request }) => {
  const first = await request.get('/');
  const second = await request.get('/');
  expectAntiFraming(first.headers());
  const nonceOf = (csp: string) => /'nonce-([^']+)'/.exec(csp)?.[1];
  const firstNonce = nonceOf(first.headers()['content-security-policy'] ?? '');
  expect(firstNonce).toBeTruthy();
  expect(nonceOf(second.headers()['content-security-policy'] ?? '')).not.toBe(firstNonce);
  expect(first.headers()['content-security-policy']).not.toContain("'unsafe-inline' 'strict-dynamic'");
});

test('the JSON API (which skips the page middleware) carries the shared headers from next.config.ts', async ({ request }) => {
  for (const path of ['/api/health', '/api/ready', '/api/v1/orgs/demo/clients']) {
    const headers = (await request.get(path, { failOnStatusCode: false })).headers();
    expectAntiFraming(headers);
    expect(headers['content-security-policy'], path).toContain("default-src 'none'");
  }
});

test('oidc-provider responses carry the same anti-framing headers', async ({ request }) => {
  expectAntiFraming((await request.get('/.well-known/openid-configuration')).headers());
  expectAntiFraming((await request.get('/oidc/auth?client_id=unknown')).headers());
});

test('the home page renders with its scripts allowed by the CSP', async ({ page }, testInfo) => {
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Portico' })).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath('home.png'), fullPage: true });
  expect(violations).toEqual([]);
});

test('before the page’s script runs, a form the script submits cannot leak what was typed into the address', async ({ browser }) => {
  // The console's and the account's forms are submitted by script (a server action). Natively, before hydration, such
  // a form would GET the page with every field in the query: a password in history, logs and Referer. With scripts
  // off the page stays as it is before hydration: those forms post, and their buttons wait for the script.
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  try {
    await consoleSignIn(page, FLIGHT_DECK.engineer);
    await page.goto('/console/account');
    // Every navigation of the page from here on: a form submitted natively would be one (a press or a click waits
    // for a navigation it starts, so the list is complete when they return).
    const navigations: string[] = [];
    page.on('request', (request) => {
      if (request.isNavigationRequest() && request.frame() === page.mainFrame()) navigations.push(`${request.method()} ${request.url()}`);
    });
    const form = page.getByTestId('change-password');
    await expect(form).toHaveAttribute('method', 'post');
    const submit = form.getByRole('button', { name: 'Change password' });
    await expect(submit).toBeDisabled();
    await form.getByLabel('Current password').fill('typed before the script ran');
    await form.getByLabel('Current password').press('Enter');
    await submit.click({ force: true });
    expect(navigations).toEqual([]);
    await expect(form.getByLabel('Current password')).toHaveValue('typed before the script ran');
    await page.goto('/console/acme-rockets/members');
    await page.getByRole('link', { name: `Permissions of ${ROCKETS.member.email}` }).click();
    const grant = page.getByTestId('direct-grants').locator('form').last();
    await expect(grant).toHaveAttribute('method', 'post');
    await expect(grant.getByRole('button', { name: 'Grant' })).toBeDisabled();
  } finally {
    await context.close();
  }
});

test('clickjacking (RFC 9700 §4.16): every interactive page refuses to be framed; only the embedded central lists its framers', async ({ request }) => {
  const pages = [...appPaths('page.tsx'), '/oidc/session/end', '/oidc/auth?client_id=unknown', '/no-such-page'];
  expect(pages).toEqual(expect.arrayContaining(['/', '/console/login', '/central', '/auth/app/x-uid', '/embedded-central/requests/apr_aaaaaaaaaaaaaaaaaaaaaaaa']));
  for (const pathname of pages) {
    const response = await request.get(pathname, { maxRedirects: 0, failOnStatusCode: false });
    const headers = response.headers();
    if (pathname.startsWith('/embedded-central/')) {
      expect(headers['x-frame-options'], pathname).toBeUndefined();
      expect(headers['content-security-policy'], pathname).toContain(`frame-ancestors https://127.0.0.1:${MCP_HOST_PORT}`);
    } else {
      expect(headers['x-frame-options'], pathname).toBe('DENY');
      expect(headers['content-security-policy'], pathname).toContain("frame-ancestors 'none'");
    }
  }
});
