// npm run soak [-- --minutes 10 --concurrency 8]: mixed traffic against two Portico processes on one PostgreSQL
// (one process on the embedded database), printing every 30 s the requests, the errors (must stay 0) and each
// process's resident memory (must stay bounded). Not part of CI: it runs for ten minutes by default.
//
// Traffic: refresh grants (each worker its own grant), userinfo, discovery and JWKS, dynamic registrations, Portico's
// tools over REST, and approval requests that the operator then decides in the central. Sign-ins go through the real
// sign-in and consent screens in Debian's Chromium, as in the e2e tests.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium, type Browser } from '@playwright/test';
import * as oidc from 'openid-client';
import { DEMO } from '../e2e/support/constants';
import { accessTokenThroughConsent } from '../e2e/support/mcp-oauth';
import { startPortico, type RunningPortico } from '../e2e/support/portico-process';
import { demoRelyingParty, signInForCallback } from '../e2e/support/relying-party';
import { envOrExit } from '../lib/env';
import { createScratchPostgres, dropScratchPostgres } from '../test/support/databases';

const { values } = parseArgs({ options: { minutes: { type: 'string', default: '10' }, concurrency: { type: 'string', default: '8' } } });
const minutes = Number(values.minutes);
const concurrency = Number(values.concurrency);
if (!(minutes > 0) || !(concurrency >= 1)) {
  console.error('usage: npm run soak -- [--minutes 10] [--concurrency 8]');
  process.exit(2);
}
const env = envOrExit();
if (!existsSync(path.join(process.cwd(), '.next', 'BUILD_ID'))) {
  console.error('Build Portico first: NODE_ENV=production npx next build');
  process.exit(1);
}

const PORTS = env.DATABASE_URL ? [3220, 3221] : [3220];
const ISSUER = `http://localhost:${PORTS[0]}`;
const at = (index: number, pathname: string) => `http://127.0.0.1:${PORTS[index % PORTS.length]}${pathname}`;

const baseUrl = env.DATABASE_URL;
const databaseUrl = baseUrl ? await createScratchPostgres(baseUrl, 'portico_soak') : undefined;
const storage = { dataDir: mkdtempSync(path.join(tmpdir(), 'portico-soak-')), databaseUrl, dispose: async () => {} };
const shared = { PORTICO_ISSUER: ISSUER, PORTICO_DCR_PER_IP_PER_HOUR: '100000', PORTICO_DCR_GLOBAL_PER_HOUR: '10000000' };
const instances: RunningPortico[] = [];
let browser: Browser | undefined;

