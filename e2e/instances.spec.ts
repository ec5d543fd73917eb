// Several instances on one PostgreSQL: two Portico processes behind one issuer, as behind a load balancer. Keys are
// the same on both; a person signs in at A, the code is exchanged at B and the refresh happens at A; a confirmation
// token and a decision nonce are consumed once across both; the approval queue limit holds under 300 concurrent
// requests spread over both; a client changed through A is seen by B's next request (read caches invalidated by
// pg_notify); and neither process writes a token to its output. (The registration limits across
// processes are in registration-limits.spec.ts.) The embedded database belongs to one process: PostgreSQL only.
import { confirmInPortico } from './support/confirmation';
import { expect, test } from './support/test';
import * as oidc from 'openid-client';
import { env } from '../lib/env';
import { DEMO } from './support/constants';
import { accessTokenThroughConsent } from './support/mcp-oauth';
import { createStorage, startPortico, type PorticoStorage, type RunningPortico } from './support/portico-process';
import { demoRelyingParty, signInForCallback } from './support/relying-party';

const [PORT_A, PORT_B] = [3217, 3218] as const;
const ISSUER = `http://localhost:${PORT_A}`;
const at = (port: number, path: string) => `http://127.0.0.1:${port}${path}`;

test.describe('two instances on one database', () => {
  test.skip(!env().DATABASE_URL, 'several processes share PostgreSQL; the embedded database belongs to one process');

  let storage: PorticoStorage;
  const running: RunningPortico[] = [];

  test.beforeAll(async () => {
    storage = await createStorage('portico-instances');
    // One public issuer for both, as behind a load balancer; B listens on a port of its own. apps.list is raised to
    // approval_required (an override may only raise) so that a harmless tool needs a confirmation token.
    const shared = { PORTICO_ISSUER: ISSUER, PORTICO_RISK_OVERRIDES: 'apps.list=approval_required' };
    running.push(await startPortico(PORT_A, storage, shared));
    running.push(await startPortico(PORT_B, storage, { ...shared, PORTICO_PORT: String(PORT_B) }));
  });
  test.afterAll(async () => {
    for (const instance of running) {
      instance.process.kill('SIGTERM');
      await instance.exited;
    }
    await storage?.dispose();
  });

  test('same keys; sign in at A, code at B, refresh at A; one-time proofs are spent once; the queue limit holds; no token in any output', async ({ page, request }) => {
    test.setTimeout(180_000);
    const secrets: string[] = [];

    // Keys: both publish the same JWKS (they live in the database, encrypted with the shared secret key).
    const jwks = await Promise.all([PORT_A, PORT_B].map(async (port) => (await request.get(at(port, '/oidc/jwks'))).json()));
    expect(jwks[0]).toEqual(jwks[1]);
    expect((jwks[0] as { keys: unknown[] }).keys.length).toBeGreaterThan(0);

    // Sign in at A, exchange the code at B, refresh at A, read userinfo at B.
    const configA = await demoRelyingParty(ISSUER);
    const metadata = JSON.parse(JSON.stringify(configA.serverMetadata())) as oidc.ServerMetadata;
    const configB = new oidc.Configuration({ ...metadata, token_endpoint: at(PORT_B, '/oidc/token'), userinfo_endpoint: at(PORT_B, '/oidc/me') }, DEMO.clientId, undefined, oidc.ClientSecretBasic(DEMO.clientSecret));
    oidc.allowInsecureRequests(configB);
    const { callbackUrl, checks } = await signInForCallback(page, configA, undefined, 'openid email offline_access', { prompt: 'consent' });
    secrets.push(callbackUrl.searchParams.get('code')!);
    const tokens = await oidc.authorizationCodeGrant(configB, callbackUrl, checks);
    expect(tokens.claims()?.iss).toBe(ISSUER);
    const refreshed = await oidc.refreshTokenGrant(configA, tokens.refresh_token!);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect((await oidc.fetchUserInfo(configB, refreshed.access_token, tokens.claims()!.sub)).email).toBe(DEMO.email);
    secrets.push(tokens.access_token, tokens.refresh_token!, tokens.id_token!, refreshed.access_token, refreshed.refresh_token!);

    // Portico's own API, as the demo owner (signing in again: a new browser session).
    await page.context().clearCookies();
    const token = await accessTokenThroughConsent(page, ISSUER, { resource: `${ISSUER}/api/mcp`, scope: 'mcp', person: { email: DEMO.email, password: DEMO.password } });
    secrets.push(token);
    const tool = (port: number, name: string, args: Record<string, unknown>) =>
      request.post(at(port, `/api/tools/${name}`), { headers: { Authorization: `Bearer ${token}` }, data: args, failOnStatusCode: false });

    // A confirmation token is consumed once: the person confirms it in Portico, then six retries at once,
    // alternating instances, one runs.
    const challenge = await (await tool(PORT_A, 'apps.list', { org: 'demo' })).json();
    expect(challenge.status).toBe('confirmation_required');
    secrets.push(challenge.confirmation_token);
    await confirmInPortico(page, challenge.confirmation_url, { email: DEMO.email, password: DEMO.password });
    const retries = await Promise.all([0, 1, 2, 3, 4, 5].map((n) => tool(n % 2 ? PORT_B : PORT_A, 'apps.list', { org: 'demo', _confirmation_token: challenge.confirmation_token })));
    const ran = await Promise.all(retries.map(async (response) => (await response.json()).status));
    expect(ran.filter((status) => status === 'ok')).toHaveLength(1);
    const demoApp = (((await retries[ran.indexOf('ok')]!.json()).result as { apps: { slug: string }[] }).apps[0]!).slug;

    // A decision nonce is consumed once: the operator signs in to the central at A, asks for a nonce, and posts the
    // same decision to both instances at once.
    const ask = async (port: number, resource: string) => (await (await tool(port, 'permissions.request_sensitive_access', { org: 'demo', app: demoApp, resource, profile: 'read', duration_seconds: 600, reason: 'instances' })).json()).result as Record<string, string>;
    const asked = await ask(PORT_B, '/instances/nonce');
    const signIn = await request.post(at(PORT_A, '/central/session'), { headers: { Origin: ISSUER }, form: { email: DEMO.email, password: DEMO.password }, maxRedirects: 0 });
    const centralCookie = /portico_central=([^;]+)/.exec(signIn.headers()['set-cookie'] ?? '')![1]!;
    secrets.push(centralCookie);
    const central = { Origin: ISSUER, Cookie: `portico_central=${centralCookie}` };
    const proof = await (await request.post(at(PORT_A, '/central/api/nonce'), { headers: central, data: { request_id: asked.request_id } })).json();
    secrets.push(proof.nonce);
    const decide = (port: number) => request.post(at(port, '/central/api/decisions'), { headers: central, data: { request_id: asked.request_id, fingerprint: proof.fingerprint, nonce: proof.nonce, decision: 'approve', confirmed: true }, failOnStatusCode: false });
    const decisions = await Promise.all([decide(PORT_A), decide(PORT_B), decide(PORT_A), decide(PORT_B)]);
    expect(decisions.map((response) => response.status()).filter((status) => status === 200)).toHaveLength(1);
    expect(decisions.map((response) => response.status()).filter((status) => status === 409)).toHaveLength(3);

    // The queue limit (64 pending a subject) under 300 concurrent requests over both instances.
    const flood = await Promise.all(Array.from({ length: 300 }, (_, n) => tool(n % 2 ? PORT_B : PORT_A, 'permissions.request_sensitive_access', { org: 'demo', app: demoApp, resource: `/instances/flood/${n}`, profile: 'read', duration_seconds: 600, reason: 'flood' })));
    const statuses = await Promise.all(flood.map(async (response) => ({ http: response.status(), body: await response.json() })));
    expect(statuses.filter((answer) => answer.http >= 500)).toEqual([]);
    expect(statuses.filter((answer) => answer.body.status === 'ok')).toHaveLength(64);
    // Every refusal is the queue's; any other answer is shown whole (one CI run saw one, on a slow machine).
    const otherRefusals = statuses.filter((answer) => answer.body.status === 'error' && !/pending requests/i.test(String(answer.body.error)));
    // A system error's code is in the instances' logs (the caller reads only "an internal error").
    const systemErrors = running.flatMap((instance) => instance.output().split('\n').filter((line) => / failed: system error /.test(line)));
    expect(otherRefusals, `${JSON.stringify(otherRefusals.slice(0, 5))}\n${systemErrors.slice(0, 5).join('\n')}`).toEqual([]);

    // A changes a client, B's next request sees it. B holds the demo client in its read cache (it just served a
    // refresh); the client's secret is rotated through A; B's very next refresh, authenticated with the new secret
    // (which B has never read), succeeds: A's commit reached B's cache by pg_notify.
    const warm = await oidc.refreshTokenGrant(configB, refreshed.refresh_token!);
    const rotate = (extra: Record<string, unknown>) => tool(PORT_A, 'clients.rotate_secret', { org: 'demo', app: demoApp, overlap_hours: 1, ...extra });
    const rotation = await (await rotate({})).json();
    expect(rotation.status).toBe('confirmation_required');
    await confirmInPortico(page, rotation.confirmation_url, { email: DEMO.email, password: DEMO.password });
    const rotated = await (await rotate({ _confirmation_token: rotation.confirmation_token })).json();
    expect(rotated.status).toBe('ok');
    const newSecret = (rotated.result as { client_secret: string }).client_secret;
    secrets.push(warm.access_token, warm.refresh_token!, rotation.confirmation_token, newSecret);
    const configBWithNewSecret = new oidc.Configuration(configB.serverMetadata(), DEMO.clientId, undefined, oidc.ClientSecretBasic(newSecret));
    oidc.allowInsecureRequests(configBWithNewSecret);
    const afterRotation = await oidc.refreshTokenGrant(configBWithNewSecret, warm.refresh_token!);
    expect(afterRotation.access_token).toBeTruthy();
    secrets.push(afterRotation.access_token, afterRotation.refresh_token!);

    // Nothing secret in either process's output.
    for (const instance of running) for (const secret of secrets) expect(instance.output().includes(secret)).toBe(false);
  });
});
