// `npm test`: everything a developer needs, in one command, in the order that fails fastest.
//
//   1. the production build (`next build`), which type-checks every file of tsconfig.json (tests included) with the
//      route types it generates: a separate `tsc --noEmit` first ran the same check again (half a minute)
//   2. the unit/integration suite (vitest) on the configured database, and again on the embedded database when the
//      configured one is PostgreSQL: it is the cheap half, and the two databases differ underneath. With
//      TEST_POOLER_URL (.ci/run) the PostgreSQL pass goes through that transaction-mode pooler, as an operator runs
//      behind PgBouncer: nothing prepared, the cache's LISTEN on DATABASE_URL past it. The end-to-end suite below
//      keeps DATABASE_URL's direct connections and prepared statements (the default): each mode is run once.
//   3. the whole end-to-end suite (Playwright) once, on the configured database; when that is PostgreSQL, its
//      embedded-smoke project runs e2e/server-process.spec.ts once more with its servers on the embedded database
//      (`npm start` with nothing configured, the first-start seed, the data-folder lock, the CLI through the control
//      socket, a sign-in and an MCP call), in the run's tail (playwright.config.ts)
//
// With no DATABASE_URL every step runs on the embedded database, so a fresh machine needs no database installed
// (the end-to-end step needs Debian's chromium-headless-shell, or CHROMIUM_PATH: checked first, below).
// Each runner prints its ten slowest files and tests, and any test that needed a retry, at its end; this script
// prints how long each step took. The first failing step stops the run with its exit code.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { buildEnvironment, childProcessEnvironment, envOrExit } from '../lib/env';

interface Step {
  name: string;
  command: string[];
  environment?: NodeJS.ProcessEnv;
}

const { DATABASE_URL: databaseUrl, TEST_POOLER_URL: poolerUrl, CHROMIUM_PATH: chromiumPath } = envOrExit();
// The end-to-end step needs the browser: said before the build and the unit suites run, not minutes later.
if (!existsSync(chromiumPath)) {
  console.error(`No browser at ${chromiumPath} for the end-to-end tests: install Debian's headless Chromium (apt-get install -y chromium-headless-shell), or set CHROMIUM_PATH to a Chromium binary.`);
  process.exit(1);
}
const onPostgres = Boolean(databaseUrl);
if (poolerUrl && !onPostgres) {
  console.error('TEST_POOLER_URL is a pooler in front of DATABASE_URL\'s server: set DATABASE_URL too, or unset TEST_POOLER_URL.');
  process.exit(1);
}
const embedded = childProcessEnvironment({ DATABASE_URL: undefined, TEST_POOLER_URL: undefined });
const configured = onPostgres ? 'PostgreSQL' : 'the embedded database';
// docs/deploy.md's settings behind a transaction-mode pooler: nothing prepared, LISTEN on a direct connection.
const throughPooler = poolerUrl ? childProcessEnvironment({ DATABASE_URL: poolerUrl, DATABASE_PREPARED_STATEMENTS: 'false', DATABASE_LISTEN_URL: databaseUrl }) : undefined;

const steps: Step[] = [
  { name: 'production build, with its type check', command: ['npx', 'next', 'build'], environment: { ...buildEnvironment(), NODE_ENV: 'production' } },
  { name: `unit and integration tests on ${configured}${throughPooler ? ' through a transaction-mode pooler' : ''}`, command: ['npx', 'vitest', 'run'], environment: throughPooler },
  ...(onPostgres ? [{ name: 'unit and integration tests on the embedded database', command: ['npx', 'vitest', 'run'], environment: embedded }] : []),
  { name: `end-to-end tests on ${configured}${onPostgres ? ' (and the embedded database\'s smoke)' : ''}`, command: ['npx', 'playwright', 'test'] },
];

/** The whole suite's budget on CI's 2-core machine, in minutes. */
const BUDGET_MINUTES = 25;
const minutes = (milliseconds: number) => `${Math.floor(milliseconds / 60_000)}:${String(Math.round((milliseconds % 60_000) / 1000)).padStart(2, '0')}`;
const timings: string[] = [];
const started = Date.now();
for (const step of steps) {
  console.log(`\n=== ${step.name} ===`);
  const stepStarted = Date.now();
  const [command, ...args] = step.command as [string, ...string[]];
  const run = spawnSync(command, args, { stdio: 'inherit', env: step.environment ?? process.env });
  timings.push(`${minutes(Date.now() - stepStarted).padStart(6)}  ${step.name}`);
  if (run.status !== 0) {
    console.error(`\n${step.name} failed${run.signal ? ` (${run.signal})` : ''}.`);
    console.log(`\nTime per step:\n${timings.join('\n')}`);
    process.exit(run.status ?? 1);
  }
}
const total = Date.now() - started;
console.log(`\nTime per step:\n${timings.join('\n')}\n${minutes(total).padStart(6)}  in all`);
// The suite's budget (docs/architecture.md#testing): a change that adds minutes pays them back in the same change.
if (total > BUDGET_MINUTES * 60_000) console.log(`\nWARNING: the run took ${minutes(total)}, over its budget of ${BUDGET_MINUTES} minutes: find the minutes (the slowest tests above) before landing.`);
