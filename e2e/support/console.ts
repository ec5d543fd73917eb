// Signing in to the console as one of the fixture people.
import type { Page } from '@playwright/test';

export async function consoleSignIn(page: Page, person: { email: string; password: string }, landing = /\/console\/[a-z0-9-]+\/apps$|\/console\/account$/) {
  await page.goto('/console/login');
  await page.getByLabel('Email').fill(person.email);
  await page.getByLabel('Password').fill(person.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL(landing);
}
