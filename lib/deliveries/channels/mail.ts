// The outbox's mail channel. A message is queued sealed (it holds a single-use link: lib/security/at-rest.ts), and
// goes to an SMTP server (PORTICO_SMTP_URL, through nodemailer), or — when none is configured, as on a local
// install — to the development outbox: each message written as an .eml file to <data folder>/outbox and its link
// printed to the server log, so that invitations and resets can be tried without a mail server.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import nodemailer from 'nodemailer';
import { terminalText } from '../../util/visible-text';
import type { MailMessage } from '../../mail/messages';
import type { Queryable } from '../../db/client';
import { enqueue, type DeliveryHandler } from '../outbox';
import { decryptAtRest, encryptAtRest } from '../../security/at-rest';

/** Queues one message, sealed, in the caller's transaction. */
export async function enqueueMail(db: Queryable, atRestKey: Uint8Array, message: MailMessage, orgId: string | null = null): Promise<void> {
  await enqueue(db, [{ channel: 'mail', orgId, recipient: message.to, sealedPayload: await encryptAtRest(JSON.stringify(message), atRestKey) }]);
}

/** Sends one message; throws when the transport refuses it. */
export type SendMail = (message: MailMessage) => Promise<void>;

export interface MailTransportOptions {
  smtpUrl?: string;
  from: string;
  dataDir: string;
  log?: (line: string) => void;
}

export function developmentOutboxFolder(dataDir: string): string {
  return path.join(dataDir, 'outbox');
}

export function createMailSender(options: MailTransportOptions): SendMail {
  if (options.smtpUrl) {
    const transport = nodemailer.createTransport(options.smtpUrl);
    return async (message) => {
      await transport.sendMail({ from: options.from, to: message.to, subject: message.subject, text: message.text, html: message.html });
    };
  }
  const folder = developmentOutboxFolder(options.dataDir);
  const stream = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  const log = options.log ?? ((line: string) => console.log(line));
  return async (message: MailMessage) => {
    const info = await stream.sendMail({ from: options.from, to: message.to, subject: message.subject, text: message.text, html: message.html });
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const file = path.join(folder, `${new Date().toISOString().replaceAll(':', '-')}-${randomBytes(3).toString('hex')}.eml`);
    // Owner-only: the message holds a single-use link.
    writeFileSync(file, info.message as Buffer, { mode: 0o600 });
    log(`[mail] development outbox: "${terminalText(message.subject)}" to ${terminalText(message.to)} → ${file}${message.link ? `\n[mail]   link: ${message.link}` : ''}`);
  };
}

/** The outbox's mail channel: opens the sealed message and sends it. */
export function mailDelivery(atRestKey: Uint8Array, send: SendMail): DeliveryHandler {
  return async (delivery) => {
    await send(JSON.parse(await decryptAtRest(delivery.sealedPayload ?? '', atRestKey)) as MailMessage);
  };
}
