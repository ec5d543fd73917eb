// What every benchmark scenario shares: Portico as in production (the `next build` output served by server.ts) on a
// scratch database of the local PostgreSQL, baseline servers in processes of their own, load from autocannon in this
// process (never inside a server), bounded in requests and time, on loopback only, and peak RSS sampled from /proc.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import postgres from 'postgres';
import { childProcessEnvironment, env } from '../../lib/env';
import { drizzleFor, openRawDatabase, type Database, type RawDatabase } from '../../lib/db/client';
import { DEMO, demoEnvironment } from '../../e2e/support/constants';
import { spawnUntilReady } from '../../e2e/support/portico-process';
import { BENCH_IDLE_SECONDS } from './pools';

export interface Figures {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  requests: number;
  /** Peak resident memory of the server measured, in MB (absent for in-process measurements). */
  peakRssMb?: number;
  /** CPU time per request, in µs: the server's processes, PostgreSQL's, and this process's (the load generator). */
  serverCpuUs?: number;
  postgresCpuUs?: number;
  generatorCpuUs?: number;
  /** WAL written per request, in bytes, and transactions that wrote (took a transaction id) per request. */
  walBytes?: number;
  writeTransactions?: number;
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
  /** What the process has written so far (standard output and error). */
  output(): string;
}

/**
 * The error lines a server wrote from `from` on (its output's length before a scenario): logged errors and the
 * "… failed: …" lines its routes write before answering 500. A run with a 500 then says why.
 */
export function serverErrorsSince(server: ServerProcess, from: number): string[] {
  return server
    .output()
    .slice(from)
    .split('\n')
    .filter((line) => /"level":(?:50|60)\b| failed: |\bError\b/.test(line));
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
    output: running.output,
  };
}

export const PORTICO_PORT = 3230;
export const ISSUER = `http://localhost:${PORTICO_PORT}`;

export interface BenchEnvironment {
  databaseUrl: string;
  secretKey: string;
  /** The Portico of the scenario under way (a fresh process per scenario). */
  portico: ServerProcess;
  raw: RawDatabase;
  db: Database;
}

/** What `npm start` gives the server (package.json, PORTICO_HEAP_MB's default): the bench measures production. */
export const PRODUCTION_NODE_FLAGS = ['--max-old-space-size=256', '--max-semi-space-size=8'];

export interface PorticoBenchOptions {
  /** The same key for every Portico of a run: the keys in the database are sealed with it. */
  secretKey: string;
  nodeOptions?: string[];
  /** Where this one listens (the issuer stays ISSUER, as behind a load balancer). */
  port?: number;
  workers?: number;
}

/** Portico in production mode on the scratch database, with limits raised so that the load measures work, not refusals. */
export async function startPorticoForBench(databaseUrl: string, dataDir: string, options: PorticoBenchOptions): Promise<ServerProcess> {
  const port = options.port ?? PORTICO_PORT;
  const portico = await startProcess(
    [...(options.nodeOptions ?? PRODUCTION_NODE_FLAGS), '--import', 'tsx', 'server.ts'],
    {
      ...demoEnvironment(PORTICO_PORT),
      PORTICO_PORT: String(port),
      PORTICO_WORKERS: String(options.workers ?? 1),
      DATABASE_URL: databaseUrl,
      DATABASE_POOL_SIZE: '40',
      PORTICO_DATA_DIR: dataDir,
      PORTICO_SECRET_KEY: options.secretKey,
      PORTICO_DCR_PER_IP_PER_HOUR: '100000',
      PORTICO_DCR_GLOBAL_PER_HOUR: '10000000',
      // The gateway scenario's upstream is the MCP baseline on this machine's loopback.
      PORTICO_OUTBOUND_ALLOW_LOOPBACK: 'true',
      NODE_ENV: 'production',
    },
    'Portico is running at',
    `http://127.0.0.1:${port}`,
  );
  return portico;
}

/** The runner's own connection to the bench database (fixtures, checks). */
export async function openBenchDatabase(databaseUrl: string): Promise<{ raw: RawDatabase; db: Database }> {
  const raw = await openRawDatabase({ databaseUrl, poolSize: 40, idleTimeoutSeconds: BENCH_IDLE_SECONDS });
  return { raw, db: drizzleFor(raw) };
}

export const demoClient = { clientId: DEMO.clientId, clientSecret: DEMO.clientSecret, redirectUri: DEMO.redirectUri, email: DEMO.email, password: DEMO.password };

/** A process and its children (a cluster's server processes), from /proc. */
export function processTree(pid: number): number[] {
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    // The process ended, or the kernel does not expose children.
  }
  return [pid, ...children.flatMap(processTree)];
}

