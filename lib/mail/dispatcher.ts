// The mail dispatcher of one Portico process: delivers the outbox every few seconds, and at once when a request of
// this process has just queued a message (kick). Other instances' messages are picked up by their own dispatchers
// or by this one's next round.
import type { Database } from '../db/client';
import { deliverDueMail, type SendMail } from './outbox';

const ROUND_MS = 3_000;

export interface MailDispatcher {
  start(): void;
  /** Deliver soon: a message was committed to the outbox. */
  kick(): void;
  stop(): Promise<void>;
}

export function createMailDispatcher(db: () => Database, atRestKey: Uint8Array, send: SendMail, log: (line: string) => void = console.error): MailDispatcher {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let started = false;
  let stopped = false;

  async function round(): Promise<void> {
    do {
      again = false;
      try {
        const report = await deliverDueMail(db(), atRestKey, send);
        if (report.retrying + report.failed > 0) log(`[mail] ${report.sent} sent, ${report.retrying} to retry, ${report.failed} given up (see the mail_outbox table)`);
      } catch (error) {
        // The database may be briefly unavailable: the next round tries again.
        log(`[mail] delivery round failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    } while (again && !stopped);
  }

  function run(): void {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = round().finally(() => {
      running = undefined;
    });
  }

  return {
    start() {
      if (started) return;
      started = true;
      timer = setInterval(run, ROUND_MS);
      timer.unref();
      run();
    },
    kick() {
      if (started) setImmediate(run);
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      await running;
    },
  };
}
