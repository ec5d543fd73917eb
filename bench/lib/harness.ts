// What every benchmark scenario shares: Portico as in production (the `next build` output served by server.ts) on a
// scratch database of the local PostgreSQL, baseline servers in processes of their own, load from autocannon in this
// process (never inside a server), bounded in requests and time, on loopback only, and peak RSS sampled from /proc.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { drizzleFor, openRawDatabase, type Database, type RawDatabase } from '../../lib/db/client';
import { DEMO, demoEnvironment } from '../../e2e/support/constants';
import { spawnUntilReady } from '../../e2e/support/portico-process';

export interface Figures {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  requests: number;
  /** Peak resident memory of the server measured, in MB (absent for in-process measurements). */
  peakRssMb?: number;
}

export interface ScenarioResult {
  name: string;
  portico: Figures;
  baseline?: Figures & { label: string };
  /** A physical limit measured alongside (the bare KDF, the raw ES256 verify). */
  limit?: Figures & { label: string };
  ratio?: number;
  notes: string[];
}

export interface ServerProcess {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts a process (the e2e tests' spawner) and resolves once its output contains `ready`. */
export async function startProcess(args: string[], env: Record<string, string | undefined>, ready: string, url: string): Promise<ServerProcess> {
  const running = await spawnUntilReady(args, env, ready, args.join(' '), 120);
  return {
    url,
    pid: running.process.pid!,
    stop: async () => {
      running.process.kill('SIGTERM');
      await running.exited;
    },
  };
}

export const PORTICO_PORT = 3230;
export const ISSUER = `http://localhost:${PORTICO_PORT}`;

export interface BenchEnvironment {
  databaseUrl: string;
  secretKey: string;
  portico: ServerProcess;
  raw: RawDatabase;
  db: Database;
}

/** Portico in production mode on the scratch database, with limits raised so that the load measures work, not refusals. */
/** What `npm start` gives the server (package.json, PORTICO_HEAP_MB's default): the bench measures production. */
export const PRODUCTION_NODE_FLAGS = ['--max-old-space-size=256', '--max-semi-space-size=8'];

export async function startPorticoForBench(databaseUrl: string, dataDir: string, nodeOptions: string[] = PRODUCTION_NODE_FLAGS): Promise<BenchEnvironment> {
  const secretKey = randomBytes(32).toString('base64url');
  const portico = await startProcess(
    [...nodeOptions, '--import', 'tsx', 'server.ts'],
    {
      ...demoEnvironment(PORTICO_PORT),
      DATABASE_URL: databaseUrl,
      DATABASE_POOL_SIZE: '40',
      PORTICO_DATA_DIR: dataDir,
      PORTICO_SECRET_KEY: secretKey,
      PORTICO_DCR_PER_IP_PER_HOUR: '100000',
      PORTICO_DCR_GLOBAL_PER_HOUR: '10000000',
      NODE_ENV: 'production',
    },
    'Portico is running at',
    `http://127.0.0.1:${PORTICO_PORT}`,
  );
  const raw = await openRawDatabase({ databaseUrl, poolSize: 40 });
  return { databaseUrl, secretKey, portico, raw, db: drizzleFor(raw) };
}

export const demoClient = { clientId: DEMO.clientId, clientSecret: DEMO.clientSecret, redirectUri: DEMO.redirectUri, email: DEMO.email, password: DEMO.password };

/** Samples a process's resident memory every 100 ms; `stop` gives the peak in MB. */
export function sampleRss(pid: number): { stop(): number } {
  let peak = 0;
  const read = () => {
    try {
      const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
      peak = Math.max(peak, kb);
    } catch {
      // The process ended.
    }
  };
  read();
  const timer = setInterval(read, 100);
  return {
    stop: () => {
      clearInterval(timer);
      read();
      return Math.round(peak / 1024);
    },
  };
}

export interface LoadOptions {
  url: string;
  connections: number;
  /** Requests in all (bounded); the run also stops after `maxSeconds`. */
  amount: number;
  maxSeconds?: number;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Per request: the request to send (by its index), for bodies that must differ (one code each). */
  requestAt?: (index: number) => { path?: string; body?: string; headers?: Record<string, string> };
  /** Chained requests (refresh tokens that rotate): the first bodies (more than `connections`), then each answer's next. */
  chain?: { initial: string[]; next: (answerBody: string) => string | undefined };
  expectStatus?: number;
  /** A further check of each answer's headers (a sign-in that redirects back to the card with an error). */
  accept?: (headers: Record<string, unknown> | undefined) => boolean;
}

/** One bounded load run with autocannon; errors are transport errors plus unexpected statuses. */
export async function load(options: LoadOptions, pid?: number): Promise<Figures> {
  const rss = pid ? sampleRss(pid) : undefined;
  let counter = 0;
  let unexpected = 0;
  const expected = options.expectStatus ?? 200;
  const url = new URL(options.url);
  const requests: autocannon.Request[] = [];
  if (options.chain) {
    // A pool of chain heads (refresh tokens): each request takes one, its answer puts the next one back. autocannon
    // resets a connection's context between requests, so the chain cannot live there.
    const chain = options.chain;
    const pool = [...chain.initial];
    requests.push({
      method: options.method ?? 'POST',
      setupRequest: (request) => ({ ...request, body: pool.shift() ?? 'exhausted' }),
      onResponse: (status, body) => {
        if (status !== expected) unexpected += 1;
        const next = status === expected ? chain.next(body) : undefined;
        if (next !== undefined) pool.push(next);
      },
    });
  } else {
    requests.push({
      method: options.method ?? 'GET',
      setupRequest: (request) => {
        const index = counter++;
        const custom = options.requestAt?.(index);
        return { ...request, ...(custom?.path ? { path: custom.path } : {}), ...(custom?.body !== undefined ? { body: custom.body } : {}), headers: { ...request.headers, ...custom?.headers } };
      },
      onResponse: (status, _body, _context, headers) => {
        if (status !== expected || (options.accept && !options.accept(headers as Record<string, unknown> | undefined))) unexpected += 1;
      },
    });
  }
  const result = await autocannon({
    url: url.origin,
    connections: options.connections,
    amount: options.amount,
    duration: options.maxSeconds ?? 60,
    method: options.method ?? 'GET',
    headers: options.headers,
    body: options.body,
    requests: requests.map((request) => ({ path: url.pathname + url.search, headers: options.headers, body: options.body, ...request })),
  });
  const peakRssMb = rss?.stop();
  const total = result.requests.total;
  return {
    requestsPerSecond: Math.round(total / (result.duration || 1)),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts + unexpected,
    requests: total,
    ...(peakRssMb !== undefined ? { peakRssMb } : {}),
  };
}

/** In-process measurement: `operation` run `amount` times with `concurrency` in flight; latency per operation. */
export async function measureInProcess(operation: (index: number) => Promise<unknown>, amount: number, concurrency: number): Promise<Figures> {
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < amount) {
        const index = next++;
        const begin = performance.now();
        try {
          await operation(index);
        } catch {
          errors += 1;
        }
        latencies.push(performance.now() - begin);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Number((latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0).toFixed(3));
  return { requestsPerSecond: Math.round(amount / seconds), p50Ms: at(0.5), p99Ms: at(0.99), errors, requests: amount };
}

/** A B A B: each side measured twice, alternating, to cancel machine drift; the figures are the means. */
export async function alternate(portico: () => Promise<Figures>, baseline: () => Promise<Figures>, rounds = 2): Promise<{ portico: Figures; baseline: Figures }> {
  const a: Figures[] = [];
  const b: Figures[] = [];
  for (let round = 0; round < rounds; round += 1) {
    a.push(await portico());
    b.push(await baseline());
  }
  return { portico: mean(a), baseline: mean(b) };
}

export function mean(runs: Figures[]): Figures {
  const avg = (pick: (figures: Figures) => number) => Number((runs.reduce((sum, run) => sum + pick(run), 0) / runs.length).toFixed(2));
  const peaks = runs.map((run) => run.peakRssMb).filter((value): value is number => value !== undefined);
  return {
    requestsPerSecond: Math.round(avg((run) => run.requestsPerSecond)),
    p50Ms: avg((run) => run.p50Ms),
    p99Ms: avg((run) => run.p99Ms),
    errors: runs.reduce((sum, run) => sum + run.errors, 0),
    requests: runs.reduce((sum, run) => sum + run.requests, 0),
    ...(peaks.length > 0 ? { peakRssMb: Math.max(...peaks) } : {}),
  };
}

export const ratio = (portico: Figures, baseline: Figures) => Number((portico.requestsPerSecond / Math.max(1, baseline.requestsPerSecond)).toFixed(2));

export const repoPath = (...parts: string[]) => path.join(process.cwd(), ...parts);
