// npm run bench [-- <scenario> …]: Portico as in production (`next build` output, server.ts) on a scratch database of
// the local PostgreSQL, each scenario's baseline in a process of its own, load from this process. Prints each figure
// with its baseline and ratio, writes bench/results/<date>.json, and rewrites the results table of
// docs/benchmarks.md (between its markers). Figures are measured, never asserted.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import postgres from 'postgres';
import { envOrExit } from '../lib/env';
import { createScratchPostgres, dropScratchPostgres } from '../test/support/databases';
import { approvalDecision } from './approval-decision';
import { authzenDecisions } from './authzen';
import { codeExchange } from './code-exchange';
import { demoClient, ensureBuild, openBenchDatabase, PRODUCTION_NODE_FLAGS, repoPath, serverErrorsSince, startPorticoForBench, startProcess, type BenchEnvironment, type Figures, type ScenarioResult, type ServerProcess } from './lib/harness';
import { porticoApiToken, PorticoSession, BENCH_VERIFIER } from './lib/portico-flow';
import { gatewayCall } from './gateway-call';
import { mcpCall, mcpCallModern } from './mcp-call';
import { passwordLogin } from './password-login';
import { refreshGrant, refreshWorkers } from './refresh-grant';
import { registration } from './registration';
import { tokenVerification } from './token-verification';

export interface BenchContext {
  env: BenchEnvironment;
  oidcBaseline: ServerProcess;
  mcpBaseline: ServerProcess;
  baselineFixtures(kind: 'code' | 'refresh', count: number): Promise<string[]>;
  /** A Portico API access token (made once). */
  apiToken(): Promise<string>;
  /** Another Portico process on the same database and keys (its own port, or several server processes). */
  startPortico(options: { port?: number; workers?: number }): Promise<ServerProcess>;
}

const SCENARIOS: Record<string, (ctx: BenchContext) => Promise<ScenarioResult | ScenarioResult[]>> = {
  'refresh-grant': refreshGrant,
  'refresh-workers': refreshWorkers,
  'code-exchange': codeExchange,
  'mcp-call': mcpCall,
  'mcp-call-modern': mcpCallModern,
  'gateway-call': gatewayCall,
  'token-verification': tokenVerification,
  registration,
  'approval-decision': approvalDecision,
  'password-login': passwordLogin,
  authzen: authzenDecisions,
};

// `npm run bench -- scale`: the big database against the empty one (bench/scale.ts), on its own, not in CI.
if (process.argv.slice(2).includes('scale')) {
  const { runScaleBench } = await import('./scale');
  await runScaleBench(process.argv.slice(2));
  process.exit(0);
}

const env = envOrExit();
// --profile: Portico and the baselines run with --cpu-prof; the profiles land in bench/results/profiles (not
// committed), each baseline's as baseline-oidc-provider.cpuprofile and baseline-mcp-server.cpuprofile (the next
// --profile run replaces them), so that both sides of a ratio can be read the same way.
const profile = process.argv.includes('--profile');
// --alloc-profile: each Portico process samples what it allocates, freed objects included (bench/lib/allocation-profile.ts),
// into bench/results/profiles/allocations-<pid>.heapprofile: where a request's garbage collection comes from.
const allocationProfile = process.argv.includes('--alloc-profile');
// --gc-stats: Portico and each baseline count their garbage collections by kind, with their pauses
// (bench/lib/gc-statistics.ts), into bench/results/profiles/gc-<name>-<pid>.json.
const gcStatistics = process.argv.includes('--gc-stats');
const FLAGS = new Set(['--', '--profile', '--alloc-profile', '--gc-stats', '--durable']);
const chosen = process.argv.slice(2).filter((argument) => !FLAGS.has(argument));
const profilesFolder = repoPath('bench', 'results', 'profiles');
/** A bench preload (bench/lib/<file>), given the profiles folder and its other parameters in its import URL. */
const preload = (file: string, parameters: Record<string, string> = {}) => ['--import', `${pathToFileURL(repoPath('bench', 'lib', file)).href}?${new URLSearchParams({ out: profilesFolder, ...parameters })}`];
for (const name of chosen) {
  if (!SCENARIOS[name]) {
    console.error(`Unknown scenario "${name}". Scenarios: ${Object.keys(SCENARIOS).join(', ')}`);
    process.exit(2);
  }
}
if (!env.DATABASE_URL) {
  console.error('The benchmarks run on PostgreSQL: set DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/postgres); a scratch database is made and dropped.');
  process.exit(2);
}
ensureBuild();

