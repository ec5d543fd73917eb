// npm run bench [-- <scenario> …]: Portico as in production (`next build` output, server.ts) on a scratch database of
// the local PostgreSQL, each scenario's baseline in a process of its own, load from this process. Prints each figure
// with its baseline and ratio, writes bench/results/<date>.json, and rewrites the results table of
// docs/benchmarks.md (between its markers). Figures are measured, never asserted.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import path from 'node:path';
import { childProcessEnvironment, envOrExit } from '../lib/env';
import { createScratchPostgres, dropScratchPostgres } from '../test/support/databases';
import { approvalDecision } from './approval-decision';
import { codeExchange } from './code-exchange';
import { demoClient, PRODUCTION_NODE_FLAGS, repoPath, startPorticoForBench, startProcess, type BenchEnvironment, type Figures, type ScenarioResult, type ServerProcess } from './lib/harness';
import { porticoApiToken, PorticoSession, BENCH_VERIFIER } from './lib/portico-flow';
import { mcpCall } from './mcp-call';
import { passwordLogin } from './password-login';
import { refreshGrant } from './refresh-grant';
import { registration } from './registration';
import { tokenVerification } from './token-verification';

export interface BenchContext {
  env: BenchEnvironment;
  oidcBaseline: ServerProcess;
  mcpBaseline: ServerProcess;
  baselineFixtures(kind: 'code' | 'refresh', count: number): Promise<string[]>;
  /** A Portico API access token (made once). */
  apiToken(): Promise<string>;
}

const SCENARIOS: Record<string, (ctx: BenchContext) => Promise<ScenarioResult>> = {
  'refresh-grant': refreshGrant,
  'code-exchange': codeExchange,
  'mcp-call': mcpCall,
  'token-verification': tokenVerification,
  registration,
  'approval-decision': approvalDecision,
  'password-login': passwordLogin,
};

const env = envOrExit();
// --profile: Portico runs with --cpu-prof; the profiles land in bench/results/profiles (not committed).
const profile = process.argv.includes('--profile');
const chosen = process.argv.slice(2).filter((argument) => argument !== '--' && argument !== '--profile');
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
if (!existsSync(repoPath('.next', 'BUILD_ID'))) {
  console.log('Building Portico (next build)…');
  execFileSync('npx', ['next', 'build'], { stdio: 'inherit', env: childProcessEnvironment({ NODE_ENV: 'production' }) });
}

const baseUrl = env.DATABASE_URL;
const databaseUrl = await createScratchPostgres(baseUrl, 'portico_bench');
const servers: ServerProcess[] = [];
let benchEnv: BenchEnvironment | undefined;
const results: ScenarioResult[] = [];
try {
  benchEnv = await startPorticoForBench(databaseUrl, mkdtempSync(path.join(tmpdir(), 'portico-bench-')), [...PRODUCTION_NODE_FLAGS, ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${repoPath('bench', 'results', 'profiles')}`] : [])]);
  servers.push(benchEnv.portico);
  const oidcBaseline = await startProcess(['--import', 'tsx', 'bench/baselines/oidc-provider.ts', '3231', databaseUrl, benchEnv.secretKey, demoClient.clientId, demoClient.clientSecret, demoClient.redirectUri], {}, 'baseline oidc-provider ready', 'http://127.0.0.1:3231');
  servers.push(oidcBaseline);
  const mcpBaseline = await startProcess(['--import', 'tsx', 'bench/baselines/mcp-server.ts', '3232'], {}, 'baseline MCP server ready', 'http://127.0.0.1:3232');
  servers.push(mcpBaseline);
  let apiToken: Promise<string> | undefined;
  const ctx: BenchContext = {
    env: benchEnv,
    oidcBaseline,
    mcpBaseline,
    baselineFixtures: async (kind, count) => {
      const response = await fetch(`${oidcBaseline.url}/__fixtures`, { method: 'POST', body: JSON.stringify({ kind, count, verifier: BENCH_VERIFIER }) });
      if (!response.ok) throw new Error(`baseline fixtures: ${response.status} ${await response.text()}`);
      return (await response.json()) as string[];
    },
    apiToken: () => (apiToken ??= porticoApiToken(new PorticoSession())),
  };

  for (const name of chosen.length > 0 ? chosen : Object.keys(SCENARIOS)) {
    process.stdout.write(`\n▶ ${name}\n`);
    const result = await SCENARIOS[name]!(ctx);
    results.push(result);
    print(result);
  }
} finally {
  for (const server of servers.reverse()) await server.stop().catch(() => {});
  await benchEnv?.raw.close().catch(() => {});
  await dropScratchPostgres(baseUrl, databaseUrl).catch(() => {});
}

function line(label: string, figures: Figures): string {
  return `  ${label.padEnd(46)} ${String(figures.requestsPerSecond).padStart(7)}/s  p50 ${String(figures.p50Ms).padStart(7)} ms  p99 ${String(figures.p99Ms).padStart(7)} ms  errors ${figures.errors}${figures.peakRssMb !== undefined ? `  peak RSS ${figures.peakRssMb} MB` : ''}`;
}

function print(result: ScenarioResult) {
  console.log(line('Portico', result.portico));
  if (result.baseline) console.log(line(`baseline: ${result.baseline.label}`, result.baseline));
  if (result.limit) console.log(line(`limit: ${result.limit.label}`, result.limit));
  if (result.ratio !== undefined) console.log(`  ratio to baseline: ${result.ratio}×`);
  for (const note of result.notes) console.log(`  (${note})`);
}

// The record of this run, and the table in docs/benchmarks.md.
const machine = { cores: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', memoryGb: Math.round(totalmem() / 1024 ** 3), node: process.version };
const date = new Date().toISOString().slice(0, 10);
// A partial run (some scenarios) never overwrites the day's full record.
const resultsFile = `${date}${chosen.length === 0 ? '' : '-partial'}.json`;
writeFileSync(repoPath('bench', 'results', resultsFile), `${JSON.stringify({ date, machine, results }, null, 2)}\n`);

const cell = (figures?: Figures) => (figures ? `${figures.requestsPerSecond}/s · p50 ${figures.p50Ms} · p99 ${figures.p99Ms} ms` : '—');
const table = [
  `Measured ${date} on ${machine.cores} cores (${machine.cpu}), ${machine.memoryGb} GB, Node ${machine.node}, PostgreSQL on the same machine.`,
  '',
  '| scenario | Portico | baseline (same run) | ratio | limit | errors | peak RSS |',
  '|---|---|---|---|---|---|---|',
  ...results.map((result) =>
    `| ${result.name} | ${cell(result.portico)} | ${result.baseline ? `${cell(result.baseline)} (${result.baseline.label})` : '—'} | ${result.ratio !== undefined ? `${result.ratio}×` : '—'} | ${result.limit ? `${cell(result.limit)} (${result.limit.label})` : '—'} | ${result.portico.errors} | ${result.portico.peakRssMb !== undefined ? `${result.portico.peakRssMb} MB` : 'in process'} |`,
  ),
].join('\n');
const docs = repoPath('docs', 'benchmarks.md');
const current = readFileSync(docs, 'utf8');
const updated = current.replace(/<!-- results:start -->[\s\S]*<!-- results:end -->/, `<!-- results:start -->\n${table}\n<!-- results:end -->`);
if (chosen.length === 0) writeFileSync(docs, updated);
console.log(`\nResults: bench/results/${resultsFile}${chosen.length === 0 ? '; table: docs/benchmarks.md' : ' (a partial run leaves docs/benchmarks.md and the full record as they are)'}`);
