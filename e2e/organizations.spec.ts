// Anyone signed in creates an organization and owns it: a person with none is offered it on their account page; the
// address (slug) follows the name until edited, is previewed, and a taken one is refused next to its field with what
// was typed kept; the new organization opens with next steps; its owner renames it, and the slug stays.
import { expect, test } from './support/test';
import { expectAccessible } from './support/accessibility';
import { consoleSignIn } from './support/console';
import { FOUNDER } from './support/fixtures';

test('a person with no organization creates one, owns it, and renames it; the address is kept', async ({ page }, testInfo) => {
  await consoleSignIn(page, FOUNDER);
  await expect(page).toHaveURL(/\/console\/account$/);
  await page.getByTestId('new-org-link').click();
  await expect(page).toHaveURL(/\/console\/orgs\/new$/);

  const form = page.getByTestId('new-org');
  await form.getByLabel('Name').fill('Demo');
  // The address follows the name and is previewed.
  await expect(form.getByLabel('Address (slug)')).toHaveValue('demo');
  await expect(form.getByLabel('Address (slug)')).toHaveAccessibleDescription(/\/console\/demo\b/);
  await form.getByRole('button', { name: 'Create organization' }).click();
  // Taken (the demo organization has it): said next to the field, what was typed kept, a free one suggested.
  await expect(form.getByTestId('field-error-org-slug')).toContainText('The address demo is taken. demo-2 is free.');
  await expect(form.getByLabel('Address (slug)')).toHaveAttribute('aria-invalid', 'true');
  await expect(form.getByLabel('Name')).toHaveValue('Demo');
  await expectAccessible(page);
  await page.screenshot({ path: testInfo.outputPath('new-org-refused.png'), fullPage: true });

  await form.getByLabel('Name').fill('Founder Works');
  await form.getByLabel('Address (slug)').fill('founder-works');
  await form.getByRole('button', { name: 'Create organization' }).click();
  await page.waitForURL(/\/console\/founder-works\/apps\?created=org$/);
  await expect(page.getByTestId('org-created')).toContainText('Founder Works is ready, with you as its owner');
  await expect(page.getByTestId('org-switcher')).toContainText('owner');
  await page.screenshot({ path: testInfo.outputPath('new-org-created.png'), fullPage: true });

  await page.goto('/console/founder-works/settings');
  await expect(page.getByTestId('org-slug')).toHaveText('founder-works');
  const rename = page.getByTestId('rename-org');
  await rename.getByLabel('Name').fill('   ');
  await rename.getByRole('button', { name: 'Rename' }).click();
  await expect(rename.getByTestId('action-error')).toContainText('Give the organization a name.');
  await expect(rename.getByTestId('action-error')).not.toContainText('name:');
  await rename.getByLabel('Name').fill('Founder Works GmbH');
  await rename.getByRole('button', { name: 'Rename' }).click();
  await expect(rename.getByRole('status')).toContainText('Renamed to Founder Works GmbH. The address stays /console/founder-works.');
  await page.reload();
  await expect(page.getByTestId('org-switcher')).toContainText('Founder Works GmbH');
  await expect(page.getByTestId('org-slug')).toHaveText('founder-works');
  await expectAccessible(page);
});
