// PostgreSQL failover under load: a primary and a streaming standby (two private clusters this test creates with
// Debian's tools; the machine's own PostgreSQL is never touched), Portico on a multi-host DATABASE_URL that requires the
// primary. Under refresh-token and approval load the primary dies (`pg_ctl stop -m immediate`) and the standby is
// promoted. Portico recovers by itself; requests caught in the outage fail cleanly; no refresh token is accepted
// twice; no approval decision or grant is lost or duplicated; /api/ready reports the outage afterwards.
//
// The replication is synchronous (synchronous_standby_names = '*', synchronous_commit = on), as docs/deploy.md asks
// of a failover pair: with asynchronous replication a refresh the primary committed and answered, but had not yet
// shipped, is undone by the promotion, and the refresh token it spent is valid again on the new primary: accepted
// twice. The second test shows that this is real, with asynchronous replication and a standby held back.
import { execFileSync } from 'node:child_process';
import { appendFileSync, chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from './support/test';
import * as oidc from 'openid-client';
import postgres from 'postgres';
import { env } from '../lib/env';
import { DEMO } from './support/constants';
import { accessTokenThroughConsent } from './support/mcp-oauth';
import { startPortico, type RunningPortico } from './support/portico-process';
import { demoRelyingParty, signInForCallback } from './support/relying-party';
import { rememberSecret } from './support/secret-scan';

const PORT = 3227;
const PRIMARY_PORT = 5497;
const STANDBY_PORT = 5498;
const ISSUER = `http://localhost:${PORT}`;
const BASE = `http://127.0.0.1:${PORT}`;
// database-restart.spec.ts's, and what postgres.js names in its own errors (CONNECTION_CLOSED 127.0.0.1,127.0.0.1:5497,5498).
const INTERNALS = /\n\s+at .+:\d+:\d+|ECONNREFUSED|ECONNRESET|postgres:\/\/|57P0\d|terminating connection|node_modules|stack|CONNECTION_[A-Z]+|CONNECT_TIMEOUT|549[78]/i;
const BASIC = `Basic ${Buffer.from(`${encodeURIComponent(DEMO.clientId)}:${encodeURIComponent(DEMO.clientSecret)}`).toString('base64')}`;

function postgresBin(name: string): string {
  const version = readdirSync('/usr/lib/postgresql').sort().at(-1)!;
  return path.join('/usr/lib/postgresql', version, 'bin', name);
}

const isRoot = process.getuid?.() === 0;
const toolsMissing = !existsSync('/usr/lib/postgresql') || readdirSync('/usr/lib/postgresql').length === 0;
const noPostgresUser = isRoot && (() => {
  try {
    execFileSync('id', ['-u', 'postgres'], { stdio: 'pipe' });
    return false;
  } catch {
    return true;
  }
})();

/** Runs a PostgreSQL tool as the postgres user (the server refuses to run as root). */
function asPostgres(tool: string, args: string[]): void {
  const command = [postgresBin(tool), ...args];
  if (isRoot) execFileSync('runuser', ['-u', 'postgres', '--', ...command], { stdio: 'pipe' });
  else execFileSync(command[0]!, command.slice(1), { stdio: 'pipe' });
}

/** A folder the postgres user owns (mode 0700, as initdb and pg_basebackup want it). */
function clusterFolder(prefix: string): string {
  const folder = mkdtempSync(path.join(tmpdir(), prefix));
  chmodSync(folder, 0o700);
  if (isRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(folder, uid, gid);
  }
  return folder;
}

interface Cluster {
  folder: string;
  port: number;
  pgctl(...args: string[]): void;
}

function cluster(folder: string, port: number): Cluster {
  return {
    folder,
    port,
    pgctl: (...args) => asPostgres('pg_ctl', ['-D', folder, '-l', path.join(folder, 'server.log'), '-o', `-p ${port} -k ${folder} -c listen_addresses=127.0.0.1`, '-w', '-t', '60', ...args]),
  };
}

/**
 * A primary with a streaming standby, both started; `synchronous` makes the primary wait for the standby's flush at
 * every commit. The standby's own synchronous_standby_names is cleared: promoted, it has no standby to wait for (an
 * operator re-adds one, docs/deploy.md).
 */
async function startReplicatedPair(synchronous: boolean): Promise<{ primary: Cluster; standby: Cluster; dispose(): void }> {
  const primary = cluster(clusterFolder('portico-failover-primary-'), PRIMARY_PORT);
  const standby = cluster(clusterFolder('portico-failover-standby-'), STANDBY_PORT);
  const dispose = () => {
    for (const one of [primary, standby]) {
      try {
        if (existsSync(path.join(one.folder, 'postmaster.pid'))) one.pgctl('stop', '-m', 'immediate');
      } catch {
        // already down
      }
      rmSync(one.folder, { recursive: true, force: true });
    }
  };
  try {
    asPostgres('initdb', ['-D', primary.folder, '-A', 'trust', '-U', 'postgres', '--no-sync']);
    appendFileSync(
      path.join(primary.folder, 'postgresql.conf'),
      ['wal_level = replica', 'max_wal_senders = 4', synchronous ? "synchronous_standby_names = '*'" : "synchronous_standby_names = ''", 'synchronous_commit = on', 'fsync = off', ''].join('\n'),
    );
    appendFileSync(path.join(primary.folder, 'pg_hba.conf'), 'host replication postgres 127.0.0.1/32 trust\n');
    primary.pgctl('start');
    asPostgres('pg_basebackup', ['-h', '127.0.0.1', '-p', String(PRIMARY_PORT), '-U', 'postgres', '-D', standby.folder, '-R', '-X', 'stream', '--no-sync']);
    appendFileSync(path.join(standby.folder, 'postgresql.auto.conf'), "synchronous_standby_names = ''\n");
    standby.pgctl('start');
    // Streaming (and, when synchronous, counted as the synchronous standby) before anything is written.
    const sql = postgres(`postgres://postgres@127.0.0.1:${PRIMARY_PORT}/postgres`, { max: 1, onnotice: () => {} });
    try {
      await expect
        .poll(async () => (await sql<{ sync_state: string }[]>`select sync_state from pg_stat_replication where state = 'streaming'`).map((row) => row.sync_state), { timeout: 30_000 })
        .toEqual([synchronous ? 'sync' : 'async']);
    } finally {
      await sql.end({ timeout: 1 });
    }
    return { primary, standby, dispose };
  } catch (error) {
    dispose();
    throw error;
  }
}

/** Both hosts; postgres.js connects to the first that is a primary (target_session_attrs=primary). */
const FAILOVER_URL = `postgres://postgres@127.0.0.1:${PRIMARY_PORT},127.0.0.1:${STANDBY_PORT}/postgres?target_session_attrs=primary`;

async function startPorticoOn(databaseUrl: string): Promise<{ portico: RunningPortico; dataDir: string }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'portico-failover-data-'));
  // Grace 0: a refresh token presented again after its rotation is always refused, so "accepted twice" has no
  // exception here (the grace interval's replay answers the saved successor, lib/oidc/adapter.ts).
  const portico = await startPortico(PORT, { dataDir, databaseUrl, dispose: async () => {} }, { PORTICO_DCR_PER_IP_PER_HOUR: '100000', PORTICO_DCR_GLOBAL_PER_HOUR: '1000000', PORTICO_REFRESH_REUSE_GRACE_SECONDS: '0' });
  return { portico, dataDir };
}