/** Samples the resident memory of a process tree every 100 ms (the sum of its processes); `stop` gives the peak in MB. */
export function sampleRss(pid: number): { stop(): number } {
  let peak = 0;
  const read = () => {
    let kb = 0;
    for (const member of processTree(pid)) {
      try {
        kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${member}/status`, 'utf8'))?.[1] ?? 0);
      } catch {
        // The process ended.
      }
    }
    peak = Math.max(peak, kb);
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

/** Clock ticks per second of /proc's CPU times (USER_HZ). */
const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** User + system CPU time of one process, in µs (0 when it is gone). */
function cpuOfProcess(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces, inside parentheses): utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND) * 1e6;
  } catch {
    return 0;
  }
}

/** CPU time of every PostgreSQL process on this machine (the server and its backends), in µs, by pid. */
function postgresCpu(): Map<number, number> {
  const byPid = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== 'postgres') continue;
    } catch {
      continue;
    }
    byPid.set(Number(entry), cpuOfProcess(Number(entry)));
  }
  return byPid;
}

/** CPU spent between `start()` and `stop()` by a server's process tree, by PostgreSQL and by this process. */
function cpuMeter(pid?: number): { stop(): { server?: number; postgres: number; generator: number } } {
  const serverTree = pid ? processTree(pid) : [];
  const serverBefore = serverTree.map(cpuOfProcess);
  const postgresBefore = postgresCpu();
  const generatorBefore = process.cpuUsage();
  return {
    stop: () => {
      const generator = process.cpuUsage(generatorBefore);
      const postgresAfter = postgresCpu();
      // A backend that started during the run counts from zero; one that ended is lost (rare: pools stay open).
      let postgres = 0;
      for (const [member, after] of postgresAfter) postgres += after - (postgresBefore.get(member) ?? 0);
      return {
        ...(pid ? { server: serverTree.reduce((sum, member, index) => sum + cpuOfProcess(member) - serverBefore[index]!, 0) } : {}),
        postgres,
        generator: generator.user + generator.system,
      };
    },
  };
}

let statsConnection: postgres.Sql | undefined;
/** The bench's own connection for reading the server's write counters (lazily opened on DATABASE_URL). */
function statsSql(): postgres.Sql | undefined {
  const url = env().DATABASE_URL;
  if (!url) return undefined;
  // Closed when idle for a second, so that the run's process can end.
  statsConnection ??= postgres(url, { max: 1, onnotice: () => {}, idle_timeout: 1 });
  return statsConnection;
}

/**
 * What the whole PostgreSQL server wrote between `start` and `stop`: WAL bytes (LSN difference, exact at once) and
 * transactions that took an id (the next id from a snapshot, which takes none itself). With synchronous commit each
 * such transaction is one WAL flush (fewer when commits group): the write operations a disk sees, besides the data
 * pages checkpoints write later.
 */
async function writeMeter(): Promise<{ stop(): Promise<{ walBytes: number; writeTransactions: number } | undefined> }> {
  const sql = statsSql();
  const read = async () => {
    if (!sql) return undefined;
    const [row] = await sql<{ lsn: string; next: string }[]>`select pg_current_wal_lsn()::text as lsn, pg_snapshot_xmax(pg_current_snapshot())::text as next`;
    return row;
  };
  const before = await read().catch(() => undefined);
  return {
    stop: async () => {
      const after = await read().catch(() => undefined);
      if (!sql || !before || !after) return undefined;
      const [diff] = await sql<{ bytes: string }[]>`select pg_wal_lsn_diff(${after.lsn}::pg_lsn, ${before.lsn}::pg_lsn)::text as bytes`;
      return { walBytes: Number(diff!.bytes), writeTransactions: Number(after.next) - Number(before.next) };
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

/** Where an unexpected redirect pointed: its path and its `error` parameter (never the rest: codes, state). */
function redirectedTo(headers: Record<string, unknown> | undefined): string {
  // autocannon keeps the header names as the server wrote them.
  const location = Object.entries(headers ?? {}).find(([name]) => name.toLowerCase() === 'location')?.[1];
  if (typeof location !== 'string') return '';
  try {
    const target = new URL(location, 'http://bench.invalid');
    const error = target.searchParams.get('error');
    return ` to ${target.pathname}${error ? ` (error=${error})` : ''}`;
  } catch {
    return ' to a malformed location';
  }
}

/** One bounded load run with autocannon; errors are transport errors plus unexpected statuses. */
export async function load(options: LoadOptions, pid?: number): Promise<Figures> {
  const rss = pid ? sampleRss(pid) : undefined;
  let counter = 0;
  let unexpected = 0;
  // What each unexpected answer was, said when a run has any (a full run of 2026-12-07 counted one error among 24,000
  // AuthZEN requests, and nothing told whether it was a status, a reset or a timeout).
  const unexpectedStatuses = new Map<string, number>();
  const noteUnexpected = (status: number, headers?: Record<string, unknown>) => {
    unexpected += 1;
    const kind = `${status}${redirectedTo(headers)}`;
    unexpectedStatuses.set(kind, (unexpectedStatuses.get(kind) ?? 0) + 1);
  };
  // Throughput on this process's own clock, to the last answer: autocannon ends an `amount` run only at its next
  // one-second tick, which understates the faster side.
  let answered = 0;
  let lastAnswerAt = 0;
  const answer = () => {
    answered += 1;
    lastAnswerAt = performance.now();
  };
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
        answer();
        if (status !== expected) noteUnexpected(status);
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
        answer();
        if (status !== expected || (options.accept && !options.accept(headers as Record<string, unknown> | undefined))) noteUnexpected(status, headers as Record<string, unknown> | undefined);
      },
    });
  }
  const writes = await writeMeter();
  const cpu = cpuMeter(pid);
  const startedAt = performance.now();
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
  const spent = cpu.stop();
  const written = await writes.stop();
  const peakRssMb = rss?.stop();
  const total = result.requests.total;
  const seconds = lastAnswerAt > startedAt ? (lastAnswerAt - startedAt) / 1000 : result.duration || 1;
  const perRequest = (microseconds: number) => Math.round(microseconds / Math.max(1, answered));
  if (result.errors + result.timeouts + unexpected > 0) {
    const statuses = [...unexpectedStatuses].map(([status, count]) => `${count}× ${status}`).join(', ') || 'none';
    console.log(`    (${url.pathname}: ${result.errors} transport errors, ${result.timeouts} timeouts, unexpected answers: ${statuses})`);
  }
  return {
    requestsPerSecond: Math.round(answered / seconds),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts + unexpected,
    requests: total,
    ...(peakRssMb !== undefined ? { peakRssMb } : {}),
    ...(spent.server !== undefined ? { serverCpuUs: perRequest(spent.server) } : {}),
    postgresCpuUs: perRequest(spent.postgres),
    generatorCpuUs: perRequest(spent.generator),
    ...(written ? { walBytes: perRequest(written.walBytes), writeTransactions: Number((written.writeTransactions / Math.max(1, answered)).toFixed(2)) } : {}),
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

/**
 * Warm-up, then A B A B A B: each side run once unmeasured (JIT, pools, caches), then `rounds` times alternating, to
 * cancel machine drift; each figure is the median of the rounds (peak RSS: the highest).
 */
export async function alternate(portico: () => Promise<Figures>, baseline: () => Promise<Figures>, rounds = 3): Promise<{ portico: Figures; baseline: Figures }> {
  await portico();
  await baseline();
  const a: Figures[] = [];
  const b: Figures[] = [];
  for (let round = 0; round < rounds; round += 1) {
    a.push(await portico());
    b.push(await baseline());
  }
  return { portico: median(a), baseline: median(b) };
}

/** One side alone: a warm-up run, then `rounds` runs; the median. */
export async function repeat(run: () => Promise<Figures>, rounds = 3): Promise<Figures> {
  await run();
  const runs: Figures[] = [];
  for (let round = 0; round < rounds; round += 1) runs.push(await run());
  return median(runs);
}

export function median(runs: Figures[]): Figures {
  const middle = (pick: (figures: Figures) => number | undefined): number | undefined => {
    const values = runs.map(pick).filter((value): value is number => value !== undefined).sort((x, y) => x - y);
    if (values.length === 0) return undefined;
    const half = Math.floor(values.length / 2);
    return values.length % 2 ? values[half]! : (values[half - 1]! + values[half]!) / 2;
  };
  const peaks = runs.map((run) => run.peakRssMb).filter((value): value is number => value !== undefined);
  const optional = (name: 'serverCpuUs' | 'postgresCpuUs' | 'generatorCpuUs' | 'walBytes') => {
    const value = middle((run) => run[name]);
    return value === undefined ? {} : { [name]: Math.round(value) };
  };
  return {
    requestsPerSecond: Math.round(middle((run) => run.requestsPerSecond)!),
    p50Ms: Number(middle((run) => run.p50Ms)!.toFixed(2)),
    p99Ms: Number(middle((run) => run.p99Ms)!.toFixed(2)),
    errors: runs.reduce((sum, run) => sum + run.errors, 0),
    requests: runs.reduce((sum, run) => sum + run.requests, 0),
    ...(peaks.length > 0 ? { peakRssMb: Math.max(...peaks) } : {}),
    ...optional('serverCpuUs'),
    ...optional('postgresCpuUs'),
    ...optional('generatorCpuUs'),
    ...optional('walBytes'),
    ...(middle((run) => run.writeTransactions) !== undefined ? { writeTransactions: Number(middle((run) => run.writeTransactions)!.toFixed(2)) } : {}),
  };
}

export const ratio = (portico: Figures, baseline: Figures) => Number((portico.requestsPerSecond / Math.max(1, baseline.requestsPerSecond)).toFixed(2));

export const repoPath = (...parts: string[]) => path.join(process.cwd(), ...parts);

/** Builds Portico (`next build`) when there is no build: the benches measure the production server. */
export function ensureBuild(): void {
  if (existsSync(repoPath('.next', 'BUILD_ID'))) return;
  console.log('Building Portico (next build)…');
  execFileSync('npx', ['next', 'build'], { stdio: 'inherit', env: childProcessEnvironment({ NODE_ENV: 'production' }) });
}
