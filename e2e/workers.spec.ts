// PORTICO_WORKERS: several server processes on one port (node:cluster), on PostgreSQL. The primary boots once (one
// demo seed, one banner), the server processes share the port and everything else through the database (a sign-in
// at one, token exchange and refresh at whichever the kernel picks), a killed server process is replaced, SIGTERM
// stops them all. On the embedded database the setting is refused before anything starts.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { expect, test } from './support/test';
import * as oidc from 'openid-client';
import { childProcessEnvironment, env } from '../lib/env';
import { demoEnvironment } from './support/constants';
import { createStorage, startPortico, type PorticoStorage, type RunningPortico } from './support/portico-process';
import { demoRelyingParty, signInForCallback } from './support/relying-party';

const PORT = 3224;
const ISSUER = `http://localhost:${PORT}`;
const METRICS_PORT = 3225;
const METRICS_TOKEN = 'e2e-metrics-token-of-at-least-32-characters';

/** A metric's value, summed over the series whose labels include `labels` (a scrape of /metrics). */
async function counted(url: string, metric: string, labels: string, headers: Record<string, string> = {}): Promise<number> {
  const response = await fetch(url, { headers });
  expect(response.status).toBe(200);
  const lines = (await response.text()).split('\n').filter((line) => line.startsWith(`${metric}{`) && line.includes(labels));
  return lines.reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/** The pids of a process's children (the cluster's server processes), from /proc. */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('PORTICO_WORKERS on the embedded database is refused with a clear message', () => {
  const attempt = spawnSync(process.execPath, ['--import', 'tsx', 'server.ts'], {
    cwd: process.cwd(),
    env: childProcessEnvironment({ ...demoEnvironment(PORT), DATABASE_URL: undefined, PORTICO_WORKERS: '2' }),
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(attempt.status).toBe(1);
  expect(attempt.stderr).toContain('PORTICO_WORKERS: 2 needs PostgreSQL (set DATABASE_URL): the embedded database belongs to one server process.');
  expect(attempt.stderr).not.toMatch(/\n\s+at /); // no stack trace
});

test.describe('several server processes on PostgreSQL', () => {
  test.skip(!env().DATABASE_URL, 'several server processes need PostgreSQL');

  let storage: PorticoStorage;
  let primary: RunningPortico;

  test.beforeAll(async () => {
    storage = await createStorage('portico-workers');
    primary = await startPortico(PORT, storage, { PORTICO_WORKERS: '2', PORTICO_METRICS_TOKEN: METRICS_TOKEN, PORTICO_METRICS_LISTEN: `127.0.0.1:${METRICS_PORT}` });
  });
  test.afterAll(async () => {
    if (primary && primary.process.exitCode === null) {
      primary.process.kill('SIGTERM');
      await primary.exited;
    }
    await storage?.dispose();
  });

  test('two server processes serve one issuer; a killed one is replaced; SIGTERM stops them all', async ({ page }) => {
    test.setTimeout(180_000);
    // One banner, one demo seed, from the primary; two server processes under it.
    expect(primary.output().match(/Portico is running at/g)).toHaveLength(1);
    expect(primary.output()).toContain('Server processes: 2 (PORTICO_WORKERS)');
    expect(primary.output().match(/Demo organization created/g)).toHaveLength(1);
    const workers = childrenOf(primary.process.pid!);
    expect(workers).toHaveLength(2);

    // A sign-in, its code exchange and a run of refreshes over many connections: whichever process each lands on.
    const config = await demoRelyingParty(ISSUER);
    const { callbackUrl, checks } = await signInForCallback(page, config, undefined, 'openid email offline_access', { prompt: 'consent' });
    let tokens: oidc.TokenEndpointResponse = await oidc.authorizationCodeGrant(config, callbackUrl, checks);
    const issued = [tokens.access_token, tokens.refresh_token!];
    for (let round = 0; round < 6; round += 1) {
      tokens = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
      issued.push(tokens.access_token, tokens.refresh_token!);
    }
    expect(tokens.access_token).toBeTruthy();

    // The metrics of the whole cluster, whichever process a scrape reaches, and on the primary's loopback listener:
    // seven token requests at least (the code exchange and six refreshes), however the kernel spread them.
    expect((await fetch(`${ISSUER}/metrics`)).status).toBe(401);
    const bearer = { authorization: `Bearer ${METRICS_TOKEN}` };
    expect(await counted(`${ISSUER}/metrics`, 'portico_http_requests_total', 'family="token"', bearer)).toBeGreaterThanOrEqual(7);
    expect(await counted(`http://127.0.0.1:${METRICS_PORT}/metrics`, 'portico_http_requests_total', 'family="token"')).toBeGreaterThanOrEqual(7);
    // What Next.js routes count reaches the same registry (they run in a bundle of their own): a wrong password at
    // the central's sign-in.
    const refused = await fetch(`${ISSUER}/central/session`, {
      method: 'POST',
      redirect: 'manual',
      headers: { Origin: ISSUER, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: 'nobody@workers.test', password: 'not the password at all' }).toString(),
    });
    expect(refused.status).toBe(303);
    expect(await counted(`http://127.0.0.1:${METRICS_PORT}/metrics`, 'portico_sign_in_failures_total', 'reason="wrong_credentials"')).toBeGreaterThanOrEqual(1);
    // Each response names its request; the server processes' log lines carry the same id, and no token they issued.
    const discovered = await fetch(`${ISSUER}/.well-known/openid-configuration`);
    const requestId = discovered.headers.get('x-request-id');
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    await expect.poll(() => primary.output().split('\n').some((line) => line.startsWith('{') && (JSON.parse(line) as { reqId?: string }).reqId === requestId), { timeout: 10_000 }).toBe(true);
    for (const secret of issued) expect(primary.output()).not.toContain(secret);

    // A server process that dies is replaced; the issuer keeps answering meanwhile.
    process.kill(workers[0]!, 'SIGKILL');
    await expect.poll(() => childrenOf(primary.process.pid!).filter((pid) => pid !== workers[0]).length, { timeout: 60_000 }).toBe(2);
    // The primary says so as it forks the replacement; its words may reach this pipe a moment after the fork.
    await expect.poll(() => primary.output(), { timeout: 10_000 }).toContain(`server process ${workers[0]} exited (SIGKILL); starting another`);
    const discovery = await fetch(`${ISSUER}/.well-known/openid-configuration`);
    expect(discovery.status).toBe(200);
    tokens = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(tokens.access_token).toBeTruthy();

    // SIGTERM to the primary stops every server process, and the primary exits cleanly.
    const running = childrenOf(primary.process.pid!);
    primary.process.kill('SIGTERM');
    expect(await primary.exited).toBe(0);
    for (const pid of running) await expect.poll(() => alive(pid), { timeout: 15_000 }).toBe(false);
  });
});
