// Relying parties nobody here wrote, each with its own defaults, against the shared e2e server.
//
// express-openid-connect 3.4 (Auth0's Express middleware, on openid-client 6): the app is configured as its README says
// for the authorization code flow (issuer, base URL, client id and secret, response_type "code", idpLogout to end the
// Portico session too) and nothing else, so it expects RS256 ID tokens (its `idTokenSigningAlg` default), reads the
// person from the ID token (`req.oidc.user`), and sends its base URL, without a path, as the post-logout redirect URI.
// Each of those failed before issue 54: ES256 ID tokens ("400 invalid response encountered" at its callback), profile
// claims only in userinfo (no email or name), and a base URL Portico refused to register.
//
// passport-openidconnect 0.1 (Jared Hanson's strategy for Passport, on the `oauth` package): no PKCE at all, its
// client secret in the token request's body, and a nonce when told (`nonce: true`). An app whose admin allowed
// "relying parties that send a nonce but no PKCE" signs its people in; an app that did not (the default) refuses the
// request with invalid_request, which the strategy reports.
//
// oidc-client-ts 3.5 (the browser library most single-page apps use) in Chromium, at a single-page app: a public
// client with no secret, PKCE, the code exchanged and the refresh done by the browser across origins (CORS), the
// refresh token rotating.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { expect, test } from './support/test';
import express, { type ErrorRequestHandler } from 'express';
import { auth } from 'express-openid-connect';
import session from 'express-session';
import passport from 'passport';
import { Strategy as OpenIdConnectStrategy, type Profile, type VerifyCallback } from 'passport-openidconnect';
import { decodeProtectedHeader } from 'jose';
import { expectAccessible } from './support/accessibility';
import { E2E_ISSUER } from './support/constants';
import { RELYING_PARTIES } from './support/fixtures';
import { fillSignIn } from './support/relying-party';

const RP = RELYING_PARTIES.expressOidc;
const PERSON = RELYING_PARTIES.person;

const servers: Server[] = [];

function listen(app: express.Express, port: number): Promise<Server> {
  return new Promise<Server>((resolve) => {
    const listening = app.listen(port, '127.0.0.1', () => {
      servers.push(listening);
      resolve(listening);
    });
  });
}

/** A Passport app with passport-openidconnect configured as its README says, plus `nonce: true`. */
async function startPassportRp(rp: { port: number; baseUrl: string; redirectUri: string; clientId: string; clientSecret: string }): Promise<void> {
  const app = express();
  const authenticator = new passport.Passport();
  authenticator.use(
    new OpenIdConnectStrategy(
      {
        issuer: E2E_ISSUER,
        authorizationURL: `${E2E_ISSUER}/oidc/auth`,
        tokenURL: `${E2E_ISSUER}/oidc/token`,
        userInfoURL: `${E2E_ISSUER}/oidc/me`,
        clientID: rp.clientId,
        clientSecret: rp.clientSecret,
        callbackURL: rp.redirectUri,
        scope: ['profile', 'email'],
        nonce: 'true',
      },
      (_issuer: string, profile: Profile, done: VerifyCallback) => done(null, { id: profile.id, name: profile.displayName, email: profile.emails?.[0]?.value }),
    ),
  );
  authenticator.serializeUser((user, done) => done(null, user));
  authenticator.deserializeUser((user: Express.User, done) => done(null, user));
  app.use(session({ secret: 'a-long-random-session-secret-for-this-test', resave: false, saveUninitialized: false }));
  app.use(authenticator.initialize());
  app.use(authenticator.session());
  app.get('/login', authenticator.authenticate('openidconnect'));
  app.get('/callback', authenticator.authenticate('openidconnect', { failureRedirect: '/failed', failureMessage: true }), (_req, res) => res.redirect('/'));
  app.get('/', (req, res) => res.json({ user: req.user ?? null }));
  app.get('/failed', (_req, res) => res.status(401).json({ failed: true }));
  // What the strategy reports when the provider answered with an error (an AuthorizationError with its code).
  const reportError: ErrorRequestHandler = (error: { code?: string; message?: string }, _req, res, _next) => {
    res.status(400).json({ error: error.code ?? 'unknown', description: error.message ?? '' });
  };
  app.use(reportError);
  await listen(app, rp.port);
}