const baseUrl = env.DATABASE_URL;
const databaseUrl = await createScratchPostgres(baseUrl, 'portico_bench');
// --durable keeps PostgreSQL's synchronous commit. By default the scratch database commits without waiting for the
// WAL flush (on both sides alike): the figures then measure CPU, not this machine's disk (docs/benchmarks.md).
const durable = process.argv.includes('--durable');
if (!durable) {
  const admin = postgres(baseUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`alter database "${new URL(databaseUrl).pathname.slice(1)}" set synchronous_commit = off`).finally(() => admin.end({ timeout: 5 }));
}
const servers: ServerProcess[] = [];
let benchEnv: BenchEnvironment | undefined;
let database: Awaited<ReturnType<typeof openBenchDatabase>> | undefined;
const results: ScenarioResult[] = [];
const secretKey = randomBytes(32).toString('base64url');
const dataDir = mkdtempSync(path.join(tmpdir(), 'portico-bench-'));
if (allocationProfile || gcStatistics) mkdirSync(profilesFolder, { recursive: true });
const porticoNodeFlags = [
  ...PRODUCTION_NODE_FLAGS,
  ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profilesFolder}`] : []),
  ...(allocationProfile ? preload('allocation-profile.ts') : []),
  ...(gcStatistics ? preload('gc-statistics.ts', { name: 'portico' }) : []),
];
try {
  const first = await startPorticoForBench(databaseUrl, dataDir, { secretKey, nodeOptions: porticoNodeFlags });
  database = await openBenchDatabase(databaseUrl);
  benchEnv = { databaseUrl, secretKey, portico: first, ...database };
  const baselineProfile = (name: string) => [
    ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profilesFolder}`, `--cpu-prof-name=baseline-${name}.cpuprofile`] : []),
    ...(gcStatistics ? preload('gc-statistics.ts', { name: `baseline-${name}` }) : []),
  ];
  const oidcBaseline = await startProcess([...baselineProfile('oidc-provider'), '--import', 'tsx', 'bench/baselines/oidc-provider.ts', '3231', databaseUrl, secretKey, demoClient.clientId, demoClient.clientSecret, demoClient.redirectUri], {}, 'baseline oidc-provider ready', 'http://127.0.0.1:3231');
  servers.push(oidcBaseline);
  const mcpBaseline = await startProcess([...baselineProfile('mcp-server'), '--import', 'tsx', 'bench/baselines/mcp-server.ts', '3232', databaseUrl], {}, 'baseline MCP server ready', 'http://127.0.0.1:3232');
  servers.push(mcpBaseline);
  let apiToken: Promise<string> | undefined;
  const environment = benchEnv;
  const ctx: BenchContext = {
    env: environment,
    oidcBaseline,
    mcpBaseline,
    baselineFixtures: async (kind, count) => {
      const response = await fetch(`${oidcBaseline.url}/__fixtures`, { method: 'POST', body: JSON.stringify({ kind, count, verifier: BENCH_VERIFIER }) });
      if (!response.ok) throw new Error(`baseline fixtures: ${response.status} ${await response.text()}`);
      return (await response.json()) as string[];
    },
    apiToken: () => (apiToken ??= porticoApiToken(new PorticoSession())),
    startPortico: (options) => startPorticoForBench(databaseUrl, dataDir, { secretKey, nodeOptions: porticoNodeFlags, ...options }),
  };

  const names = chosen.length > 0 ? chosen : Object.keys(SCENARIOS);
  for (const [index, name] of names.entries()) {
    process.stdout.write(`\n▶ ${name}\n`);
    // A fresh Portico per scenario: its peak RSS is that scenario's alone.
    if (index > 0) {
      await environment.portico.stop();
      environment.portico = await ctx.startPortico({});
    }
    const outputBefore = environment.portico.output().length;
    const answered = await SCENARIOS[name]!(ctx);
    for (const result of Array.isArray(answered) ? answered : [answered]) {
      results.push(result);
      print(result);
    }
    const errors = serverErrorsSince(environment.portico, outputBefore);
    if (errors.length > 0) console.log(`  Portico wrote ${errors.length} error line(s), the first ones:\n${errors.slice(0, 5).map((line) => `    ${line.slice(0, 400)}`).join('\n')}`);
  }
} finally {
  await benchEnv?.portico.stop().catch(() => {});
  for (const server of servers.reverse()) await server.stop().catch(() => {});
  await database?.raw.close().catch(() => {});
  await dropScratchPostgres(baseUrl, databaseUrl).catch(() => {});
}

