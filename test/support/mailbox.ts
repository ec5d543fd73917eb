// A real SMTP server in the test process (the smtp-server package) that keeps what it receives, parsed by
// mailparser: Portico's mail goes over SMTP exactly as it would to a provider, and the tests read it from here.
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string[];
  from: string;
  subject: string;
  text: string;
  html: string;
  /** Every http(s) link in the text part. */
  links: string[];
  receivedAt: number;
}

export interface Mailbox {
  url: string;
  port: number;
  messages: ReceivedMail[];
  /** Recipients whose mail the server refuses (a delivery failure). */
  refuse: Set<string>;
  /** Waits until a message for `to` (matching `subject`, if given) arrives after `since`. */
  waitFor(to: string, options?: { subject?: RegExp; since?: number; timeoutMs?: number }): Promise<ReceivedMail>;
  close(): Promise<void>;
}

export async function startMailbox(port = 0): Promise<Mailbox> {
  const messages: ReceivedMail[] = [];
  const refuse = new Set<string>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (refuse.has(address.address.toLowerCase())) callback(Object.assign(new Error('mailbox unavailable'), { responseCode: 550 }));
      else callback();
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          const text = parsed.text ?? '';
          messages.push({
            to: session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase()),
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            subject: parsed.subject ?? '',
            text,
            html: typeof parsed.html === 'string' ? parsed.html : '',
            links: [...text.matchAll(/https?:\/\/\S+/g)].map((match) => match[0]),
            receivedAt: Date.now(),
          });
          callback();
        })
        .catch((error: Error) => callback(error));
    },
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const actualPort = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${actualPort}`,
    port: actualPort,
    messages,
    refuse,
    async waitFor(to, options = {}) {
      const deadline = Date.now() + (options.timeoutMs ?? 15_000);
      for (;;) {
        const found = messages.find(
          (message) => message.to.includes(to.toLowerCase()) && message.receivedAt >= (options.since ?? 0) && (!options.subject || options.subject.test(message.subject)),
        );
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no mail to ${to}${options.subject ? ` matching ${options.subject}` : ''} arrived`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
