// Auth.js itself (@auth/express 0.12, on @auth/core and oauth4webapi) as a relying party of the in-process Portico,
// driven over HTTP as a browser drives it (issue 54: "Auth.js's default profile has email and name").
//
// The provider is configured as Auth.js's docs say for a generic OpenID Connect provider — id, name, type "oidc",
// issuer, client id and secret, nothing more — so Auth.js reads Portico's discovery document, sends PKCE (its default
// checks: PKCE only, no state or nonce), and builds the person from the ID token's claims with its default profile()
// (name, email, picture). The session is its default one (an encrypted JWT cookie), read back from /auth/session.
// Before issue 54 the ID token carried only sub/acr/amr (oidc-provider's conformIdTokenClaims), so such a session had
// no email or name. (The ID token's algorithm does not matter to Auth.js: oauth4webapi accepts any alg the discovery
// document lists in id_token_signing_alg_values_supported, ES256 as well as RS256.)
//
// Auth.js sends its discovery, token and userinfo requests with oauth4webapi's allowInsecureRequests set (it does so
// for every issuer), so the harness's http://127.0.0.1 issuer needs no escape hatch here. The ExpressAuth handler is
// mounted at "/auth": the docs' "/auth/*" is Express 4 path syntax, which Express 5 refuses.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { ExpressAuth } from '@auth/express';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../lib/organizations/organizations';
import { createApp } from '../../lib/clients/apps';
import { completePasswordSignIn } from '../../lib/oidc/password-sign-in';
import { CookieJar, TEST_PASSWORD, createMember, useProviderHarness } from '../support/provider-harness';

describe('Auth.js as a relying party', () => {
  const suite = useProviderHarness();
  const rp = {} as { server: Server; base: string; clientId: string; orgId: string };

  beforeAll(async () => {
    // The port first: the app's redirect URI is Auth.js's callback URL on it.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const org = await createOrganization(suite.database.db, { slug: `authjs-${randomBytes(3).toString('hex')}`, name: 'Auth.js' });
    const app = await createApp(suite.database.db, { orgId: org.id, slug: 'authjs', name: 'Auth.js App', publishOrigin: base, redirectUris: [`${base}/auth/callback/portico`] });
    const web = express();
    web.set('trust proxy', true);
    web.use(
      '/auth',
      ExpressAuth({
        providers: [{ id: 'portico', name: 'Portico', type: 'oidc', issuer: suite.harness.issuer, clientId: app.clientId, clientSecret: app.clientSecret }],
        secret: randomBytes(32).toString('hex'),
        trustHost: true,
      }),
    );
    server.on('request', web);
    Object.assign(rp, { server, base, clientId: app.clientId, orgId: org.id });
  });

  afterAll(async () => {
    if (!rp.server) return;
    rp.server.closeAllConnections();
    await new Promise((resolve) => rp.server.close(resolve));
  });

  it("signs a person in with its defaults: the session's user has the person's email and name from the ID token", async () => {
    const email = `ada-${randomBytes(4).toString('hex')}@example.com`;
    const person = await createMember(suite.database, rp.orgId, email);
    // One jar, as a browser has for 127.0.0.1 whatever the port.
    const jar = new CookieJar();
    const get = async (url: string | URL) => {
      const response = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header() } });
      jar.store(response);
      return response;
    };

    // Auth.js's sign-in form: its CSRF token (double-submit cookie), then POST /auth/signin/portico.
    const csrf = await get(`${rp.base}/auth/csrf`);
    const { csrfToken } = (await csrf.json()) as { csrfToken: string };
    const posted = await fetch(`${rp.base}/auth/signin/portico`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrfToken, callbackUrl: `${rp.base}/` }),
    });
    jar.store(posted);
    expect(posted.status).toBe(302);
    const authorization = new URL(posted.headers.get('location') ?? '');
    expect(authorization.origin + authorization.pathname).toBe(`${suite.harness.issuer}/oidc/auth`);
    expect(Object.fromEntries(authorization.searchParams)).toMatchObject({
      client_id: rp.clientId,
      redirect_uri: `${rp.base}/auth/callback/portico`,
      response_type: 'code',
      scope: 'openid profile email',
      code_challenge_method: 'S256',
    });

    // Portico: the sign-in card (its form's domain function), then the provider resumes and redirects to Auth.js.
    const start = await get(authorization);
    const uid = /^\/auth\/app\/([A-Za-z0-9_-]+)$/.exec(start.headers.get('location') ?? '')?.[1];
    expect(uid, `${start.status} ${start.headers.get('location')}`).toBeTruthy();
    const outcome = await completePasswordSignIn({
      provider: suite.harness.provider,
      db: suite.database.db,
      cookieHeader: jar.header(),
      uid: uid!,
      credential: { kind: 'password', email, password: TEST_PASSWORD },
      issuer: suite.harness.issuer,
      clientIp: '192.0.2.1',
    });
    expect(outcome.kind).toBe('continue');
    if (outcome.kind !== 'continue') return;
    const resumed = await get(outcome.location);
    const callback = new URL(resumed.headers.get('location') ?? '', suite.harness.issuer);
    expect(callback.origin + callback.pathname).toBe(`${rp.base}/auth/callback/portico`);
    expect(callback.searchParams.get('code')).toBeTruthy();

    // Auth.js's callback: code exchange with PKCE, ID token validation, the session cookie, then back to callbackUrl.
    const finished = await get(callback);
    expect(finished.status, await finished.clone().text()).toBe(302);
    expect(finished.headers.get('location')).toBe(`${rp.base}/`);

    const session = (await (await get(`${rp.base}/auth/session`)).json()) as { user?: { email?: string; name?: string } } | null;
    expect(session?.user).toMatchObject({ email: person.email, name: person.name });
    expect(person.name).toBeTruthy();
  });
});
