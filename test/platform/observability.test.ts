// What an operator sees (lib/observability): /metrics in the Prometheus text format, read here by a Prometheus
// text-format parser, behind its bearer token or on the loopback listener; a request id in every response and in
// the request's log line; nothing secret in the log.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { eq, sql } from 'drizzle-orm';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { throttledPasswordCheck } from '../../lib/accounts/factors/throttled-password-check';
import { enqueueMail } from '../../lib/deliveries/channels/mail';
import { outboundDeliveries } from '../../lib/db/schema';
import { childProcessEnvironment, parseEnv } from '../../lib/env';
import { listenForMetrics, observe } from '../../lib/observability/http';
import { loggablePath, writeLogTo } from '../../lib/observability/log';
import { enableMetrics } from '../../lib/observability/metrics';
import { openTestDatabase, type TestDatabase } from '../support/databases';

const TOKEN = 'metrics-token-of-at-least-thirty-two-characters';
const PROMTOOL = '/usr/bin/promtool';
const PROM_CLIENT_DEFAULTS_REMARK = /^portico_nodejs_active_(?:handles|requests|resources)_total non-counter metrics should not have "_total" suffix$/;

interface Sample {
  labels?: Record<string, string>;
  value?: string;
  count?: string;
  buckets?: Record<string, string>;
}
interface Family {
  name: string;
  type: string;
  metrics: Sample[];
}