interface Answer {
  status: number;
  body: string;
}

async function send(url: string, init: RequestInit): Promise<Answer> {
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(20_000) });
    return { status: response.status, body: await response.text() };
  } catch (error) {
    // Portico's own server failing to answer (reset, or no answer in 20 s) counts as a failure.
    return { status: 0, body: `no answer: ${(error as Error).name}` };
  }
}

function refresh(refreshToken: string): Promise<Answer> {
  rememberSecret('a refresh token', refreshToken);
  return send(`${BASE}/oidc/token`, { method: 'POST', headers: { Authorization: BASIC, 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }) });
}

/** A fresh refresh token family of the demo app: sign-in through the browser, code exchanged. */
async function refreshFamily(page: Page, config: oidc.Configuration): Promise<string> {
  await page.context().clearCookies();
  const { callbackUrl, checks } = await signInForCallback(page, config, undefined, 'openid email offline_access', { prompt: 'consent' });
  const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, checks);
  return tokens.refresh_token!;
}

const skipReason = toolsMissing
  ? 'needs Debian PostgreSQL tools in /usr/lib/postgresql (apt-get install postgresql) for two private clusters'
  : noPostgresUser
    ? 'runs the clusters as the postgres user when root, and there is none'
    : !env().DATABASE_URL
      ? 'the embedded database has no primary to fail over (an own-servers PostgreSQL run covers it)'
      : undefined;

