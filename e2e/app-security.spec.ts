// The security tab of an app: rotation with overlap, stale views refused, revocation, dev environment.
import { expect, test, type Page } from './support/test';
import { DEMO, E2E_ISSUER } from './support/constants';
import { ROCKETS } from './support/fixtures';

const VAULT = ROCKETS.vault;

/**
 * Does the secret authenticate? The token endpoint checks client authentication before the grant: a right secret
 * with a bogus code gets invalid_grant (400), a wrong one invalid_client (401).
 */
async function secretWorks(secret: string): Promise<boolean> {
  const response = await fetch(`${E2E_ISSUER}/oidc/token`, {
    method: 'POST',
    headers: { Authorization: `Basic ${Buffer.from(`${VAULT.clientId}:${secret}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: 'not-a-code', redirect_uri: VAULT.redirectUri, code_verifier: 'v'.repeat(43) }),
  });
  const { error } = (await response.json()) as { error: string };
  if (error === 'invalid_client') return false;
  expect(error).toBe('invalid_grant');
  return true;
}

async function openSecurityTab(page: Page, email: string, password: string) {
  await page.goto('/console/login');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL(/\/console\/.+\/apps$/);
  await page.goto('/console/demo/apps');
  await page.getByRole('link', { name: VAULT.appName, exact: true }).click();
  await page.waitForURL(/\/console\/demo\/apps\/[0-9a-f-]{36}$/);
}

test.describe.configure({ mode: 'serial' });

test('rotation: start shows the new secret once, both work during the overlap, complete keeps only the new one', async ({ page, browser }, testInfo) => {
  await openSecurityTab(page, DEMO.email, DEMO.password);
  await page.getByRole('link', { name: 'Security' }).click();
  await expect(page.getByRole('navigation', { name: 'App sections' }).getByRole('link', { name: 'Security' })).toHaveAttribute('aria-current', 'page');
  await expect(page.getByRole('heading', { name: VAULT.appName, level: 1 })).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath('security.png'), fullPage: true });

  // A second tab keeps the view from before the rotation.
  const staleContext = await browser.newContext();
  const stale = await staleContext.newPage();
  await openSecurityTab(stale, DEMO.email, DEMO.password);
  await stale.goto(page.url());

  await page.getByTestId('start-rotation').getByLabel('Overlap (hours)').fill('24');
  await page.getByTestId('start-rotation').getByRole('button', { name: 'Start rotation' }).click();
  const shown = await page.getByTestId('secret-once').textContent();
  const newSecret = /PORTICO_CLIENT_SECRET=(\S+)/.exec(shown ?? '')?.[1];
  expect(newSecret).toBeTruthy();
  await page.screenshot({ path: testInfo.outputPath('rotation-started.png'), fullPage: true });
  expect(await secretWorks(VAULT.clientSecret)).toBe(true);
  expect(await secretWorks(newSecret!)).toBe(true);

  // The stale tab cannot start another rotation over this one.
  await stale.getByTestId('start-rotation').getByRole('button', { name: 'Start rotation' }).click();
  await expect(stale.getByTestId('start-rotation').getByTestId('action-error')).toContainText('The credential changed since you looked at it');
  await staleContext.close();

  await page.reload();
  await expect(page.getByTestId('rotation-state')).toContainText('Rotation in progress');
  await page.getByTestId('complete-rotation').getByRole('button', { name: 'Complete rotation' }).click();
  await expect(page.getByTestId('complete-rotation').getByRole('alert')).toContainText('The old secret stops working now');
  await page.getByTestId('complete-rotation').getByRole('button', { name: 'Yes, complete' }).click();
  await expect(page.getByTestId('complete-rotation').getByRole('status')).toContainText('only the new secret works now');
  expect(await secretWorks(VAULT.clientSecret)).toBe(false);
  expect(await secretWorks(newSecret!)).toBe(true);

  // Start and cancel: the new one is discarded.
  await page.reload();
  await page.getByTestId('start-rotation').getByRole('button', { name: 'Start rotation' }).click();
  const discarded = /PORTICO_CLIENT_SECRET=(\S+)/.exec((await page.getByTestId('secret-once').textContent()) ?? '')?.[1];
  // Cancelled from the same page: the discarded secret is no longer shown.
  await page.getByTestId('cancel-rotation').getByRole('button', { name: 'Cancel rotation' }).click();
  await page.getByTestId('cancel-rotation').getByRole('button', { name: 'Yes, cancel' }).click();
  await page.waitForURL(/\/security\?rotation=cancelled$/);
  await expect(page.getByTestId('rotation-cancelled')).toContainText('Rotation cancelled');
  await expect(page.getByTestId('secret-once')).toHaveCount(0);
  await expect(page.locator('body')).not.toContainText(discarded!);
  expect(await secretWorks(discarded!)).toBe(false);
  expect(await secretWorks(newSecret!)).toBe(true);

  await page.reload();
  await expect(page.getByTestId('security-audit')).toContainText('app.secret_rotation_cancelled');
  await expect(page.getByTestId('security-audit')).toContainText('app.secret_rotation_completed');
  await expect(page.getByTestId('security-audit')).toContainText('app.secret_rotation_started');
});

test('revocation and the dev environment', async ({ page }, testInfo) => {
  await openSecurityTab(page, DEMO.email, DEMO.password);
  await page.getByRole('link', { name: 'Security' }).click();

  const revoke = page.getByTestId('revoke-access');
  await revoke.getByRole('button', { name: 'Revoke all sessions' }).click();
  await expect(revoke.getByRole('alert')).toContainText('at most 10 minutes');
  await revoke.getByRole('button', { name: 'Yes, revoke' }).click();
  await expect(revoke.getByRole('status')).toContainText('Revoked');

  await page.getByTestId('add-dev-uri').getByLabel('Dev-only redirect URI').fill('http://localhost:5173/callback');
  await page.getByTestId('add-dev-uri').getByRole('button', { name: 'Add dev-only URI' }).click();
  await expect(page.getByTestId('add-dev-uri').getByRole('status')).toContainText('Dev-only redirect URI added');
  await page.getByTestId('dev-on').getByRole('button', { name: 'Turn on' }).click();
  await expect(page.getByTestId('dev-on').getByRole('status')).toContainText('Dev environment on until');
  await page.reload();
  await expect(page.getByTestId('dev-state')).toContainText('On until');
  await expect(page.getByTestId('security-redirect-uris')).toContainText('dev only');
  await page.screenshot({ path: testInfo.outputPath('dev-on.png'), fullPage: true });
  await page.getByTestId('dev-off').getByRole('button', { name: 'Turn off now' }).click();
  await expect(page.getByTestId('dev-off').getByRole('status')).toContainText('Dev environment off');
  await page.reload();
  await expect(page.getByTestId('dev-state')).toContainText('Off');
  for (const action of ['app.access_revoked', 'app.dev_environment_on', 'app.dev_environment_off']) {
    await expect(page.getByTestId('security-audit')).toContainText(action);
  }
});

test('the security tab is refused to a member', async ({ page }, testInfo) => {
  await openSecurityTab(page, ROCKETS.outsider.email, ROCKETS.outsider.password);
  await expect(page.getByRole('link', { name: 'Security' })).toHaveCount(0);
  await page.goto(`${page.url()}/security`);
  await expect(page.getByText('Only the organization’s owners and admins can open an app’s security tab.')).toBeVisible();
  await expect(page.getByTestId('start-rotation')).toHaveCount(0);
  await page.screenshot({ path: testInfo.outputPath('member-refused.png'), fullPage: true });
});
