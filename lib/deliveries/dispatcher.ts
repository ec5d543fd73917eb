// The outbound dispatcher of one Portico process: delivers the outbox (lib/deliveries/outbox.ts) every few
// seconds, and at once when a transaction of this process has just committed something to it (kick, called by the
// database's after-commit hook that boot wires: lib/db/client.ts AfterCommitHooks). Other instances' deliveries
// are picked up by their own dispatchers or by this one's next round; the lease keeps two from attempting one.
import type { Database } from '../db/client';
import type { DeliveryChannel } from '../db/schema';
import { deliverDue, type DeliveryHandlers } from './outbox';

const ROUND_MS = 3_000;

export interface DeliveryDispatcher {
  start(): void;
  /** Deliver soon: something was committed to the outbox (to this channel only, when given). */
  kick(channel?: DeliveryChannel): void;
  stop(): Promise<void>;
}

/**
 * One dispatcher per channel (createOutbox), so a slow or failing receiver of one channel never holds back another's:
 * a webhook receiver that times out delays neither an invitation nor a logout token.
 */
export function createDeliveryDispatcher(db: () => Database, handlers: DeliveryHandlers, log: (line: string) => void = console.error, batch = 20): DeliveryDispatcher {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let started = false;
  let stopped = false;

  async function round(): Promise<void> {
    do {
      again = false;
      try {
        const report = await deliverDue(db(), handlers, batch);
        if (report.retrying + report.failed > 0) log(`[outbox] ${report.sent} delivered, ${report.retrying} to retry, ${report.failed} given up (see the outbound_deliveries table)`);
        // A full batch: more may be waiting.
        if (report.sent + report.retrying + report.failed >= batch) again = true;
      } catch (error) {
        // The database may be briefly unavailable: the next round tries again.
        log(`[outbox] delivery round failed: ${error instanceof Error ? error.message : String(error)}`);
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

/**
 * The process's outbox: mail, and the POSTs to other servers (webhooks, logout tokens, security events), each
 * channel with its own dispatcher, started, kicked and stopped together.
 */
export function createOutbox(db: () => Database, handlers: Required<Omit<DeliveryHandlers, 'security_event_poll'>>, log?: (line: string) => void): DeliveryDispatcher {
  // One dispatcher per channel, so that receivers that are slow or down on one channel never hold back another's
  // (a webhook receiver timing out does not delay a logout token). POSTs go in batches of 10, each answered within 10 s.
  // Polled security events (security_event_poll) are never dispatched: the receiver fetches them (lib/ssf/streams.ts).
  const dispatchers: Array<[DeliveryChannel, DeliveryDispatcher]> = [
    ['mail', createDeliveryDispatcher(db, { mail: handlers.mail }, log, 20)],
    ['webhook', createDeliveryDispatcher(db, { webhook: handlers.webhook }, log, 10)],
    ['logout_token', createDeliveryDispatcher(db, { logout_token: handlers.logout_token }, log, 10)],
    ['security_event', createDeliveryDispatcher(db, { security_event: handlers.security_event }, log, 10)],
  ];
  return {
    start: () => dispatchers.forEach(([, dispatcher]) => dispatcher.start()),
    kick: (channel) => dispatchers.forEach(([own, dispatcher]) => (channel === undefined || channel === own) && dispatcher.kick()),
    stop: async () => {
      await Promise.all(dispatchers.map(([, dispatcher]) => dispatcher.stop()));
    },
  };
}