function rssMegabytes(pid: number | undefined): number {
  if (!pid) return 0;
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

const counts = { requests: 0, errors: 0 };
const errorSamples = new Map<string, number>();
function failed(what: string) {
  counts.errors += 1;
  errorSamples.set(what, (errorSamples.get(what) ?? 0) + 1);
}
/** One request; an answer other than the expected statuses (or none) is an error. */
async function call(what: string, url: string, init: RequestInit, expected: number[]): Promise<Response | undefined> {
  counts.requests += 1;
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(15_000) });
    if (!expected.includes(response.status)) {
      failed(`${what}: HTTP ${response.status} ${(await response.text()).slice(0, 120)}`);
      return undefined;
    }
    return response;
  } catch (error) {
    failed(`${what}: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}

try {
  for (const port of PORTS) instances.push(await startPortico(port, storage, { ...shared, PORTICO_PORT: String(port) }));
  browser = await chromium.launch({ executablePath: env.CHROMIUM_PATH, args: ['--no-sandbox', '--disable-gpu'] });
  const page = await browser.newPage();

  // One refresh token chain a worker, and a Portico API token (re-acquired before it expires).
  const config = await demoRelyingParty(ISSUER);
  const refreshTokens: string[] = [];
  for (let worker = 0; worker < concurrency; worker += 1) {
    await page.context().clearCookies();
    const { callbackUrl, checks } = await signInForCallback(page, config, undefined, 'openid email offline_access', { prompt: 'consent' });
    refreshTokens.push((await oidc.authorizationCodeGrant(config, callbackUrl, checks)).refresh_token!);
  }
  let apiToken = '';
  let apiTokenAt = 0;
  async function porticoToken(): Promise<string> {
    if (Date.now() - apiTokenAt > 8 * 60_000) {
      await page.context().clearCookies();
      apiToken = await accessTokenThroughConsent(page, ISSUER, { resource: `${ISSUER}/api/mcp`, scope: 'mcp', person: { email: DEMO.email, password: DEMO.password } });
      apiTokenAt = Date.now();
    }
    return apiToken;
  }
  await porticoToken();
  const signIn = await fetch(at(0, '/central/session'), { method: 'POST', headers: { Origin: ISSUER }, body: new URLSearchParams({ email: DEMO.email, password: DEMO.password }), redirect: 'manual' });
  let centralCookie = /portico_central=([^;]+)/.exec(signIn.headers.get('set-cookie') ?? '')?.[1] ?? '';
  const demoApp = ((await (await fetch(at(0, '/api/tools/apps.list'), { method: 'POST', headers: { Authorization: `Bearer ${apiToken}` }, body: JSON.stringify({ org: 'demo' }) })).json()) as { result: { apps: { slug: string }[] } }).result.apps[0]!.slug;

  const basic = `Basic ${Buffer.from(`${DEMO.clientId}:${DEMO.clientSecret}`).toString('base64')}`;
  const steps: ((worker: number, n: number) => Promise<void>)[] = [
    async (worker, n) => {
      const response = await call('refresh grant', at(n, '/oidc/token'), { method: 'POST', headers: { Authorization: basic }, body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshTokens[worker]! }) }, [200]);
      if (!response) return;
      const tokens = (await response.json()) as { refresh_token: string; access_token: string };
      refreshTokens[worker] = tokens.refresh_token;
      await call('userinfo', at(n + 1, '/oidc/me'), { headers: { Authorization: `Bearer ${tokens.access_token}` } }, [200]);
    },
    async (_worker, n) => {
      await call('discovery', at(n, '/.well-known/openid-configuration'), {}, [200]);
      await call('jwks', at(n + 1, '/oidc/jwks'), {}, [200]);
    },
    async (worker, n) => {
      await call('registration', at(n, '/oauth/register'), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ client_name: `soak ${worker}-${n}`, redirect_uris: ['http://127.0.0.1:40001/callback'] }) }, [201]);
    },
    async (_worker, n) => {
      const token = await porticoToken();
      await call('tool whoami', at(n, '/api/tools/whoami'), { method: 'POST', headers: { Authorization: `Bearer ${token}` }, body: '{}' }, [200]);
      await call('tool apps.list', at(n + 1, '/api/tools/apps.list'), { method: 'POST', headers: { Authorization: `Bearer ${token}` }, body: JSON.stringify({ org: 'demo' }) }, [200]);
    },
    async (worker, n) => {
      const token = await porticoToken();
      const asked = await call('approval request', at(n, '/api/tools/permissions.request_sensitive_access'), { method: 'POST', headers: { Authorization: `Bearer ${token}` }, body: JSON.stringify({ org: 'demo', app: demoApp, resource: `/soak/${worker}/${n}`, profile: 'read', duration_seconds: 600, reason: 'soak' }) }, [200]);
      if (!asked) return;
      const requestId = ((await asked.json()) as { result: { request_id: string } }).result.request_id;
      const central = { Origin: ISSUER, Cookie: `portico_central=${centralCookie}`, 'Content-Type': 'application/json' };
      let nonce = await call('decision nonce', at(n + 1, '/central/api/nonce'), { method: 'POST', headers: central, body: JSON.stringify({ request_id: requestId }) }, [200, 401]);
      if (nonce?.status === 401) {
        // The central session lasts 15 minutes: sign in again.
        const again = await fetch(at(0, '/central/session'), { method: 'POST', headers: { Origin: ISSUER }, body: new URLSearchParams({ email: DEMO.email, password: DEMO.password }), redirect: 'manual' });
        centralCookie = /portico_central=([^;]+)/.exec(again.headers.get('set-cookie') ?? '')?.[1] ?? '';
        nonce = await call('decision nonce', at(n + 1, '/central/api/nonce'), { method: 'POST', headers: { ...central, Cookie: `portico_central=${centralCookie}` }, body: JSON.stringify({ request_id: requestId }) }, [200]);
      }
      if (!nonce) return;
      const proof = (await nonce.json()) as { nonce: string; fingerprint: string };
      await call('decision', at(n, '/central/api/decisions'), { method: 'POST', headers: { ...central, Cookie: `portico_central=${centralCookie}` }, body: JSON.stringify({ request_id: requestId, fingerprint: proof.fingerprint, nonce: proof.nonce, decision: n % 2 ? 'approve' : 'deny', confirmed: true }) }, [200]);
    },
  ];

  const started = Date.now();
  const deadline = started + minutes * 60_000;
  console.log(`Soak: ${minutes} min, ${concurrency} workers, ${PORTS.length} instance(s) on ${databaseUrl ? 'PostgreSQL' : 'the embedded database'}.`);
  console.log('elapsed  requests  req/s  errors  ' + PORTS.map((port) => `rss:${port} (MB)`).join('  '));
  let lastRequests = 0;
  const report = () => {
    const elapsed = Math.round((Date.now() - started) / 1000);
    const rate = Math.round((counts.requests - lastRequests) / 30);
    lastRequests = counts.requests;
    console.log(`${String(elapsed).padStart(6)}s  ${String(counts.requests).padStart(8)}  ${String(rate).padStart(5)}  ${String(counts.errors).padStart(6)}  ${instances.map((instance) => String(rssMegabytes(instance.process.pid)).padStart(13)).join('  ')}`);
  };
  const timer = setInterval(report, 30_000);
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      for (let n = worker; Date.now() < deadline; n += 1) await steps[n % steps.length]!(worker, n);
    }),
  );
  clearInterval(timer);
  report();
  for (const [what, times] of errorSamples) console.log(`error x${times}: ${what}`);
  console.log(counts.errors === 0 ? 'Soak passed: no errors.' : `Soak FAILED: ${counts.errors} errors.`);
  process.exitCode = counts.errors === 0 ? 0 : 1;
} finally {
  await browser?.close();
  for (const instance of instances) {
    instance.process.kill('SIGTERM');
    await instance.exited;
  }
  if (baseUrl && databaseUrl) await dropScratchPostgres(baseUrl, databaseUrl);
}
