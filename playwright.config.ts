import { defineConfig } from '@playwright/test';
import { env } from './lib/env';
import { E2E_LANES, E2E_PORT, E2E_READY_PORT } from './e2e/support/constants';
import type { PorticoTestOptions } from './e2e/support/test';

// Debian's headless Chromium (apt-get install -y chromium-headless-shell; CHROMIUM_PATH); Playwright never downloads a
// browser here.
const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  // English unless a test asks otherwise, whatever the machine's locale (pages follow Accept-Language).
  '--lang=en-US',
];

// Specs that start Portico servers of their own (own ports, own data folders and databases) and never touch a
// shared e2e server: each spec's ports are its own, so two of them may run at once, in whichever workers are free.
// The other specs share the demo data of a server, and some change what the others read (policies, passwords,
// grants): each worker has a server of its own, its lane (e2e/support/constants.ts), and runs its specs one at a time
// against it.
const OWN_SERVER_SPECS = /\/(cimd-ssrf|database-restart|enterprise-identity|failover|instances|registration-limits|server-process|workers)\.spec\.ts$/;
// What only the embedded database does, end to end (`npm start` with nothing configured, the data folder's lock, the
// CLI through a running server's control socket): when the run is on PostgreSQL, this spec runs once more with its
// servers on the embedded database (the embedded-smoke project), on ports of its own.
const EMBEDDED_SMOKE = /\/server-process\.spec\.ts$/;
const onPostgres = Boolean(env().DATABASE_URL);

export default defineConfig<PorticoTestOptions>({
  testDir: './e2e',
  outputDir: './e2e-artifacts',
  // After the last test: no server of the run wrote a secret to its output (e2e-logs/, emptied when the shared
  // servers start: e2e/support/serve.ts).
  globalTeardown: './e2e/support/secret-scan.ts',
  timeout: 120_000,
  fullyParallel: false,
  workers: E2E_LANES,
  // Flaky is failing: nothing is retried (the report below names any test that was).
  retries: 0,
  reporter: [['list'], ['./e2e/support/playwright-report.ts']],
  use: {
    baseURL: `http://localhost:${E2E_PORT}`,
    // Measured on this 2-core machine (agents + app-security, 7 tests): a trace of every test, kept or not, cost a
    // quarter of their time (its screencast renders each frame in software) and a screenshot of every open page at
    // every test's end a little more. A failure keeps its screenshot and Playwright's page snapshot
    // (error-context.md); `npx playwright test --trace on` records traces when one is needed. The specs' own
    // screenshots (the pages to look at) are taken as before.
    screenshot: 'only-on-failure',
    trace: 'off',
    // Every browser asks for English unless a test says otherwise (e2e/locales.spec.ts): pages follow Accept-Language.
    locale: 'en-US',
    launchOptions: { executablePath: env().CHROMIUM_PATH, args: chromiumArgs },
  },
  projects: [
    { name: 'shared-server', testIgnore: OWN_SERVER_SPECS, workers: E2E_LANES },
    // The specs with servers of their own come after the shared ones, on purpose: run beside the shared lanes (listed
    // first, measured in CI), they — several servers and PostgreSQL clusters each — slowed every test beside them,
    // and the whole phase took 22 minutes instead of 19½ although the lanes ended together.
    // The embedded smoke first of them: its one file (four tests in a row, a minute and a half) in one worker while
    // the other takes the own-server specs, which then fill both workers. It used to be a Playwright run of its own
    // after this one (`npm test`'s last step, 80 s); listed last, it ran alone at the very end (measured: no gain).
    ...(onPostgres ? [{ name: 'embedded-smoke', testMatch: EMBEDDED_SMOKE, workers: 1, use: { embeddedDatabase: true } }] : []),
    // In both workers once the shared specs are done: one at a time, they kept one worker busy for four minutes after
    // the other had run out of work.
    { name: 'own-servers', testMatch: OWN_SERVER_SPECS, workers: E2E_LANES },
  ],
  // One web server process starts a shared server per lane (e2e/support/serve.ts).
  webServer: {
    command: 'node --import tsx e2e/support/serve.ts',
    url: `http://127.0.0.1:${E2E_READY_PORT}/`,
    timeout: 180_000,
    reuseExistingServer: false,
    stdout: 'ignore',
    stderr: 'pipe',
    gracefulShutdown: { signal: 'SIGTERM', timeout: 15_000 },
  },
});