describe('metrics and logs', () => {
  let database: TestDatabase;
  let server: Server;
  let base = '';
  const logLines: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    database = await openTestDatabase();
    writeLogTo(
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          for (const line of chunk.toString().split('\n').filter(Boolean)) logLines.push(JSON.parse(line) as Record<string, unknown>);
          done();
        },
      }),
    );
    enableMetrics({ db: () => database.db, poolSize: 20 });
    // The application behind the wrapper: each path does real work on the database, as Portico's do.
    const application = async (req: IncomingMessage, res: ServerResponse) => {
      const path = (req.url ?? '/').split('?', 1)[0];
      if (path === '/oidc/token') {
        await database.db.execute(sql`select 1`);
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
      } else if (path === '/api/mcp') {
        await database.db.transaction(async (tx) => tx.execute(sql`select 1`));
        res.writeHead(400).end();
      } else {
        res.writeHead(404).end('not found');
      }
    };
    server = createServer(observe((req, res) => void application(req, res), { trustProxy: false, metricsToken: TOKEN }));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server?.close();
    await database?.close();
  });

  /**
   * A scrape, checked by Prometheus's own parser and linter (`promtool check metrics`, from Debian's prometheus
   * package, which .ci/run installs) and read with a JavaScript text-format parser.
   */
  async function scrape(url = `${base}/metrics`, headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }): Promise<Map<string, Family> & { text: string }> {
    const response = await fetch(url, { headers });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    const promtool = spawnSync(PROMTOOL, ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(promtool.error, `${PROMTOOL} is needed: install Debian's prometheus package`).toBeUndefined();
    // Its linter's only remarks are on three of prom-client's default Node.js gauges, which it names *_total.
    const remarks = `${promtool.stdout}${promtool.stderr}`.split('\n').filter((line) => line.trim() !== '' && !PROM_CLIENT_DEFAULTS_REMARK.test(line));
    expect(remarks).toEqual([]);
    // 0: clean; 3: lint remarks only (those above). A text it cannot parse is 1, with the error among the remarks.
    expect([0, 3]).toContain(promtool.status);
    return Object.assign(new Map((parsePrometheusTextFormat(text) as Family[]).map((family) => [family.name, family])), { text });
  }
  /** A histogram's observation count for one label value (the JavaScript parser keeps no labels on histograms). */
  const histogramCount = (scraped: { text: string }, name: string, label = '') =>
    [...scraped.text.matchAll(new RegExp(`^${name}_count(?:\\{([^}]*)\\})? (\\S+)$`, 'gm'))].filter((match) => (match[1] ?? '').includes(label)).reduce((sum, match) => sum + Number(match[2]), 0);
  const value = (families: Map<string, Family>, name: string, labels: Record<string, string> = {}) =>
    (families.get(name)?.metrics ?? []).filter((sample) => Object.entries(labels).every(([key, wanted]) => sample.labels?.[key] === wanted)).reduce((sum, sample) => sum + Number(sample.value ?? sample.count ?? 0), 0);

  it('answers /metrics only with the bearer token', async () => {
    const none = await fetch(`${base}/metrics`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
    expect(await none.text()).not.toContain('portico_');
    expect((await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}x` } })).status).toBe(401);
    expect((await fetch(`${base}/metrics`, { headers: { authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}` } })).status).toBe(401);
    await scrape();
  });

  it('counts requests and their latency by route family, and times every statement', async () => {
    const before = await scrape();
    for (let index = 0; index < 3; index++) expect((await fetch(`${base}/oidc/token`, { method: 'POST' })).status).toBe(200);
    expect((await fetch(`${base}/api/mcp`, { method: 'POST' })).status).toBe(400);
    const after = await scrape();
    expect(value(after, 'portico_http_requests_total', { family: 'token', method: 'POST', status: '2xx' }) - value(before, 'portico_http_requests_total', { family: 'token', method: 'POST', status: '2xx' })).toBe(3);
    expect(value(after, 'portico_http_requests_total', { family: 'mcp', status: '4xx' }) - value(before, 'portico_http_requests_total', { family: 'mcp', status: '4xx' })).toBe(1);
    expect(after.get('portico_http_request_duration_seconds')!.type).toBe('HISTOGRAM');
    expect(histogramCount(after, 'portico_http_request_duration_seconds', 'family="token"') - histogramCount(before, 'portico_http_request_duration_seconds', 'family="token"')).toBe(3);
    if (database.kind === 'postgres') {
      // Four statements at least (three selects, one in a transaction), and every connection handed back: the only
      // ones in use are at most the scrape's own two (the gauges read from the database while it is collected).
      expect(histogramCount(after, 'portico_db_statement_duration_seconds') - histogramCount(before, 'portico_db_statement_duration_seconds')).toBeGreaterThanOrEqual(4);
      expect(value(after, 'portico_db_pool_connections_in_use')).toBeLessThanOrEqual(2);
      expect(value(after, 'portico_db_pool_size')).toBe(20);
    }
  });

  it('reads the outbox depth and the pending approvals from the database, and counts refused sign-ins', async () => {
    await database.db.delete(outboundDeliveries);
    await enqueueMail(database.db, new Uint8Array(32), { to: 'someone@example.test', subject: 'Hello', text: 'Hello', html: '<p>Hello</p>' });
    await enqueueMail(database.db, new Uint8Array(32), { to: 'someone@example.test', subject: 'Hello again', text: 'Hello', html: '<p>Hello</p>' });
    const before = await scrape();
    expect(value(before, 'portico_outbox_depth')).toBe(2);
    expect(value(before, 'portico_approvals_pending')).toBe(0);
    const [first] = await database.db.select({ id: outboundDeliveries.id }).from(outboundDeliveries).limit(1);
    await database.db.update(outboundDeliveries).set({ deliveredAt: new Date() }).where(eq(outboundDeliveries.id, first!.id));
    expect(await throttledPasswordCheck(database.db, 'nobody@example.test', 'wrong password', '192.0.2.1')).toMatchObject({ ok: false });
    const after = await scrape();
    expect(value(after, 'portico_outbox_depth')).toBe(1);
    expect(value(after, 'portico_sign_in_failures_total', { reason: 'wrong_credentials' }) - value(before, 'portico_sign_in_failures_total', { reason: 'wrong_credentials' })).toBe(1);
  });

  it('gives every response a request id, which its log line carries, and logs no secret', async () => {
    const first = await fetch(`${base}/invite/${'s'.repeat(43)}?code=secret-in-query`);
    const second = await fetch(`${base}/oidc/token`, { method: 'POST', headers: { 'x-request-id': 'forged-by-the-client' } });
    const [firstId, secondId] = [first.headers.get('x-request-id'), second.headers.get('x-request-id')];
    expect(firstId).toMatch(/^[0-9a-f-]{36}$/);
    // Without a trusted proxy, an id the client sends is not taken: it could forge another request's log lines.
    expect(secondId).toMatch(/^[0-9a-f-]{36}$/);
    expect(secondId).not.toBe(firstId);
    await expect.poll(() => logLines.some((line) => line.reqId === secondId)).toBe(true);
    const line = logLines.find((entry) => entry.reqId === firstId)!;
    expect(line).toMatchObject({ level: 'info', msg: 'request', method: 'GET', family: 'page', path: '/invite/:secret', status: 404 });
    expect(JSON.stringify(logLines)).not.toContain('s'.repeat(43));
    expect(JSON.stringify(logLines)).not.toContain('secret-in-query');
    expect(JSON.stringify(logLines)).not.toContain(TOKEN);
  });

  it('keeps the request id a trusted proxy sends, when it is plain', async () => {
    const proxied = createServer(observe((_req, res) => void res.writeHead(204).end(), { trustProxy: true }));
    proxied.listen(0, '127.0.0.1');
    await once(proxied, 'listening');
    const url = `http://127.0.0.1:${(proxied.address() as AddressInfo).port}/`;
    try {
      expect((await fetch(url, { headers: { 'x-request-id': 'edge-4f2a.7' } })).headers.get('x-request-id')).toBe('edge-4f2a.7');
      expect((await fetch(url, { headers: { 'x-request-id': 'two words/and more' } })).headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      // No token configured: /metrics is an ordinary path, answered by the application.
      expect((await fetch(`${url}metrics`)).status).toBe(204);
    } finally {
      proxied.close();
    }
  });

  it('serves the metrics without a token on the loopback listener, and nothing else there', async () => {
    const listener = await listenForMetrics('127.0.0.1', 0);
    const url = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
    try {
      const families = await scrape(`${url}/metrics`, {});
      expect(families.has('portico_http_requests_total')).toBe(true);
      expect(families.has('portico_process_resident_memory_bytes')).toBe(true);
      expect((await fetch(`${url}/`)).status).toBe(404);
      expect((await fetch(`${url}/metrics`, { method: 'POST' })).status).toBe(404);
    } finally {
      listener.close();
    }
  });

  it('redacts secret path segments wherever they are', () => {
    expect(loggablePath('/account/password/abc')).toBe('/account/password/:secret');
    expect(loggablePath('/oidc/device/Xk3_2bVqLZ8sd0aQ1wErT')).toBe('/oidc/device/:secret');
    expect(loggablePath('/oidc/device/auth')).toBe('/oidc/device/auth');
    expect(loggablePath('/auth/app/uid123/consent')).toBe('/auth/app/:secret/consent');
    expect(loggablePath(`/api/ssf/poll/${'A1b2'.repeat(10)}`)).toBe('/api/ssf/poll/:secret');
    expect(loggablePath('/console/acme/apps/7d0f4a4e-9a43-4b8f-9a9e-0d6e1c3b2a10')).toBe('/console/acme/apps/7d0f4a4e-9a43-4b8f-9a9e-0d6e1c3b2a10');
  });

  it('keeps going when whatever reads its output goes away (a closed pipe drops the lines, nothing spins)', async () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'portico-log-'));
    const marker = path.join(folder, 'done');
    // A process like the server: Next.js reports uncaught exceptions to standard error. Both outputs are pipes whose
    // reader is gone; it logs (pino), writes to the console (the ticker's and the banner's way), then leaves a mark.
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', `
      import { writeFileSync } from 'node:fs';
      import { log, surviveClosedOutput } from ${JSON.stringify(path.resolve('lib/observability/log.ts'))};
      surviveClosedOutput();
      process.on('uncaughtException', (error) => console.error(error));
      await new Promise((resolve) => setTimeout(resolve, 300));
      for (let line = 0; line < 100; line++) {
        log().info({ line }, 'after the reader left');
        console.error('[ticker] round failed: the database is away');
        console.log('a line nobody reads');
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
      writeFileSync(${JSON.stringify(marker)}, 'served');
      process.exit(0);
    `], { stdio: ['ignore', 'pipe', 'pipe'], env: childProcessEnvironment({ PORTICO_LOG_LEVEL: 'info' }) });
    child.stdout!.destroy();
    child.stderr!.destroy();
    // Without the guard it never gets here: each failed report is another uncaught exception (the kill ends it).
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    const [code] = (await once(child, 'exit')) as [number | null];
    clearTimeout(killer);
    expect(code).toBe(0);
    expect(readFileSync(marker, 'utf8')).toBe('served');
  }, 30_000);

  it('refuses a metrics listener off loopback and a short metrics token', () => {
    const base = { PORTICO_ISSUER: 'http://localhost:3000' };
    expect(() => parseEnv({ ...base, PORTICO_METRICS_LISTEN: '0.0.0.0:9464' })).toThrow(/PORTICO_METRICS_LISTEN: must be a loopback address/);
    expect(() => parseEnv({ ...base, PORTICO_METRICS_LISTEN: '9464' })).toThrow(/PORTICO_METRICS_LISTEN: must be host:port/);
    expect(() => parseEnv({ ...base, PORTICO_METRICS_TOKEN: 'short' })).toThrow(/PORTICO_METRICS_TOKEN: must be at least 32 characters/);
    expect(parseEnv({ ...base, PORTICO_METRICS_LISTEN: '[::1]:9464', PORTICO_METRICS_TOKEN: TOKEN })).toMatchObject({ PORTICO_METRICS_LISTEN: '[::1]:9464' });
  });
});
