// Oversized and malformed bodies on every POST endpoint, and values no text column can hold (NUL, lone surrogates,
// invalid UTF-8) in the bodies of every POST and the queries of every GET: the route handlers found in app/ (so a new
// one is covered without editing this file), oidc-provider's endpoints from the discovery document and its device
// page. Whatever arrives, the answer is a 4xx (or the endpoint's ordinary refusal), never a 500 and never a stack
// trace; the run's secret scan reads every server's log afterwards.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from './support/test';
import { appPaths } from './support/app-paths';
import { E2E_ISSUER, E2E_PORT } from './support/constants';
import { SERVER_LOGS } from './support/secret-scan';
import { ROCKETS } from './support/fixtures';
import { accessTokenThroughConsent } from './support/mcp-oauth';

const HUGE = 'a'.repeat(3 * 1024 * 1024);
/** The fields endpoints read (OAuth, SCIM, MCP, forms), each holding `escaped` (a JSON escape) inside a value. */
const FIELDS = ['email', 'userName', 'displayName', 'name', 'password', 'client_name', 'redirect_uris', 'grant_type', 'code', 'user_code', 'login_hint', 'token', 'client_id', 'scope', 'resource', 'reason', 'method'];
const HOSTILE_JSON = (escaped: string) => JSON.stringify(Object.fromEntries(FIELDS.map((field) => [field, `a${'X'.repeat(3)}b`]))).replaceAll('XXX', escaped);
const HOSTILE_FORM = (encoded: string) => FIELDS.map((field) => `${field}=a${encoded}b`).join('&');
const INVALID_UTF8 = Buffer.concat([Buffer.from('{"email":"a'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('b","userName":"x"}')]);
/** Query strings with the same values, for every GET route handler. */
const HOSTILE_QUERIES = ['%00', '%ED%A0%80', '%FF%FE'].map((encoded) => `?filter=userName%20eq%20%22a${encoded}%22&q=a${encoded}&email=a${encoded}&state=a${encoded}&code=a${encoded}&user_code=a${encoded}`);
const STACK_TRACE = /\n\s+at .+:\d+:\d+|node_modules|TypeError|ReferenceError/;

/** This lane's server log (e2e/support/serve-lane.ts writes it to e2e-logs/), and where it ends now. */
function serverLog(): { file: string; from: number } {
  const name = readdirSync(SERVER_LOGS).find((entry) => entry.startsWith(`portico-${E2E_PORT}-`));
  if (!name) throw new Error(`no log of the server on port ${E2E_PORT} in ${SERVER_LOGS}`);
  const file = path.join(SERVER_LOGS, name);
  return { file, from: statSync(file).size };
}

test('every POST endpoint refuses a 3 MB body and malformed bodies without a 500 or a stack trace', async ({ request, page }) => {
  const log = serverLog();
  // The API routes are tried twice: without a token, and with a real one, so the body is read past authentication.
  const token = await accessTokenThroughConsent(page, E2E_ISSUER, { resource: `${E2E_ISSUER}/api/mcp`, scope: 'mcp', person: ROCKETS.member });
  const routes = appPaths('route.ts', (source) => /export (async function|const) POST\b/.test(source));
  expect(routes).toEqual(expect.arrayContaining(['/oauth/register', '/api/mcp', '/central/api/decisions', '/embedded-central/api/session', '/api/apps/surface']));
  const discovery = (await (await request.get(`${E2E_ISSUER}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
  const providerEndpoints = ['token_endpoint', 'introspection_endpoint', 'revocation_endpoint', 'registration_endpoint', 'userinfo_endpoint', 'authorization_endpoint', 'end_session_endpoint', 'pushed_authorization_request_endpoint']
    .map((name) => discovery[name])
    .filter((value): value is string => typeof value === 'string')
    .map((url) => new URL(url).pathname);
  const origin = new URL(E2E_ISSUER).origin;
  for (const pathname of [...new Set([...routes, ...providerEndpoints])]) {
    for (const [kind, body, contentType] of [
      ['3 MB JSON', `{"x":"${HUGE}"}`, 'application/json'],
      ['3 MB form', `x=${HUGE}`, 'application/x-www-form-urlencoded'],
      ['broken JSON', '{"jsonrpc": "2.0", "id": 1, "method": ', 'application/json'],
      ['JSON null', 'null', 'application/json'],
      ['binary', '\u0000\u0001\u0002\uFFFD', 'application/octet-stream'],
      // Values PostgreSQL text cannot hold or that are no characters at all, inside well-formed bodies.
      ['NUL in JSON values', HOSTILE_JSON('\\u0000'), 'application/json'],
      ['a lone surrogate in JSON values', HOSTILE_JSON('\\ud800'), 'application/json'],
      ['NUL in form values', HOSTILE_FORM('%00'), 'application/x-www-form-urlencoded'],
      ['invalid UTF-8 in form values', HOSTILE_FORM('%ED%A0%80%FF'), 'application/x-www-form-urlencoded'],
      ['invalid UTF-8 bytes', INVALID_UTF8, 'application/json'],
    ] as const) {
      for (const authorization of pathname.startsWith('/api/') ? [undefined, `Bearer ${token}`] : [undefined]) {
        const headers = { 'Content-Type': contentType, Origin: origin, Accept: 'application/json, text/event-stream', ...(authorization ? { Authorization: authorization } : {}) };
        const response = await request.post(`${E2E_ISSUER}${pathname}`, { headers, data: body, maxRedirects: 0, failOnStatusCode: false });
        const label = `${pathname} (${kind}${authorization ? ', with a token' : ''}) → ${response.status()}`;
        expect(response.status(), label).toBeLessThan(500);
        expect(await response.text(), label).not.toMatch(STACK_TRACE);
      }
    }
  }
  // Every GET route handler and the device verification page (oidc-provider's, which takes a code by POST too).
  const getRoutes = appPaths('route.ts', (source) => /export (async function|const|function) GET\b/.test(source));
  expect(getRoutes).toEqual(expect.arrayContaining(['/scim/v2/x', '/auth/federation/oidc/callback']));
  for (const pathname of [...getRoutes, '/oidc/device']) {
    for (const query of HOSTILE_QUERIES) {
      const response = await request.get(`${E2E_ISSUER}${pathname}${query}`, { maxRedirects: 0, failOnStatusCode: false });
      const label = `GET ${pathname}${query} → ${response.status()}`;
      expect(response.status(), label).toBeLessThan(500);
      expect(await response.text(), label).not.toMatch(STACK_TRACE);
    }
  }
  for (const body of [HOSTILE_FORM('%00'), HOSTILE_FORM('%ED%A0%80%FF')]) {
    const response = await request.post(`${E2E_ISSUER}/oidc/device`, { headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: origin }, data: body, maxRedirects: 0, failOnStatusCode: false });
    expect(response.status(), `POST /oidc/device → ${response.status()}`).toBeLessThan(500);
  }
  // And the server's own log of the sweep: no request answered 5xx, no stack trace written.
  await expect.poll(() => statSync(log.file).size).toBeGreaterThan(log.from);
  const written = readFileSync(log.file).subarray(log.from).toString('utf8');
  expect(written.split('\n').filter((line) => /"status":5\d\d/.test(line)), 'requests the server answered with 5xx').toEqual([]);
  expect(written, 'a stack trace in the server log').not.toMatch(STACK_TRACE);
});
