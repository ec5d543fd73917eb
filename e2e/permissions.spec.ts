// An app's permission catalog in the console: add a permission with its description, retire and restore it.
import { expect, test } from '@playwright/test';
import { expectAccessible } from './support/accessibility';
import { consoleSignIn } from './support/console';
import { DEMO } from './support/constants';

test('an admin keeps the app’s permission catalog: the baseline, added permissions, retired ones', async ({ page }, testInfo) => {
  await consoleSignIn(page, DEMO);
  await page.getByRole('link', { name: 'Demo App' }).click();
  await page.getByRole('link', { name: 'Permissions' }).click();
  const catalog = page.getByTestId('permission-catalog');
  await expect(catalog.locator('tr[data-scope="mcp"]')).toContainText('Baseline');

  const form = page.getByTestId('add-permission');
  await form.getByLabel('Permission (scope)').fill('has space');
  await form.getByLabel('Description').fill('Read invoices');
  await form.getByRole('button', { name: 'Add permission' }).click();
  await expect(form.getByTestId('action-error')).toContainText('letters, digits');
  // What was typed stays.
  await expect(form.getByLabel('Description')).toHaveValue('Read invoices');
  await form.getByLabel('Permission (scope)').fill('invoices:read');
  await form.getByRole('button', { name: 'Add permission' }).click();
  await expect(form.getByTestId('action-ok')).toContainText('invoices:read is in the catalog');
  await page.reload();
  const row = page.getByTestId('permission-catalog').locator('tr[data-scope="invoices:read"]');
  await expect(row).toContainText('Read invoices');
  await expect(row).toContainText('added by an admin');
  await page.screenshot({ path: testInfo.outputPath('permissions.png'), fullPage: true });
  await expectAccessible(page);

  await row.getByRole('button', { name: 'Retire' }).click();
  await row.getByRole('button', { name: 'Yes, retire' }).click();
  // The page shows the new state at once: retired, with a way back.
  await expect(row).toContainText('Retired');
  await row.getByRole('button', { name: 'Restore' }).click();
  await expect(row).not.toContainText('Retired');
  await expect(row.getByRole('button', { name: 'Retire' })).toBeVisible();

  // Who can do what: the demo owner holds the baseline; a stranger is not revealed.
  const explain = page.getByTestId('explain-form');
  await explain.getByLabel('Person (email) or agent (agt_…)').fill(DEMO.email);
  await explain.getByRole('button', { name: 'Explain' }).click();
  await expect(page.getByTestId('explanation').locator('li[data-scope="mcp"]')).toContainText('baseline');
  await page.screenshot({ path: testInfo.outputPath('permissions-explained.png'), fullPage: true });
  await page.getByTestId('explain-form').getByLabel('Person (email) or agent (agt_…)').fill('nobody@nowhere.test');
  await page.getByTestId('explain-form').getByRole('button', { name: 'Explain' }).click();
  await expect(page.getByTestId('explain-none')).toBeVisible();
});
