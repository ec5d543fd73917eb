// The device authorization grant (RFC 8628) with openid-client's own device functions as the headless client. The
// person's side goes through the verification page's forms over HTTP, then the sign-in and consent functions the
// sign-in card's forms call; e2e/device-flow.spec.ts drives the same pages in Chromium.
import { createHmac, randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../../lib/organizations/agents';
import type { User } from '../../lib/accounts/users';
import { registerClient, validateRegistration, type ValidRegistration } from '../../lib/clients/registration';
import { DEVICE_CODE_ENTRIES_PER_NETWORK } from '../../lib/oidc/device-flow';
import { hashStoredId, referenceTo } from '../../lib/oidc/stored-ids';
import { approveDeviceCode, CookieJar, createMember, createOrgWithApp, enterDeviceCode, useProviderHarness, type AppFixture } from '../support/provider-harness';

const atRestKey = randomBytes(32);
const suite = useProviderHarness({ pollIntervalSeconds: 1, atRestKey });
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

let app: AppFixture;
let person: User;
let clientId: string;
let config: oidc.Configuration;

const enterCode = (jar: CookieJar, userCode: string, headers: Record<string, string> = {}, postPath = '/oidc/device') => enterDeviceCode(suite.harness, jar, userCode, headers, postPath);
const approveDevice = (jar: CookieJar, confirmationHtml: string, email: string, actor = 'self') => approveDeviceCode(suite.harness, suite.database, jar, confirmationHtml, email, actor);

describe('device authorization grant', () => {
  beforeAll(async () => {
    app = await createOrgWithApp(suite.database, 'Console Tool');
    person = await createMember(suite.database, app.orgId, `cli-${randomBytes(4).toString('hex')}@example.com`);
    const registration = validateRegistration({ client_name: 'Headless MCP client', grant_types: [DEVICE_GRANT, 'refresh_token'] }) as ValidRegistration;
    clientId = String((await registerClient(suite.database.db, registration, '192.0.2.1')).client_id);
    config = new oidc.Configuration(
      { issuer: suite.harness.issuer, device_authorization_endpoint: `${suite.harness.issuer}/oidc/device/auth`, token_endpoint: `${suite.harness.issuer}/oidc/token` },
      clientId,
      undefined,
      oidc.None(),
    );
    oidc.allowInsecureRequests(config);
  });

  it('registration accepts a device-only client: no redirect URIs, no response types, a native application', () => {
    expect(validateRegistration({ grant_types: [DEVICE_GRANT] })).toMatchObject({ redirectUris: [], grantTypes: [DEVICE_GRANT], metadata: { application_type: 'native' } });
    // RFC 7591 §3.2.1: what the device grant never uses is not registered (test/oidc/mcp-remote-device.test.ts).
    expect(validateRegistration({ grant_types: [DEVICE_GRANT], redirect_uris: ['https://x.example/cb'], response_types: ['code'] })).toMatchObject({ redirectUris: [], grantTypes: [DEVICE_GRANT] });
    expect(validateRegistration({ grant_types: ['refresh_token'] })).toMatchObject({ error: 'invalid_client_metadata' });
    expect(validateRegistration({ grant_types: ['client_credentials'], redirect_uris: ['https://x.example/cb'] })).toMatchObject({ error: 'invalid_client_metadata' });
  });

  it('signs a person in through the verification page: the token is bound to the app, with the agent as `act`', async () => {
    const agent = await createAgent(suite.database.db, { orgId: app.orgId, ownerUserId: person.id, name: 'Nightly builder' });
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'mcp offline_access', resource: app.resource });
    expect(started.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(started.verification_uri).toBe(`${suite.harness.issuer}/oidc/device`);
    expect(started.expires_in).toBe(600);
    expect(started.interval).toBe(1);

    const jar = new CookieJar();
    // The code is accepted in lower case and without its dash, as people type it.
    const entered = await enterCode(jar, started.user_code.toLowerCase().replace('-', ''));
    expect(entered.status).toBe(200);
    expect(entered.html).toContain('Headless MCP client');
    expect(entered.html).toContain(`For ${app.app.name}`);
    expect(entered.html).toContain(started.user_code);

    const polled = oidc.pollDeviceAuthorizationGrant(config, started);
    const done = await approveDevice(jar, entered.html, person.email, agent.id);
    expect(done).toContain('Device connected');
    // The person's side names the device code by a reference to its stored hash (its value is not stored): a
    // reference is never a device code at the token endpoint, even one this installation made.
    const reference = referenceTo(hashStoredId(started.device_code), createHmac('sha256', atRestKey).update('portico adapter references').digest());
    const stolen = await fetch(`${suite.harness.issuer}/oidc/token`, { method: 'POST', body: new URLSearchParams({ client_id: clientId, grant_type: DEVICE_GRANT, device_code: reference }) });
    expect(await stolen.json()).toMatchObject({ error: 'invalid_grant' });
    const tokens = await polled;
    const claims = decodeJwt(tokens.access_token);
    expect(claims).toMatchObject({ sub: person.id, aud: app.app.identity, client_id: clientId, act: { sub: agent.id } });
    expect(tokens.refresh_token).toEqual(expect.any(String));
    // The refresh keeps the binding.
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(decodeJwt(refreshed.access_token)).toMatchObject({ aud: app.app.identity, act: { sub: agent.id } });
  });

  it('a client that did not register the device grant is refused: unauthorized_client', async () => {
    const codeOnly = validateRegistration({ redirect_uris: ['http://127.0.0.1:7777/cb'] }) as ValidRegistration;
    const other = String((await registerClient(suite.database.db, codeOnly, '192.0.2.1')).client_id);
    const response = await fetch(`${suite.harness.issuer}/oidc/device/auth`, { method: 'POST', body: new URLSearchParams({ client_id: other, scope: 'mcp', resource: app.resource }) });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'unauthorized_client' });
  });

  it('polling sooner than the interval is slow_down; a code nobody confirmed stays authorization_pending', async () => {
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'mcp', resource: app.resource });
    const poll = () =>
      fetch(`${suite.harness.issuer}/oidc/token`, { method: 'POST', body: new URLSearchParams({ client_id: clientId, grant_type: DEVICE_GRANT, device_code: started.device_code }) }).then(
        async (response) => ((await response.json()) as { error?: string }).error,
      );
    expect(await poll()).toBe('authorization_pending');
    expect(await poll()).toBe('slow_down');
  });

  it('a code posted without the page’s session goes back to the page, never a 500; with another page’s xsrf, the page says so', async () => {
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'mcp', resource: app.resource });
    const bodies = [new URLSearchParams({ user_code: started.user_code }), new URLSearchParams({ xsrf: 'not-this-pages', user_code: started.user_code }), new URLSearchParams({})];
    for (const path of ['/oidc/device', '/oidc/device/', '/OIDC/Device']) {
      for (const body of bodies) {
        const posted = await fetch(`${suite.harness.issuer}${path}`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'pt-BR' }, body });
        expect([posted.status, posted.headers.get('location')], `${path} ${body.toString()}`).toEqual([303, '/oidc/device']);
      }
    }
    // Followed, as a browser does: the page in the person's language, with a form that has its session.
    const jar = new CookieJar();
    const page = await fetch(`${suite.harness.issuer}/oidc/device`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'pt-BR' }, body: bodies[0] });
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain('<html lang="pt-BR"');
    expect(html).toMatch(/name="xsrf" value="[^"]+"/);
    // A browser with a session but another page's xsrf: the page again, saying it failed — not a 500.
    const wrongXsrf = await enterCode(jar, started.user_code);
    expect(wrongXsrf.status).toBe(200);
    const stale = await fetch(`${suite.harness.issuer}/oidc/device`, { method: 'POST', redirect: 'manual', headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ xsrf: 'not-this-pages', user_code: started.user_code }) });
    expect(stale.status).toBeLessThan(500);
    expect(await stale.text()).not.toMatch(/node_modules|TypeError/);
  });

  it('a wrong code is refused on the page, and guessing is limited per network before any code is checked', async () => {
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'mcp', resource: app.resource });
    const jar = new CookieJar();
    const wrong = await enterCode(jar, 'BCDF-GHJK');
    expect(wrong.status).toBe(200);
    expect(wrong.html).toContain('That code is not valid or has expired');
    // Every spelling of the page's path the router accepts counts alike (the limit sits where codes are looked up).
    const paths = ['/oidc/device', '/oidc/device/', '/OIDC/Device'];
    const statuses: number[] = [];
    for (let attempt = 0; attempt < DEVICE_CODE_ENTRIES_PER_NETWORK.limit + 1; attempt += 1) {
      statuses.push((await enterCode(jar, 'ZZZZ-ZZZZ', {}, paths[attempt % paths.length])).status);
    }
    // Codes entered earlier in this file count too: a run of answered entries, then refusals only.
    const firstRefused = statuses.indexOf(429);
    expect(firstRefused).toBeGreaterThan(DEVICE_CODE_ENTRIES_PER_NETWORK.limit / 2);
    expect(statuses.slice(0, firstRefused).every((status) => status === 200)).toBe(true);
    expect(statuses.slice(firstRefused).every((status) => status === 429)).toBe(true);
    // Once limited, even the right code is not checked.
    const right = await enterCode(jar, started.user_code);
    expect(right.status).toBe(429);
    expect(right.html).toContain('Too many codes were tried from your network');
  });
});
