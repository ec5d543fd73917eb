import { expect, test } from '@playwright/test';

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
