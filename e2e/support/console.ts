// Signing in to the console as one of the fixture people.
import type { Page } from '@playwright/test';

export async function consoleSignIn(page: Page, person: { email: string; password: string }, landing = /\/console\/[a-z0-9-]+\/apps$|\/console\/account$/) {
  await page.goto('/console/login');
  // By the fields' names, not their labels: the page may be in any language.
  await page.locator('input[name="email"]').fill(person.email);
  await page.locator('input[name="password"]').fill(person.password);
  await page.locator('form:has(input[name="password"]) button[type="submit"]').click();
  await page.waitForURL(landing);
}
