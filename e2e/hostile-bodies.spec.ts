// Oversized and malformed bodies on every POST endpoint: the route handlers found in app/ (so a new one is covered
// without editing this file) and oidc-provider's endpoints from the discovery document. Whatever arrives, the answer
// is a 4xx (or the endpoint's ordinary refusal), never a 500 and never a stack trace.
import { expect, test } from '@playwright/test';
import { appPaths } from './support/app-paths';
import { E2E_ISSUER } from './support/constants';
import { ROCKETS } from './support/fixtures';
import { accessTokenThroughConsent } from './support/mcp-oauth';

const HUGE = 'a'.repeat(3 * 1024 * 1024);
const STACK_TRACE = /\n\s+at .+:\d+:\d+|node_modules|TypeError|ReferenceError/;

test('every POST endpoint refuses a 3 MB body and malformed bodies without a 500 or a stack trace', async ({ request, page }) => {
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
});