test.beforeAll(async () => {
  const app = express();
  app.use(
    auth({
      issuerBaseURL: E2E_ISSUER,
      baseURL: RP.baseUrl,
      clientID: RP.clientId,
      clientSecret: RP.clientSecret,
      secret: 'a-long-random-cookie-secret-for-this-test-only',
      authRequired: false,
      idpLogout: true,
      authorizationParams: { response_type: 'code' },
    }),
  );
  // What the app knows of the person: exactly what the library gives it.
  app.get('/', (req, res) => {
    res.json({ authenticated: req.oidc.isAuthenticated(), user: req.oidc.user ?? null, idTokenAlg: req.oidc.idToken ? decodeProtectedHeader(req.oidc.idToken).alg : null });
  });
  const server = await listen(app, RP.port);
  expect((server.address() as AddressInfo).port).toBe(RP.port);
  await startPassportRp(RELYING_PARTIES.passport.allowing);
  await startPassportRp(RELYING_PARTIES.passport.strict);
  await startSpa();
});

/** The single-page app: two static pages and oidc-client-ts's own browser build, configured as its README says. */
async function startSpa(): Promise<void> {
  const spa = RELYING_PARTIES.spa;
  // Its browser build (the package's exports name only the module builds, so it is read from the package folder).
  const library = readFileSync(new URL('../node_modules/oidc-client-ts/dist/browser/oidc-client-ts.min.js', import.meta.url), 'utf8');
  const settings = JSON.stringify({ authority: E2E_ISSUER, client_id: spa.clientId, redirect_uri: spa.redirectUri, scope: 'openid profile email offline_access', prompt: 'consent' });
  const page = (script: string) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${spa.appName}</title><script src="/oidc-client-ts.min.js"></script></head><body><main><h1>${spa.appName}</h1><button id="sign-in">Sign in</button><button id="refresh">Refresh</button><pre id="state"></pre></main><script>
const manager = new oidc.UserManager(${settings});
const show = async () => {
  const user = await manager.getUser();
  document.getElementById('state').textContent = JSON.stringify(user ? { email: user.profile.email, name: user.profile.name, accessToken: user.access_token, refreshToken: user.refresh_token } : null);
};
document.getElementById('sign-in').onclick = () => manager.signinRedirect();
document.getElementById('refresh').onclick = () => manager.signinSilent().then(show, (error) => { document.getElementById('state').textContent = 'error: ' + error.message; });
${script}
</script></body></html>`;
  const app = express();
  app.get('/oidc-client-ts.min.js', (_req, res) => res.type('application/javascript').send(library));
  app.get('/', (_req, res) => res.type('html').send(page('show();')));
  app.get('/callback.html', (_req, res) => res.type('html').send(page("manager.signinRedirectCallback().then(() => { location.href = '/'; }, (error) => { document.getElementById('state').textContent = 'error: ' + error.message; });")));
  await listen(app, spa.port);
}

test.afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

test('express-openid-connect with its defaults signs a person in (RS256, email and name from the ID token) and out again to its base URL', async ({ page }, testInfo) => {
  await page.goto(`${RP.baseUrl}/login`);
  await page.waitForURL((url) => url.href.startsWith(E2E_ISSUER));
  await page.screenshot({ path: testInfo.outputPath('express-sign-in.png'), fullPage: true });
  await fillSignIn(page, PERSON.email, PERSON.password);
  await page.waitForURL(`${RP.baseUrl}/`);
  const signedIn = JSON.parse((await page.locator('body').innerText()).trim()) as { authenticated: boolean; user: Record<string, unknown>; idTokenAlg: string };
  expect(signedIn).toMatchObject({ authenticated: true, idTokenAlg: 'RS256', user: { email: PERSON.email, email_verified: expect.any(Boolean), name: PERSON.name } });

  // Its logout: Portico's end-session page (the person confirms), then back to exactly the base URL it sent.
  await page.goto(`${RP.baseUrl}/logout`);
  await page.waitForURL((url) => url.href.startsWith(`${E2E_ISSUER}/oidc/session/end`));
  await expectAccessible(page);
  await page.screenshot({ path: testInfo.outputPath('express-sign-out.png'), fullPage: true });
  await page.getByRole('button', { name: 'Yes, sign me out' }).click();
  await page.waitForURL((url) => url.origin === RP.baseUrl);
  expect(JSON.parse((await page.locator('body').innerText()).trim())).toMatchObject({ authenticated: false, user: null });
  // Portico's session ended too: the next sign-in asks for the password again.
  await page.goto(`${RP.baseUrl}/login`);
  await page.waitForURL((url) => url.href.startsWith(E2E_ISSUER));
  await expect(page.getByLabel('Password')).toBeVisible();
});

test('passport-openidconnect (a nonce, no PKCE) signs in where the app allows it, and is refused with invalid_request where it does not', async ({ page }) => {
  const { allowing, strict } = RELYING_PARTIES.passport;
  // Refused first: no sign-in card at all, the error goes back to the relying party (its redirect URI is registered).
  await page.goto(`${strict.baseUrl}/login`);
  await page.waitForURL((url) => url.origin === strict.baseUrl && url.pathname === '/callback');
  expect(new URL(page.url()).searchParams.get('error')).toBe('invalid_request');
  expect(JSON.parse((await page.locator('body').innerText()).trim())).toMatchObject({ error: 'invalid_request', description: expect.stringContaining('PKCE') });

  await page.goto(`${allowing.baseUrl}/login`);
  await page.waitForURL((url) => url.href.startsWith(E2E_ISSUER));
  const authorization = new URL(page.url());
  expect(authorization.searchParams.get('code_challenge')).toBeNull();
  await fillSignIn(page, PERSON.email, PERSON.password);
  await page.waitForURL(`${allowing.baseUrl}/`);
  expect(JSON.parse((await page.locator('body').innerText()).trim())).toMatchObject({ user: { name: PERSON.name, email: PERSON.email } });
});

test('oidc-client-ts signs a person in to a single-page app with no secret, and refreshes from the browser', async ({ page }) => {
  const spa = RELYING_PARTIES.spa;
  const tokenRequests: { origin: string | undefined; body: string }[] = [];
  page.on('request', async (request) => {
    // allHeaders: the headers the network layer added too (Origin among them).
    if (request.url() === `${E2E_ISSUER}/oidc/token` && request.method() === 'POST') tokenRequests.push({ origin: (await request.allHeaders())['origin'], body: request.postData() ?? '' });
  });
  await page.goto(spa.baseUrl);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => url.href.startsWith(E2E_ISSUER));
  await fillSignIn(page, PERSON.email, PERSON.password);
  await page.waitForURL(`${spa.baseUrl}/`);
  const state = page.locator('#state');
  await expect(state).toContainText(PERSON.email);
  const signedIn = JSON.parse(await state.innerText()) as { email: string; name: string; accessToken: string; refreshToken: string };
  expect(signedIn).toMatchObject({ email: PERSON.email, name: PERSON.name, refreshToken: expect.any(String) });
  // The browser exchanged the code itself, across origins, with PKCE and no secret.
  await expect.poll(() => tokenRequests.length).toBe(1);
  expect(tokenRequests[0]!.origin).toBe(spa.baseUrl);
  const exchange = new URLSearchParams(tokenRequests[0]!.body);
  expect(exchange.get('code_verifier')).toEqual(expect.any(String));
  expect(exchange.has('client_secret')).toBe(false);

  // A refresh from the page: a new access token and a new refresh token (rotation).
  await page.getByRole('button', { name: 'Refresh' }).click();
  await expect.poll(async () => (JSON.parse(await state.innerText()) as { accessToken: string }).accessToken).not.toBe(signedIn.accessToken);
  const refreshed = JSON.parse(await state.innerText()) as { refreshToken: string };
  expect(refreshed.refreshToken).not.toBe(signedIn.refreshToken);
  await expect.poll(() => tokenRequests.length).toBe(2);
  expect(tokenRequests[1]!.origin).toBe(spa.baseUrl);
  expect(new URLSearchParams(tokenRequests[1]!.body).get('grant_type')).toBe('refresh_token');
});
