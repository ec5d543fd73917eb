// openid-client as the demo app's relying party, and a person signing in through the real browser.
import { createServer } from 'node:http';
import type { Page, TestInfo } from '@playwright/test';
import * as oidc from 'openid-client';
import { DEMO, E2E_ISSUER } from './constants';
import { rememberSecret } from './secret-scan';

export async function demoRelyingParty(issuer: string, secret: string = DEMO.clientSecret): Promise<oidc.Configuration> {
  return oidc.discovery(new URL(issuer), DEMO.clientId, undefined, oidc.ClientSecretBasic(secret), {
    execute: [oidc.allowInsecureRequests], // loopback http issuer in tests
  });
}

export interface AuthorizationRequest {
  url: URL;
  codeVerifier: string;
  state: string;
  nonce: string;
}

export async function newAuthorizationRequest(
  config: oidc.Configuration,
  scope = 'openid email profile',
  extra: Record<string, string> = {},
): Promise<AuthorizationRequest> {
  const codeVerifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: DEMO.redirectUri,
    scope,
    code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    ...extra,
  });
  return { url, codeVerifier, state, nonce };
}

const callbackServers = new Map<string, Promise<void>>();

/**
 * The fixture apps' redirect URIs, served for real on loopback (a browser redirect cannot be routed reliably).
 * Each app has an origin of its own: an app's redirect origins name its resource, so no two apps share one.
 * Playwright's workers are processes of their own: a port another process of this run listens on already (the e2e
 * server's process serves the shared ones for the whole run, e2e/support/serve.ts) answers the same, and is used.
 */
export function ensureCallbackServer(redirectUri: string = DEMO.redirectUri): Promise<void> {
  const redirect = new URL(redirectUri);
  let started = callbackServers.get(redirect.origin);
  if (!started) {
    started = new Promise((resolve, reject) => {
      const server = createServer((_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.end('callback reached');
      });
      server.once('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' ? resolve() : reject(error)));
      server.listen(Number(redirect.port), redirect.hostname, () => {
        server.unref();
        resolve();
      });
    });
    callbackServers.set(redirect.origin, started);
  }
  return started;
}

/**
 * A redirect URI answered for one sign-in, on the port its app takes later in the same test: the browser lands on a
 * real listener (a redirected navigation is not routed reliably: the headless shell never routes it), and `close`
 * frees the port for the app.
 */
export async function callbackListener(redirectUri: string): Promise<{ reached(page: Page): Promise<URL>; close(): Promise<void> }> {
  const redirect = new URL(redirectUri);
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end('callback reached');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(Number(redirect.port), redirect.hostname, resolve);
  });
  return {
    async reached(page) {
      await page.waitForURL((url) => url.href.startsWith(redirectUri));
      return new URL(page.url());
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Returns a function that waits until the browser arrives at the demo redirect URI, and gives its URL. */
export async function interceptCallback(page: Page, redirectUri: string = DEMO.redirectUri): Promise<() => Promise<URL>> {
  await ensureCallbackServer(redirectUri);
  return async () => {
    await page.waitForURL((url) => url.href.startsWith(redirectUri));
    return new URL(page.url());
  };
}

export async function fillSignIn(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/** Signs the demo owner in through the card and returns the authorization response, code not yet redeemed. */
export async function signInForCallback(page: Page, config: oidc.Configuration, testInfo?: TestInfo, scope?: string, extra?: Record<string, string>) {
  const request = await newAuthorizationRequest(config, scope, extra);
  const callback = await interceptCallback(page);
  await page.goto(request.url.href);
  if (testInfo) await page.screenshot({ path: testInfo.outputPath('sign-in-card.png'), fullPage: true });
  await fillSignIn(page, DEMO.email, DEMO.password);
  const callbackUrl = await callback();
  const checks = { pkceCodeVerifier: request.codeVerifier, expectedState: request.state, expectedNonce: request.nonce };
  return { request, callbackUrl, checks };
}

/** The whole authorization code + PKCE flow: sign in through the card, then exchange the code. */
export async function signInAndExchange(
  page: Page,
  config: oidc.Configuration,
  testInfo?: TestInfo,
  scope?: string,
  extra?: Record<string, string>,
) {
  const { request, callbackUrl, checks } = await signInForCallback(page, config, testInfo, scope, extra);
  rememberSecret('an authorization code', callbackUrl.searchParams.get('code') ?? undefined);
  const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, checks);
  rememberSecret('a refresh token', tokens.refresh_token);
  rememberSecret('an access token', tokens.access_token);
  return { request, callbackUrl, tokens };
}

/**
 * An authorization request of one of the fixture apps' own confidential clients (openid-client builds it), with
 * PKCE and any extra parameters (ui_locales, login_hint…): the URL a browser opens.
 */
export async function appAuthorizationUrl(app: { clientId: string; clientSecret: string; redirectUri: string }, extra: Record<string, string> = {}): Promise<URL> {
  const config = await oidc.discovery(new URL(E2E_ISSUER), app.clientId, undefined, oidc.ClientSecretBasic(app.clientSecret), { execute: [oidc.allowInsecureRequests] });
  return oidc.buildAuthorizationUrl(config, {
    redirect_uri: app.redirectUri,
    scope: 'openid',
    code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
    code_challenge_method: 'S256',
    state: oidc.randomState(),
    ...extra,
  });
}
