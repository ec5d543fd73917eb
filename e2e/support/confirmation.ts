// Calls Portico holds for a person's confirmation (human mode, the default): the first answer is the challenge (428)
// with the page where the person confirms; the caller's own retry before that waits (428) and runs nothing; the test
// then plays the person — signs in to Portico in the browser, checks the call, types the password (step-up) and
// confirms — and only then repeats the call with the token.
import { expect, type Page, type TestInfo } from '@playwright/test';

export interface Person {
  email: string;
  password: string;
}

/** The person confirms one call on its confirmation page (signing in to Portico first when needed). */
export async function confirmInPortico(page: Page, confirmationUrl: string, person: Person, screenshot?: { testInfo: TestInfo; name: string }): Promise<void> {
  await page.goto(confirmationUrl);
  if (new URL(page.url()).pathname === '/console/login') {
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Password').fill(person.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(confirmationUrl);
  }
  await expect(page.getByTestId('confirmation-call')).toBeVisible();
  if (screenshot) await page.screenshot({ path: screenshot.testInfo.outputPath(screenshot.name), fullPage: true });
  await page.getByLabel('Your password').fill(person.password);
  await page.getByTestId('confirm-call').click();
  await expect(page.getByTestId('confirmation-done')).toContainText('Confirmed');
}

export async function confirmed(page: Page, person: Person, send: (extra: Record<string, unknown>) => Promise<Response>): Promise<Response> {
  const challenge = await send({});
  expect(challenge.status).toBe(428);
  const body = (await challenge.json()) as { error: string; confirmation_token: string; confirmation_url: string; error_description: string };
  expect(body.error).toBe('confirmation_required');
  expect(body.error_description).toContain('Confirmation required');
  // The caller relaying the token itself runs nothing.
  const early = await send({ _confirmation_token: body.confirmation_token });
  expect(early.status).toBe(428);
  expect(((await early.json()) as { error: string }).error).toBe('waiting_for_confirmation');
  await confirmInPortico(page, body.confirmation_url, person);
  return send({ _confirmation_token: body.confirmation_token });
}