test.describe('PostgreSQL failover', () => {
  test.skip(skipReason !== undefined, skipReason);

  test('standby promoted under load: Portico recovers by itself, no refresh token is accepted twice, no decision or grant is lost', async ({ page }) => {
    test.setTimeout(180_000);
    const pair = await startReplicatedPair(true);
    let running: { portico: RunningPortico; dataDir: string } | undefined;
    try {
      running = await startPorticoOn(FAILOVER_URL);
      const { portico } = running;
      const config = await demoRelyingParty(ISSUER);

      // Load: refresh-token families, each rotated in a loop, and approval requests asked and approved in a loop.
      const families: string[] = [];
      for (let n = 0; n < 4; n += 1) families.push(await refreshFamily(page, config));
      // A family ends when an attempt failed in the outage after its rotation had committed (the reuse grace is 0
      // here, docs/deploy.md): its loop goes on with a spare, so that refreshes after the promotion are seen even when
      // every first family ended so (a CI run had all four end, and no refresh left to show the recovery).
      const spares: string[] = [];
      for (let n = 0; n < 4; n += 1) spares.push(await refreshFamily(page, config));
      await page.context().clearCookies();
      const mcpToken = await accessTokenThroughConsent(page, ISSUER, { resource: `${ISSUER}/api/mcp`, scope: 'mcp', person: { email: DEMO.email, password: DEMO.password } });
      const tool = (name: string, args: Record<string, unknown>) => send(`${BASE}/api/tools/${name}`, { method: 'POST', headers: { Authorization: `Bearer ${mcpToken}`, 'Content-Type': 'application/json' }, body: JSON.stringify(args) });
      const apps = JSON.parse((await tool('apps.list', { org: 'demo' })).body) as { status: string; result: { apps: { slug: string }[] } };
      expect(apps.status).toBe('ok');
      const demoApp = apps.result.apps[0]!.slug;
      const signIn = await fetch(`${BASE}/central/session`, { method: 'POST', headers: { Origin: ISSUER }, body: new URLSearchParams({ email: DEMO.email, password: DEMO.password }), redirect: 'manual' });
      const centralCookie = /portico_central=([^;]+)/.exec(signIn.headers.get('set-cookie') ?? '')![1]!;
      const central = { Origin: ISSUER, Cookie: `portico_central=${centralCookie}`, 'Content-Type': 'application/json' };

      const started = performance.now();
      const seen: (Answer & { at: number; what: string })[] = [];
      const record = (what: string, answer: Answer) => (seen.push({ ...answer, at: performance.now() - started, what }), answer);
      /** Every refresh token that was answered with new tokens: presented again, each must be refused. */
      const spent: string[] = [];
      /** Families whose last answer was a success but whose successor was then refused: a rotation lost. */
      const lostAfterSuccess: string[] = [];
      const current = [...families];
      const decided: string[] = [];
      let loadRunning = true;

      const refreshLoop = async (family: number) => {
        let lastWasSuccess = true;
        while (loadRunning) {
          const token = current[family]!;
          const answer = record('refresh', await refresh(token));
          if (answer.status === 200) {
            spent.push(token);
            current[family] = (JSON.parse(answer.body) as { refresh_token: string }).refresh_token;
            lastWasSuccess = true;
          } else if (answer.status === 400 && /invalid_grant/.test(answer.body)) {
            // Only after an attempt that failed (its rotation may have committed without its answer): the family ends.
            if (lastWasSuccess) lostAfterSuccess.push(`family ${family}`);
            const spare = spares.shift();
            current[family] = spare ?? '';
            if (!spare) return;
            lastWasSuccess = true;
          } else {
            lastWasSuccess = false;
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
        }
      };
      const approvalLoop = async (worker: number) => {
        for (let n = 0; loadRunning; n += 1) {
          const asked = record('ask', await tool('permissions.request_sensitive_access', { org: 'demo', app: demoApp, resource: `/failover/${worker}/${n}`, profile: 'read', duration_seconds: 3600, reason: 'failover' }));
          const requestId = asked.status === 200 ? (JSON.parse(asked.body) as { result?: { request_id?: string } }).result?.request_id : undefined;
          if (!requestId) {
            await new Promise((resolve) => setTimeout(resolve, 100));
            continue;
          }
          // Decided until an answer comes: 200 (decided now) or 409 (already decided, by an attempt whose answer was lost).
          for (let tries = 0; loadRunning && tries < 100; tries += 1) {
            const proof = record('nonce', await send(`${BASE}/central/api/nonce`, { method: 'POST', headers: central, body: JSON.stringify({ request_id: requestId }) }));
            if (proof.status !== 200) {
              await new Promise((resolve) => setTimeout(resolve, 100));
              continue;
            }
            const { nonce, fingerprint } = JSON.parse(proof.body) as { nonce: string; fingerprint: string };
            const decision = record('decide', await send(`${BASE}/central/api/decisions`, { method: 'POST', headers: central, body: JSON.stringify({ request_id: requestId, fingerprint, nonce, decision: 'approve', confirmed: true }) }));
            if (decision.status === 200) decided.push(requestId);
            if (decision.status === 200 || decision.status === 409) break;
          }
        }
      };
      const load = Promise.all([...families.map((_, family) => refreshLoop(family)), approvalLoop(0), approvalLoop(1)]);

      // Healthy load first, then the primary dies and, a second later, the standby is promoted.
      await expect.poll(() => spent.length >= 8 && decided.length >= 2, { timeout: 30_000 }).toBe(true);
      const beforeFailover = { refreshes: spent.length, decisions: decided.length };
      pair.primary.pgctl('stop', '-m', 'immediate');
      const primaryDown = performance.now() - started;
      await new Promise((resolve) => setTimeout(resolve, 1000));
      pair.standby.pgctl('promote');
      const promoted = performance.now() - started;
      // Recovered: refreshes and decisions succeed again; the load runs on a little longer, then stops.
      await expect.poll(() => seen.some((answer) => answer.at > promoted && answer.what === 'refresh' && answer.status === 200) && seen.some((answer) => answer.at > promoted && answer.what === 'decide' && answer.status === 200), { timeout: 60_000 }).toBe(true);
      const firstSuccess = (what: string) => seen.find((answer) => answer.at > promoted && answer.what === what && answer.status === 200)!.at;
      const recovery = { refresh: Math.round(firstSuccess('refresh') - promoted), decision: Math.round(firstSuccess('decide') - promoted) };
      await new Promise((resolve) => setTimeout(resolve, 1000));
      loadRunning = false;
      await load;

      const failed = seen.filter((answer) => answer.status !== 200);
      const summary = { beforeFailover, after: { refreshes: spent.length, decisions: decided.length }, answers: seen.length, failed: failed.length, statuses: [...new Set(failed.map((answer) => `${answer.what} ${answer.status}`))], primaryDownAtMs: Math.round(primaryDown), promotedAtMs: Math.round(promoted), recoveryAfterPromotionMs: recovery };
      console.log(`failover: ${JSON.stringify(summary)}`);
      for (const answer of failed) console.log(`failover: during the outage, ${answer.what} ${answer.status} at ${Math.round(answer.at)} ms: ${answer.body.slice(0, 200)}`);
      for (const answer of failed) console.log(`failover: during the outage, ${answer.what} ${answer.status} at ${Math.round(answer.at)} ms: ${answer.body.slice(0, 200)}`);
      test.info().annotations.push({ type: 'failover', description: JSON.stringify(summary) });

      // Portico did not exit, and is ready again without a restart.
      expect(portico.process.exitCode).toBeNull();
      const ready = await fetch(`${BASE}/api/ready`);
      expect(ready.status).toBe(200);
      const readiness = (await ready.json()) as { status: string; database: { outage: unknown; lastOutage: { from: string; to: string; error: string } | null } };
      // …and says what happened meanwhile: the outage's bounds and its class of error, nothing else.
      expect(readiness.status).toBe('ready');
      expect(readiness.database.outage).toBeNull();
      expect(readiness.database.lastOutage).toEqual({ from: expect.any(String), to: expect.any(String), error: expect.stringMatching(/^(connection refused|connection closed|server shutting down|server read-only|server starting up|connection timeout|connection failed)$/) });
      const outage = readiness.database.lastOutage!;
      expect(Date.parse(outage.to) - Date.parse(outage.from)).toBeGreaterThanOrEqual(0);
      expect(JSON.stringify(readiness)).not.toMatch(/127\.0\.0\.1|postgres|5497|5498/);
      console.log(`failover: /api/ready ${JSON.stringify(readiness)}`);

      // Every answer while it lasted was clean: success (many requests just wait for the new primary; some runs see no
      // failure at all), the protocol's error shape, or a plain 5xx; never internals, never a connection Portico
      // dropped or left unanswered.
      expect(seen.filter((answer) => answer.status === 0)).toEqual([]);
      for (const answer of seen) {
        expect(answer.body, `${answer.what} ${answer.status}: ${answer.body.slice(0, 300)}`).not.toMatch(INTERNALS);
        if (answer.status >= 500) expect([500, 503]).toContain(answer.status);
      }

      // No rotation answered with success was lost: each family's latest token still works (the sign of a lost commit
      // would be invalid_grant right after a success).
      expect(lostAfterSuccess).toEqual([]);
      for (const token of current.filter(Boolean)) {
        const answer = await refresh(token);
        expect(answer.status, answer.body).toBe(200);
        spent.push(token);
      }

      // Every approval answered 200 is approved on the new primary, with exactly one grant.
      expect(decided.length).toBeGreaterThan(beforeFailover.decisions);
      for (const requestId of decided) {
        const status = JSON.parse((await tool('permissions.approval_status', { request_id: requestId })).body) as { result?: { status?: string }; status?: string };
        expect(status.result?.status ?? status.status, requestId).toBe('approved');
      }
      const sql = postgres(`postgres://postgres@127.0.0.1:${STANDBY_PORT}/postgres`, { max: 1, onnotice: () => {} });
      try {
        const grants = await sql<{ request_id: string; count: number }[]>`select request_id, count(*)::int as count from approval_grants where request_id in ${sql(decided)} group by request_id`;
        expect(grants.length).toBe(decided.length);
        expect(grants.every((row) => row.count === 1)).toBe(true);
      } finally {
        await sql.end({ timeout: 1 });
      }

      // No refresh token is accepted twice: every token that was answered with new tokens, before, during and after
      // the failover, is refused now (last: a replay revokes its family).
      expect(spent.length).toBeGreaterThan(beforeFailover.refreshes);
      const replays: { token: string; answer: Answer }[] = [];
      for (let start = 0; start < spent.length; start += 8) {
        replays.push(...(await Promise.all(spent.slice(start, start + 8).map(async (token) => ({ token: token.slice(0, 8), answer: await refresh(token) })))));
      }
      expect(replays.filter(({ answer }) => !(answer.status === 400 && /invalid_grant/.test(answer.body))).map(({ token, answer }) => `${token}…: ${answer.status} ${answer.body.slice(0, 200)}`)).toEqual([]);
    } finally {
      if (running) {
        await running.portico.stop('SIGTERM');
        rmSync(running.dataDir, { recursive: true, force: true });
      }
      pair.dispose();
    }
  });

  test('asynchronous replication: a refresh the standby never received is undone by the promotion, and its token is accepted twice', async ({ page }) => {
    // Why docs/deploy.md asks for synchronous replication, shown rather than asserted. Made deterministic by holding
    // the standby back while the refresh commits (with asynchronous replication a standby lagging by a few
    // milliseconds is the same case, only by chance).
    test.setTimeout(120_000);
    const pair = await startReplicatedPair(false);
    let running: { portico: RunningPortico; dataDir: string } | undefined;
    try {
      running = await startPorticoOn(FAILOVER_URL);
      const config = await demoRelyingParty(ISSUER);
      const first = await refreshFamily(page, config);
      // Replicated: the family is known to the standby.
      const rotated = await refresh(first);
      expect(rotated.status).toBe(200);
      const tokenA = (JSON.parse(rotated.body) as { refresh_token: string }).refresh_token;

      // The standby falls behind; the primary, not waiting for it, commits and answers the refresh of A.
      pair.standby.pgctl('stop', '-m', 'fast');
      const refreshedA = await refresh(tokenA);
      expect(refreshedA.status).toBe(200);
      const tokenB = (JSON.parse(refreshedA.body) as { refresh_token: string }).refresh_token;

      // The primary dies before the standby had that commit; the standby is promoted.
      pair.primary.pgctl('stop', '-m', 'immediate');
      pair.standby.pgctl('start');
      pair.standby.pgctl('promote');
      await expect.poll(async () => (await send(`${BASE}/api/ready`, {})).status, { timeout: 60_000 }).toBe(200);

      // A, spent and answered with B before the failover, is accepted again; B, which the client holds, is unknown.
      const replayA = await refresh(tokenA);
      expect(replayA.status, replayA.body).toBe(200);
      expect((JSON.parse(replayA.body) as { refresh_token: string }).refresh_token).not.toBe(tokenB);
      const presentB = await refresh(tokenB);
      expect(presentB.status).toBe(400);
      expect(presentB.body).toMatch(/invalid_grant/);
    } finally {
      if (running) {
        await running.portico.stop('SIGTERM');
        rmSync(running.dataDir, { recursive: true, force: true });
      }
      pair.dispose();
    }
  });
});
