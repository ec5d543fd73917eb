// Acceptance: kill -9 the server and start it again: same JWKS kid, the demo account still signs in,
// the seed did not run twice (and a restart with the central turned off serves no central).
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect, test } from './support/test';
import { signInAndExchange, demoRelyingParty } from './support/relying-party';
import { createStorage, spawnUntilReady, startPortico } from './support/portico-process';
import { serverLogPath } from './support/secret-scan';
import { childProcessEnvironment, env } from '../lib/env';
import { DEMO } from './support/constants';
import { accessTokenThroughConsent } from './support/mcp-oauth';
import type { PorticoStorage } from './support/portico-process';

/**
 * This spec's ports (no other spec uses them): 3211–3213 and 3220 for the CLI beside a running server. On PostgreSQL
 * the embedded-smoke project runs the spec once more on the embedded database, possibly at the same time: 20 higher.
 */
function portsOf(embeddedDatabase: boolean) {
  const base = embeddedDatabase && env().DATABASE_URL ? 3231 : 3211;
  return { PORT: base, CLI_PORT: base + 9 };
}

test('a server killed with SIGKILL restarts with the same keys and data', async ({ page, request, embeddedDatabase }) => {
  const { PORT } = portsOf(embeddedDatabase);
  const storage = await createStorage('portico-restart', { embedded: embeddedDatabase });
  try {
    const first = await startPortico(PORT, storage);
    expect(first.output()).toContain('Demo organization created');
    const kidsBefore = ((await (await request.get(`http://127.0.0.1:${PORT}/oidc/jwks`)).json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid);

    first.process.kill('SIGKILL');
    await first.exited;

    // The restart also turns the operator central off: both centrals are gone, the rest is unchanged.
    const second = await startPortico(PORT, storage, { PORTICO_CENTRAL_ENABLED: 'false' });
    try {
      for (const path of ['/central', '/central/requests/apr_aaaaaaaaaaaaaaaaaaaaaaaa', '/embedded-central/requests/apr_aaaaaaaaaaaaaaaaaaaaaaaa']) {
        const off = await request.get(`http://127.0.0.1:${PORT}${path}`);
        expect(off.status(), path).toBe(404);
        expect(await off.text()).toContain('operator CLI');
      }
      expect(second.output()).not.toContain('Demo organization created');
      expect(second.output()).toContain('password as printed on first start');
      const kidsAfter = ((await (await request.get(`http://127.0.0.1:${PORT}/oidc/jwks`)).json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid);
      expect(kidsAfter).toEqual(kidsBefore);

      const config = await demoRelyingParty(`http://localhost:${PORT}`);
      const { tokens } = await signInAndExchange(page, config);
      expect(tokens.claims()?.iss).toBe(`http://localhost:${PORT}`);
    } finally {
      second.process.kill('SIGTERM');
      await second.exited;
    }
  } finally {
    await storage.dispose();
  }
});

test('a second process on the same embedded data folder is refused with a clear message', async ({ embeddedDatabase }) => {
  test.skip(!embeddedDatabase && Boolean(env().DATABASE_URL), 'only the embedded database is limited to one process');
  const { PORT } = portsOf(embeddedDatabase);
  const storage = await createStorage('portico-lock', { embedded: true });
  const first = await startPortico(PORT, storage);
  try {
    const second = startPortico(PORT + 1, storage);
    await expect(second).rejects.toThrow(new RegExp(`Another Portico process \\(pid ${first.process.pid}\\) is already using the embedded database`));
  } finally {
    first.process.kill('SIGTERM');
    await first.exited;
    await storage.dispose();
  }
});

test('a newcomer runs `npm start` with nothing configured and tries the demo sign-in from the home page', async ({ page, embeddedDatabase }, testInfo) => {
  // Nothing configured is the embedded database: on a PostgreSQL run the embedded-smoke project runs this test (26 s
  // of every CI run went to running it once more with a DATABASE_URL, which is not what a newcomer has).
  test.skip(!embeddedDatabase && Boolean(env().DATABASE_URL), 'a newcomer has no DATABASE_URL: the embedded-smoke project runs it');
  const { PORT } = portsOf(embeddedDatabase);
  const storage = await createStorage('portico-newcomer', { embedded: embeddedDatabase });
  // `npm start` as the README says (the build is there already): only an issuer and a data folder are given, and
  // whatever demo settings the test run's own environment may hold are cleared.
  const nothingConfigured = { PORTICO_DEMO_PASSWORD: '', PORTICO_DEMO_CLIENT_ID: '', PORTICO_DEMO_CLIENT_SECRET: '', PORTICO_DEMO_REDIRECT_URI: '', PORTICO_DEMO_EMAIL: '' };
  const portico = await spawnUntilReady(
    ['start'],
    { ...nothingConfigured, PORTICO_ISSUER: `http://localhost:${PORT + 2}`, PORTICO_DATA_DIR: storage.dataDir, DATABASE_URL: storage.databaseUrl },
    'Portico is running at',
    'npm start',
    90,
    { npm: true, logFile: serverLogPath(`npm-start-${PORT + 2}`) },
  );
  try {
    const printed = /password:\s+(\S+)\s+\(generated; shown only now\)/.exec(portico.output());
    expect(printed?.[1]).toBeTruthy();
    // `npm start` runs on the project's pinned Node.js 24 (docs/deploy.md#runtime) whatever the system's Node, and
    // oidc-provider has nothing to warn about.
    expect(portico.output()).toContain(`Runtime: Node.js v${pinnedNodeVersion()}`);
    expect(portico.output()).not.toContain('Unsupported runtime');
    // Nothing uses the demo app's secret on the stand-in page: it is not printed.
    expect(portico.output()).toMatch(/client_secret:\s+not printed: Portico's stand-in callback page does not use it/);
    expect(portico.output()).not.toMatch(/client_secret:\s+\S{43}/);
    await page.goto(`http://localhost:${PORT + 2}/`);
    await page.screenshot({ path: testInfo.outputPath('home.png'), fullPage: true });
    await page.getByRole('link', { name: 'Try signing in to the demo app' }).click();
    await expect(page.getByRole('heading', { name: 'Sign in to Demo App' })).toBeVisible();
    await page.getByLabel('Email').fill('owner@demo.portico.test');
    await page.getByLabel('Password').fill(printed![1]!);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(page.getByRole('heading', { name: 'Signed in to Demo App' })).toBeVisible();
    await page.screenshot({ path: testInfo.outputPath('demo-callback.png'), fullPage: true });
    // Then the console: an admin's change (a console action, whose transaction holds the embedded database's one
    // connection) completes — a translation looked up inside it once waited on that connection forever.
    await page.goto(`http://localhost:${PORT + 2}/console/login`);
    await page.locator('input[name="email"]').fill('owner@demo.portico.test');
    await page.locator('input[name="password"]').fill(printed![1]!);
    await page.locator('form:has(input[name="password"]) button[type="submit"]').click();
    await page.waitForURL(/\/console\/demo\/apps$/);
    await page.goto(`http://localhost:${PORT + 2}/console/demo/teams`);
    await page.getByTestId('create-team').locator('input[name="name"]').fill('Newcomers');
    await page.getByTestId('create-team').getByRole('button').click();
    await expect(page.getByTestId('create-team').getByTestId('action-ok')).toBeVisible({ timeout: 30_000 });
  } finally {
    await portico.stop();
    await storage.dispose();
  }
});

/** The version of the Node.js package that npm installed for this platform (package.json's optionalDependencies). */
function pinnedNodeVersion(): string {
  const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { optionalDependencies: Record<string, string> };
  const installed = Object.keys(manifest.optionalDependencies).find((name) => name.startsWith('node-') && existsSync(path.join('node_modules', name, 'bin', 'node')));
  if (!installed) throw new Error('No pinned Node.js package is installed for this platform (node_modules/node-<os>-<cpu>).');
  return manifest.optionalDependencies[installed]!;
}

/** `npm run portico -- …` on a storage's data folder, as its own process (no terminal). */
function portico(storage: PorticoStorage, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'scripts/portico.ts', ...args],
      { env: childProcessEnvironment({ PORTICO_DATA_DIR: storage.dataDir, DATABASE_URL: storage.databaseUrl }), timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

test('the CLI works beside a running server on the embedded database: a root request only the CLI may decide is decided through it', async ({ page, request, embeddedDatabase }) => {
  // Once per run, end to end: on a PostgreSQL run the embedded-smoke project runs it (the database the title names).
  // The control socket and its commands on PostgreSQL are test/console/control-socket.test.ts's, in vitest's
  // PostgreSQL pass; running this test a second time here cost 17 s of every CI run.
  test.skip(!embeddedDatabase && Boolean(env().DATABASE_URL), 'run once, on the embedded database, by the embedded-smoke project');
  test.setTimeout(180_000);
  const { CLI_PORT } = portsOf(embeddedDatabase);
  const storage = await createStorage('pc-cli', { embedded: embeddedDatabase });
  const running = await startPortico(CLI_PORT, storage);
  const issuer = `http://localhost:${CLI_PORT}`;
  try {
    // Help needs nothing; a command goes to the server (no lock error, no second process on the data folder).
    expect((await portico(storage, '--help')).stdout).toContain('approvals approve');
    const orgs = await portico(storage, 'orgs', 'list');
    expect(orgs.stderr).toBe('');
    expect(orgs.code).toBe(0);
    expect(orgs.stdout).toContain('demo\t');

    // Root access, permanent: the central may not decide it; the CLI does, while Portico keeps running.
    const token = await accessTokenThroughConsent(page, issuer, { resource: `${issuer}/api/mcp`, scope: 'mcp', person: { email: DEMO.email, password: DEMO.password } });
    // One MCP call through the SDK client with that token: Portico's own MCP server on this database.
    const agent = new Client({ name: 'smoke-agent', version: '1.0.0' });
    await agent.connect(new StreamableHTTPClientTransport(new URL(`${issuer}/api/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    const whoami = await agent.callTool({ name: 'whoami', arguments: {} });
    expect(whoami.isError).toBeFalsy();
    expect(JSON.stringify(whoami.content)).toContain(DEMO.email);
    await agent.close();
    const asked = await request.post(`${issuer}/api/tools/permissions.request_root_access`, { headers: { Authorization: `Bearer ${token}` }, data: { org: 'demo', app: 'demo-app', reason: 'database migration' } });
    expect(asked.status()).toBe(200);
    const requestId = ((await asked.json()) as { result: { request_id: string } }).result.request_id;
    expect((await portico(storage, 'approvals', 'list')).stdout).toContain(`${requestId}\tpending`);
    // Without a terminal and without --yes nothing is decided.
    const unconfirmed = await portico(storage, 'approvals', 'approve', requestId);
    expect(unconfirmed.code).toBe(1);
    expect(unconfirmed.stderr).toContain('Not confirmed');
    const approved = await portico(storage, 'approvals', 'approve', requestId, '--yes');
    expect(approved.code).toBe(0);
    expect(approved.stdout).toContain('Approved: grant apg_');
    const status = await request.post(`${issuer}/api/tools/permissions.approval_status`, { headers: { Authorization: `Bearer ${token}` }, data: { request_id: requestId } });
    expect(((await status.json()) as { result: { status: string } }).result.status).toBe('approved');
    // The server is still the one serving, and the decision is in the audit trail as the CLI's.
    expect(running.process.exitCode).toBeNull();
    expect((await portico(storage, 'audit', 'verify')).stdout).toContain('All audit chains are intact');
    running.process.kill('SIGTERM');
    await running.exited;
    // Stopped: the CLI opens the database itself again.
    const alone = await portico(storage, 'orgs', 'list');
    expect(alone.code).toBe(0);
    expect(alone.stderr).not.toContain('Another Portico process');
    expect(alone.stdout).toContain('demo\t');
  } finally {
    if (running.process.exitCode === null) {
      running.process.kill('SIGTERM');
      await running.exited;
    }
    await storage.dispose();
  }
});
