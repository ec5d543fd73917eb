// Settings → Webhooks in a real browser: an admin adds an endpoint of a real HTTPS receiver (a refused address keeps
// what was typed and says why next to the field), stores the secret shown once, sends a test event, sees it in the
// delivery log, and the receiver verifies every request with the standardwebhooks library. An invitation then
// reaches it as member.invitation_sent; redelivery repeats it with the same webhook-id.
import { readFileSync } from 'node:fs';
import { expect, test } from './support/test';
import { Webhook } from 'standardwebhooks';
import { expectAccessible } from './support/accessibility';
import { consoleSignIn } from './support/console';
import { DEMO } from './support/constants';
import { startWebhookReceiver, type WebhookReceiver } from '../test/support/webhook-receiver';

let receiver: WebhookReceiver;
test.beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
test.afterAll(async () => receiver.close());

test('an admin adds an endpoint, verifies a test event and a real one, redelivers, and removes it', async ({ page }) => {
  await consoleSignIn(page, DEMO);
  await page.goto('/console/demo/settings');
  await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Webhooks' }).click();
  await expect(page).toHaveURL(/\/console\/demo\/settings\/webhooks$/);
  const form = page.getByTestId('add-webhook');

  // Refused: not https. What was typed stays, and the reason stands next to the field.
  await form.getByLabel('Endpoint URL').fill('http://hooks.example.com/portico');
  await form.getByLabel('Description').fill('Pager bridge');
  await form.getByRole('checkbox', { name: 'Members' }).check();
  await form.getByRole('button', { name: 'Add endpoint' }).click();
  await expect(page.getByTestId('field-error-field-url')).toHaveText('The endpoint must be an https address: events travel over TLS only.');
  await expect(form.getByLabel('Endpoint URL')).toHaveAttribute('aria-invalid', 'true');
  await expect(form.getByLabel('Description')).toHaveValue('Pager bridge');
  await expect(form.getByRole('checkbox', { name: 'Members' })).toBeChecked();
  await expectAccessible(page);

  await form.getByLabel('Endpoint URL').fill(`${receiver.origin}/portico`);
  await form.getByRole('button', { name: 'Add endpoint' }).click();
  const secret = (await form.getByTestId('secret-once').textContent())!.trim();
  expect(secret).toMatch(/^whsec_/);
  // Shown once, at the top of the form (above its first field), with a copy and a download of its own.
  const secretBox = (await form.getByTestId('secret-once').boundingBox())!;
  const firstField = (await form.getByLabel('Endpoint URL').boundingBox())!;
  expect(secretBox.y).toBeLessThan(firstField.y);
  await expect(form.getByRole('button', { name: 'Copy to clipboard' })).toBeVisible();
  const downloading = page.waitForEvent('download');
  await form.getByRole('button', { name: 'Download as a file' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe('portico-webhook-secret.txt');
  expect(readFileSync((await download.path())!, 'utf8')).toBe(`${secret}\n`);
  await form.getByTestId('action-next').click();
  await expect(page.getByTestId('webhook-url')).toHaveText(`${receiver.origin}/portico`);
  // Shown once: nowhere on the endpoint's page.
  expect(await page.content()).not.toContain(secret);

  await page.getByTestId('send-webhook-test').getByRole('button', { name: 'Send test event' }).click();
  await expect(page.getByTestId('send-webhook-test').getByTestId('action-ok')).toBeVisible();
  await expect.poll(() => receiver.received.length, { timeout: 15_000 }).toBe(1);
  const verifier = new Webhook(secret);
  expect(verifier.verify(receiver.received[0]!.body, receiver.received[0]!.headers as Record<string, string>)).toMatchObject({ type: 'webhook.test' });
  await expect
    .poll(async () => {
      await page.reload();
      return page.getByTestId('webhook-deliveries').locator('tr[data-state="delivered"]').count();
    })
    .toBe(1);
  await expectAccessible(page);

  // A real event: an invitation in this organization.
  await page.goto('/console/demo/members');
  await page.getByTestId('invite-member').getByLabel('Email').fill(`hooked-${Date.now()}@demo.e2e.test`);
  await page.getByTestId('invite-member').getByRole('button', { name: 'Send invitation' }).click();
  await expect(page.getByTestId('invite-member').getByTestId('action-ok')).toBeVisible();
  await expect.poll(() => receiver.received.length, { timeout: 15_000 }).toBe(2);
  const invitation = receiver.received[1]!;
  const event = verifier.verify(invitation.body, invitation.headers as Record<string, string>) as { type: string; data: { actor: { label: string } } };
  expect(event.type).toBe('member.invitation_sent');
  expect(event.data.actor.label).toBe(DEMO.email);

  // Redelivered from the log: the same webhook-id, signed anew.
  await page.goBack();
  await page.reload();
  const row = page.getByTestId('webhook-deliveries').locator('tr', { hasText: 'member.invitation_sent' });
  await row.getByRole('button', { name: 'Redeliver' }).click();
  await expect(row.getByTestId('action-ok')).toBeVisible();
  await expect.poll(() => receiver.received.length, { timeout: 15_000 }).toBe(3);
  expect(receiver.received[2]!.headers['webhook-id']).toBe(invitation.headers['webhook-id']);
  verifier.verify(receiver.received[2]!.body, receiver.received[2]!.headers as Record<string, string>);

  // Removed: nothing more goes there.
  await page.getByRole('button', { name: 'Remove endpoint' }).click();
  await page.getByRole('button', { name: 'Yes, remove it' }).click();
  await expect(page).toHaveURL(/\/console\/demo\/settings\/webhooks$/);
  await expect(page.getByTestId('empty-state')).toBeVisible();
});

test('an intranet address is refused next to the field with the installation setting that would allow it, in both languages and on a phone', async ({ browser }, testInfo) => {
  const words = {
    'en-US': { url: 'Endpoint URL', add: 'Add endpoint', description: 'Description', reason: 'is on a private network' },
    'pt-BR': { url: 'URL do endpoint', add: 'Adicionar endpoint', description: 'Descrição', reason: 'está numa rede privada' },
  } as const;
  for (const locale of ['en-US', 'pt-BR'] as const) {
    const context = await browser.newContext({ locale });
    const page = await context.newPage();
    await consoleSignIn(page, DEMO);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto('/console/demo/settings/webhooks');
      const form = page.getByTestId('add-webhook');
      await form.getByLabel(words[locale].url).fill('https://10.1.2.3/portico');
      await form.getByLabel(words[locale].description).fill('Intranet receiver');
      await form.getByRole('button', { name: words[locale].add }).click();
      const error = page.getByTestId('field-error-field-url');
      await expect(error).toContainText(words[locale].reason);
      await expect(error).toContainText('PORTICO_OUTBOUND_ALLOWED_NETWORKS');
      // What was typed stays.
      await expect(form.getByLabel(words[locale].url)).toHaveValue('https://10.1.2.3/portico');
      await expect(form.getByLabel(words[locale].description)).toHaveValue('Intranet receiver');
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `webhooks ${locale} ${width}`).toBe(true);
      await form.screenshot({ path: testInfo.outputPath(`webhook-private-network-${locale}-${width}.png`) });
      // axe once per page and language (the every-page sweep's rule): the phone width in English, the desktop in Portuguese.
      if (width === (locale === 'en-US' ? 390 : 1280)) await expectAccessible(page);
    }
    await context.close();
  }
});
