// A real HTTPS receiver in the test process, serving the loopback certificate the process under test trusts (vitest:
// test/support/global-setup.ts sets NODE_EXTRA_CA_CERTS for the workers; e2e: the server's): Portico's webhooks reach it exactly as they would reach
// an organization's server. It keeps every request and can be told to fail the next ones.
import type { IncomingHttpHeaders } from 'node:http';
import { createServer } from 'node:https';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { loopbackTlsFiles } from '../../e2e/support/tls';

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
}

export interface WebhookReceiver {
  /** https://localhost:<port> */
  origin: string;
  received: ReceivedWebhook[];
  /** The statuses of the next answers (then 204 again). */
  failNext(...statuses: number[]): void;
  /** Paths answered with a body of their own (200): a file a check fetches. */
  files: Map<string, string>;
  close(): Promise<void>;
}

/** `tlsDir`: the certificate's folder — a vitest run's own (inject('tlsDir')); none: the end-to-end run's. */
export async function startWebhookReceiver(tlsDir?: string): Promise<WebhookReceiver> {
  const tls = loopbackTlsFiles({ dir: tlsDir });
  const received: ReceivedWebhook[] = [];
  const failures: number[] = [];
  const files = new Map<string, string>();
  const server = createServer({ cert: readFileSync(tls.certPath), key: readFileSync(tls.keyPath) }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const file = files.get(request.url ?? '');
      const status = failures.shift() ?? (file === undefined ? 204 : 200);
      received.push({ path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), status });
      if (status === 200 && file !== undefined) response.writeHead(200, { 'content-type': 'text/plain' }).end(file);
      else response.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `https://localhost:${(server.address() as AddressInfo).port}`,
    received,
    failNext: (...statuses) => failures.push(...statuses),
    files,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