function cpuText(figures: Figures): string {
  if (figures.serverCpuUs === undefined) return '';
  return `  CPU/req: server ${figures.serverCpuUs} µs, PostgreSQL ${figures.postgresCpuUs ?? '?'} µs, load generator ${figures.generatorCpuUs ?? '?'} µs${figures.walBytes !== undefined ? `  writes/req: ${figures.writeTransactions} transactions, ${figures.walBytes} B of WAL` : ''}`;
}

function line(label: string, figures: Figures): string {
  return `  ${label.padEnd(46)} ${String(figures.requestsPerSecond).padStart(7)}/s  p50 ${String(figures.p50Ms).padStart(7)} ms  p99 ${String(figures.p99Ms).padStart(7)} ms  errors ${figures.errors}${figures.peakRssMb !== undefined ? `  peak RSS ${figures.peakRssMb} MB` : ''}${cpuText(figures)}`;
}

function print(result: ScenarioResult) {
  console.log(line('Portico', result.portico));
  if (result.baseline) console.log(line(`baseline: ${result.baseline.label}`, result.baseline));
  if (result.limit) console.log(line(`limit: ${result.limit.label}`, result.limit));
  if (result.ratio !== undefined) console.log(`  ratio to baseline: ${result.ratio}×`);
  for (const note of result.notes) console.log(`  (${note})`);
}

// The record of this run, and the table in docs/benchmarks.md.
const machine = { cores: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', memoryGb: Math.round(totalmem() / 1024 ** 3), node: process.version, synchronousCommit: durable };
const date = new Date().toISOString().slice(0, 10);
// A partial run (some scenarios) never overwrites the day's full record.
const resultsFile = `${date}${chosen.length === 0 ? '' : '-partial'}.json`;
writeFileSync(repoPath('bench', 'results', resultsFile), `${JSON.stringify({ date, machine, results }, null, 2)}\n`);

const cpuCell = (figures?: Figures) => (figures?.serverCpuUs !== undefined ? `${figures.serverCpuUs} / ${figures.postgresCpuUs} / ${figures.generatorCpuUs}` : '—');
const cell = (figures?: Figures) => (figures ? `${figures.requestsPerSecond}/s · p50 ${figures.p50Ms} · p99 ${figures.p99Ms} ms` : '—');
const table = [
  `Measured ${date} on ${machine.cores} cores (${machine.cpu}), ${machine.memoryGb} GB, Node ${machine.node}, PostgreSQL on the same machine${durable ? '' : ' (synchronous_commit off on both sides: CPU, not the disk, is measured)'}.`,
  'Each figure is the median of 3 alternating rounds after a warm-up; throughput on the runner\'s clock. CPU per request in µs: server / PostgreSQL / load generator.',
  '',
  '| scenario | Portico | CPU µs/req | baseline (same run) | CPU µs/req | ratio | limit or other | errors | peak RSS |',
  '|---|---|---|---|---|---|---|---|---|',
  ...results.map((result) =>
    `| ${result.name} | ${cell(result.portico)} | ${cpuCell(result.portico)} | ${result.baseline ? `${cell(result.baseline)} (${result.baseline.label})` : '—'} | ${cpuCell(result.baseline)} | ${result.ratio !== undefined ? `${result.ratio}×` : '—'} | ${result.limit ? `${cell(result.limit)} (${result.limit.label})` : '—'} | ${result.portico.errors} | ${result.portico.peakRssMb !== undefined ? `${result.portico.peakRssMb} MB` : 'in process'} |`,
  ),
].join('\n');
const docs = repoPath('docs', 'benchmarks.md');
const current = readFileSync(docs, 'utf8');
const updated = current.replace(/<!-- results:start -->[\s\S]*<!-- results:end -->/, `<!-- results:start -->\n${table}\n<!-- results:end -->`);
if (chosen.length === 0) writeFileSync(docs, updated);
console.log(`\nResults: bench/results/${resultsFile}${chosen.length === 0 ? '; table: docs/benchmarks.md' : ' (a partial run leaves docs/benchmarks.md and the full record as they are)'}`);
