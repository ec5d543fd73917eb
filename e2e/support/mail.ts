// Reading the mail the e2e Portico sent over SMTP to the mailbox that e2e/support/serve.ts runs.
import { expect } from '@playwright/test';
import type { ReceivedMail } from '../../test/support/mailbox';
import { MAILBOX_HTTP_PORT } from './constants';

export async function allMail(): Promise<ReceivedMail[]> {
  const response = await fetch(`http://127.0.0.1:${MAILBOX_HTTP_PORT}/messages`);
  return (await response.json()) as ReceivedMail[];
}

/** Waits for the newest mail to `to` whose subject matches, received after `since` (ms since the epoch). */
export async function waitForMail(to: string, subject: RegExp, since = 0): Promise<ReceivedMail> {
  let found: ReceivedMail | undefined;
  await expect
    .poll(
      async () => {
        found = (await allMail()).filter((mail) => mail.to.includes(to.toLowerCase()) && subject.test(mail.subject) && mail.receivedAt >= since).at(-1);
        return found !== undefined;
      },
      { timeout: 20_000, message: `a mail to ${to} matching ${subject}` },
    )
    .toBe(true);
  return found!;
}

/** The one Portico link of a mail, as a path on the e2e issuer. */
export function linkPath(mail: ReceivedMail): string {
  const [link] = mail.links;
  expect(link, `a link in "${mail.subject}"`).toBeDefined();
  const url = new URL(link!);
  return `${url.pathname}${url.search}`;
}
