// PostgreSQL restarted under load: Portico keeps running (no restart of its own), requests caught in the outage fail
// cleanly (the protocol's error shape or a plain 503, never internals), and once the database is back every request
// succeeds again. The database is a private cluster this test creates, so restarting it disturbs nothing else.
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from './support/test';
import { env } from '../lib/env';
import { startPortico } from './support/portico-process';

const PORT = 3219;
const PG_PORT = 5499;
const INTERNALS = /\n\s+at .+:\d+:\d+|ECONNREFUSED|ECONNRESET|postgres:\/\/|57P0\d|terminating connection|node_modules|stack/i;

function postgresBin(name: string): string {
  const version = readdirSync('/usr/lib/postgresql').sort().at(-1)!;
  return path.join('/usr/lib/postgresql', version, 'bin', name);
}

/** Runs a PostgreSQL tool as the postgres user (the server refuses to run as root). */
function asPostgres(tool: string, args: string[]): void {
  const command = [postgresBin(tool), ...args];
  if (process.getuid?.() === 0) execFileSync('runuser', ['-u', 'postgres', '--', ...command], { stdio: 'pipe' });
  else execFileSync(command[0]!, command.slice(1), { stdio: 'pipe' });
}

test('PostgreSQL restarted under load: Portico recovers by itself and in-flight requests fail cleanly', async ({ request }) => {
  test.skip(!env().DATABASE_URL, 'the embedded database has no server to restart (its kill -9 recovery is in server-process.spec.ts)');
  test.setTimeout(180_000);
  const cluster = mkdtempSync(path.join(tmpdir(), 'portico-pg-'));
  const dataDir = mkdtempSync(path.join(tmpdir(), 'portico-restart-data-'));
  chmodSync(cluster, 0o700);
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(cluster, uid, gid);
  }
  const pgctl = (...args: string[]) => asPostgres('pg_ctl', ['-D', cluster, '-l', path.join(cluster, 'server.log'), '-o', `-p ${PG_PORT} -k ${cluster} -c listen_addresses=127.0.0.1`, '-w', ...args]);
  asPostgres('initdb', ['-D', cluster, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  pgctl('start');
  const portico = await startPortico(PORT, { dataDir, databaseUrl: `postgres://postgres@127.0.0.1:${PG_PORT}/postgres`, dispose: async () => {} }, { PORTICO_DCR_PER_IP_PER_HOUR: '100000', PORTICO_DCR_GLOBAL_PER_HOUR: '1000000' });
  try {
    const base = `http://127.0.0.1:${PORT}`;
    // Requests that need the database: a token lookup (oidc-provider's adapter), readiness, and a page.
    const probes = [
      () => request.post(`${base}/oidc/token`, { form: { grant_type: 'refresh_token', refresh_token: 'not-a-real-token', client_id: 'no-such-client' }, failOnStatusCode: false, timeout: 15_000 }),
      () => request.get(`${base}/api/ready`, { failOnStatusCode: false, timeout: 15_000 }),
      () => request.post(`${base}/oauth/register`, { data: { redirect_uris: ['ftp://bad'] }, failOnStatusCode: false, timeout: 15_000 }),
    ];
    const healthy = async () => Promise.all(probes.map(async (probe) => (await probe()).status()));
    expect(await healthy()).toEqual([401, 200, 400]);

    let outage = true;
    const seen: { status: number; body: string }[] = [];
    const load = Promise.all(
      Array.from({ length: 6 }, async (_, worker) => {
        while (outage) {
          try {
            const response = await probes[worker % probes.length]!();
            seen.push({ status: response.status(), body: await response.text() });
          } catch {
            // A connection reset by Portico's own server would be a failure too: count it.
            seen.push({ status: 0, body: 'connection failed' });
          }
        }
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    pgctl('restart', '-m', 'fast');
    await new Promise((resolve) => setTimeout(resolve, 500));
    outage = false;
    await load;

    // Portico did not exit, and recovers without being restarted.
    expect(portico.process.exitCode).toBeNull();
    await expect.poll(healthy, { timeout: 30_000 }).toEqual([401, 200, 400]);

    // Every answer during the outage was clean: an expected status or a 5xx without internals; never a reset.
    expect(seen.length).toBeGreaterThan(10);
    expect(seen.filter((answer) => answer.status === 0)).toEqual([]);
    for (const answer of seen) {
      expect(answer.body, `${answer.status}: ${answer.body.slice(0, 300)}`).not.toMatch(INTERNALS);
      if (answer.status >= 500) expect([500, 503]).toContain(answer.status);
    }
    expect(portico.output()).toContain('Portico is running at');
  } finally {
    portico.process.kill('SIGTERM');
    await portico.exited;
    try {
      pgctl('stop', '-m', 'immediate');
    } finally {
      rmSync(cluster, { recursive: true, force: true });
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
});
