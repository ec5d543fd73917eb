// oidc-provider with Portico's configuration on a loopback port, in-process, on a test database. Sign-ins go through
// the same domain function as the sign-in card's form (completePasswordSignIn); only the HTML page is skipped.
import { randomBytes } from 'node:crypto';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oidc from 'openid-client';
import type Provider from 'oidc-provider';
import { addMember } from '../../lib/organizations/memberships';
import { createOrganization } from '../../lib/organizations/organizations';
import { hashPassword } from '../../lib/accounts/factors/password';
import { createUser, type User } from '../../lib/accounts/users';
import { appResource, createApp, type CreatedApp } from '../../lib/clients/apps';
import { createProviderHandler } from '../../lib/oidc/bridge';
import { handleRegistration } from '../../lib/clients/registration-http';
import { registrationLimits } from '../../lib/clients/registration';
import { sendWebResponse, toWebRequest } from '../../app-kit/node-http';
import { loadOrCreateKeyMaterial, type KeyMaterial } from '../../lib/oidc/keys';
import { completePasswordSignIn, type PasswordSignInOutcome } from '../../lib/oidc/password-sign-in';
import { completeConsent, type ConsentOutcome } from '../../lib/oidc/consent';
import { createProvider } from '../../lib/oidc/provider';
import { afterAll, beforeAll } from 'vitest';
import { openTestDatabase, type TestDatabase } from './databases';

export interface Harness {
  issuer: string;
  provider: Provider;
  keys: KeyMaterial;
  /** Every body POSTed to /oauth/register, as sent (what a client's own code registers with). */
  registrationBodies: string[];
  close(): Promise<void>;
}

export interface HarnessOptions {
  refreshTokenReuseGraceSeconds?: number;
  atRestKey?: Uint8Array;
  pollIntervalSeconds?: number;
  /** Outbound fetches (a trusted issuer's keys, discovery) may reach loopback hosts: other test servers. */
  outboundAllowLoopback?: boolean;
  cimdHosts?: { allowed: string[]; blocked: string[] };
  /** PORTICO_SECRET_KEY: a second instance on the same database needs the first one's. */
  secretKey?: Uint8Array;
  /** More of Portico's own routes, by exact path, served beside the provider (web-standard handlers). */
  routes?: Record<string, (request: Request) => Promise<Response>>;
}

export async function startProviderHarness(database: TestDatabase, options: HarnessOptions = {}): Promise<Harness> {
  let handler: RequestListener | undefined;
  let issuerOrigin = '';
  const registrationBodies: string[] = [];
  const server: Server = createServer((req, res) => {
    // Dynamic registration is Portico's own route, not the provider's: served here as the app serves it.
    if (req.method === 'POST' && req.url === '/oauth/register') {
      void toWebRequest(req, issuerOrigin)
        .then(async (request) => {
          registrationBodies.push(await request.clone().text());
          return handleRegistration(request, { db: database.db, limits: registrationLimits(1000, 10_000) });
        })
        .then((response) => sendWebResponse(res, response));
      return;
    }
    const route = options.routes?.[new URL(req.url ?? '/', 'http://x').pathname];
    if (route) {
      void toWebRequest(req, issuerOrigin)
        .then(route)
        .catch((error: unknown) => new Response(String(error), { status: 500 }))
        .then((response) => sendWebResponse(res, response));
      return;
    }
    return handler ? handler(req, res) : res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  issuerOrigin = issuer;
  const keys = await loadOrCreateKeyMaterial(database.db, options.secretKey ?? randomBytes(32));
  const provider = createProvider({
    issuer,
    db: () => database.db,
    keys,
    trustProxy: false,
    secureCookies: false,
    refreshTokenReuseGraceSeconds: options.refreshTokenReuseGraceSeconds ?? 5,
    atRestKey: options.atRestKey ?? randomBytes(32),
    pollIntervalSeconds: options.pollIntervalSeconds,
    outboundAllowLoopback: options.outboundAllowLoopback,
    cimdHosts: options.cimdHosts,
  });
  handler = createProviderHandler(provider, { https: false });
  return {
    issuer,
    provider,
    keys,
    registrationBodies,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A test file's database and provider harness, opened before its tests and closed after them. */
export function useProviderHarness(options: HarnessOptions = {}): { database: TestDatabase; harness: Harness } {
  const suite = {} as { database: TestDatabase; harness: Harness };
  beforeAll(async () => {
    suite.database = await openTestDatabase();
    suite.harness = await startProviderHarness(suite.database, options);
  });
  afterAll(async () => {
    await suite.harness?.close();
    await suite.database?.close();
  });
  return suite;
}

export interface AppFixture extends CreatedApp {
  /** A web app's (every fixture app is one). */
  clientSecret: string;
  orgId: string;
  redirectUri: string;
  resource: string;
}

let fixtureCounter = 0;

export async function createOrgWithApp(database: TestDatabase, name: string): Promise<AppFixture> {
  const slug = `${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${++fixtureCounter}`;
  const org = await createOrganization(database.db, { slug, name });
  const origin = `https://${slug}.apps.test`;
  const redirectUri = `${origin}/callback`;
  const created = await createApp(database.db, { orgId: org.id, slug: 'app', name: `${name} App`, publishOrigin: origin, redirectUris: [redirectUri] });
  return { ...created, orgId: org.id, redirectUri, resource: appResource(origin) };
}

export const TEST_PASSWORD = 'a long test password 42';

export async function createMember(database: TestDatabase, orgId: string, email: string, role: 'owner' | 'admin' | 'member' = 'member'): Promise<User> {
  const user = await createUser(database.db, { email, name: email.split('@')[0] ?? email, passwordHash: await hashPassword(TEST_PASSWORD) });
  await addMember(database.db, { orgId, userId: user.id, role });
  return user;
}

export function relyingParty(harness: Harness, app: AppFixture): Promise<oidc.Configuration> {
  return oidc.discovery(new URL(harness.issuer), app.clientId, undefined, oidc.ClientSecretBasic(app.clientSecret), {
    execute: [oidc.allowInsecureRequests],
  });
}

/** A browser's cookie jar, just enough for oidc-provider's and Portico's cookies (names only; no paths). */
export class CookieJar {
  private readonly cookies = new Map<string, string>();
  store(response: Response) {
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const index = pair.indexOf('=');
      const name = pair.slice(0, index);
      const value = pair.slice(index + 1);
      if (!value || /max-age=0|expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

export interface SignInAttempt {
  outcome: PasswordSignInOutcome;
  /** The authorization response URL, when the sign-in went through. */
  callbackUrl?: URL;
  checks: { pkceCodeVerifier: string; expectedState: string; expectedNonce: string };
  /** The browser's cookies for this authorization (to continue it, as a second step does). */
  cookieHeader?: string;
}

/**
 * Runs an authorization request: the provider sends the "browser" to the sign-in card, the password is checked by
 * Portico's sign-in function, the provider resumes and redirects to the app with a code.
 */
export async function signIn(
  harness: Harness,
  database: TestDatabase,
  config: oidc.Configuration,
  app: AppFixture,
  credentials: { email: string; password?: string; clientIp?: string },
  parameters: Record<string, string> = {},
  /** The browser's cookies: pass one jar to several sign-ins to keep the provider's session between them. */
  jar = new CookieJar(),
  /** POST: the request's parameters as a form, as an auto-submitted form sends them (OIDC Core §3.1.2.1). */
  method: 'GET' | 'POST' = 'GET',
): Promise<SignInAttempt> {
  const pkceCodeVerifier = oidc.randomPKCECodeVerifier();
  const checks = { pkceCodeVerifier, expectedState: oidc.randomState(), expectedNonce: oidc.randomNonce() };
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: app.redirectUri,
    scope: 'openid email profile',
    code_challenge: await oidc.calculatePKCECodeChallenge(pkceCodeVerifier),
    code_challenge_method: 'S256',
    state: checks.expectedState,
    nonce: checks.expectedNonce,
    ...parameters,
  });
  let authorizationUrl: URL = url;
  if (method === 'POST') {
    const posted = await fetch(new URL(url.pathname, url), { method: 'POST', body: url.searchParams, redirect: 'manual', headers: { cookie: jar.header() } });
    if (posted.status !== 303) throw new Error(`POST ${url.pathname} answered ${posted.status}: ${await posted.text()}`);
    authorizationUrl = new URL(posted.headers.get('location') ?? '', url);
  }
  const start = await fetch(authorizationUrl, { redirect: 'manual', headers: { cookie: jar.header() } });
  jar.store(start);
  const location = start.headers.get('location') ?? '';
  const uid = /^\/auth\/app\/([A-Za-z0-9_-]+)$/.exec(location)?.[1];
  if (!uid) {
    // No sign-in card: the provider answered directly (an error redirect).
    return { outcome: { kind: 'expired' }, callbackUrl: location ? new URL(location, harness.issuer) : undefined, checks };
  }
  const outcome = await completePasswordSignIn({
    provider: harness.provider,
    db: database.db,
    cookieHeader: jar.header(),
    uid,
    credential: { kind: 'password', email: credentials.email, password: credentials.password ?? TEST_PASSWORD },
    issuer: harness.issuer,
    clientIp: credentials.clientIp ?? '192.0.2.1',
  });
  if (outcome.kind !== 'continue') return { outcome, checks, cookieHeader: jar.header() };
  const resumed = await fetch(outcome.location, { redirect: 'manual', headers: { cookie: jar.header() } });
  jar.store(resumed);
  return { outcome, callbackUrl: new URL(resumed.headers.get('location') ?? '', harness.issuer), checks };
}

export interface McpAuthorization {
  /** The sign-in outcome, then the consent outcome (when the sign-in went through). */
  signIn: PasswordSignInOutcome;
  consent?: ConsentOutcome;
  /** The authorization response: `code` (or `error`) for the client. */
  callbackUrl?: URL;
  codeVerifier: string;
}

/**
 * An MCP client's authorization (public client, PKCE, `resource`): sign-in through Portico's sign-in function, then
 * the consent function with `actor` ('self' or an agent id) — exactly what the forms post.
 */
export async function authorizeMcpClient(
  harness: Harness,
  database: TestDatabase,
  input: { clientId: string; redirectUri: string; resource?: string; email: string; actor?: string; scope?: string },
): Promise<McpAuthorization> {
  const codeVerifier = oidc.randomPKCECodeVerifier();
  const url = new URL(`${harness.issuer}/oidc/auth`);
  url.search = new URLSearchParams({
    client_id: input.clientId,
    redirect_uri: input.redirectUri,
    response_type: 'code',
    ...(input.scope === '' ? {} : { scope: input.scope ?? 'mcp' }),
    state: oidc.randomState(),
    code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    ...(input.resource ? { resource: input.resource } : {}),
  }).toString();
  return { ...(await completeAuthorization(harness, database, url, input)), codeVerifier };
}

/**
 * The person's side of an authorization request someone else built (an MCP SDK client's): sign-in through Portico's
 * sign-in function, then the consent function with `actor` — exactly what the forms post.
 */
export async function completeAuthorization(
  harness: Harness,
  database: TestDatabase,
  url: URL,
  input: { email: string; actor?: string },
): Promise<Omit<McpAuthorization, 'codeVerifier'>> {
  const jar = new CookieJar();
  const start = await fetch(url, { redirect: 'manual' });
  jar.store(start);
  const uid = /^\/auth\/app\/([A-Za-z0-9_-]+)$/.exec(start.headers.get('location') ?? '')?.[1];
  if (!uid) return { signIn: { kind: 'expired' }, callbackUrl: new URL(start.headers.get('location') ?? '/', harness.issuer) };
  const common = { provider: harness.provider, db: database.db, uid, issuer: harness.issuer, clientIp: '192.0.2.1' };
  const signIn = await completePasswordSignIn({ ...common, cookieHeader: jar.header(), credential: { kind: 'password', email: input.email, password: TEST_PASSWORD } });
  if (signIn.kind !== 'continue') return { signIn };
  const resumed = await fetch(signIn.location, { redirect: 'manual', headers: { cookie: jar.header() } });
  jar.store(resumed);
  // The consent step is an interaction of its own (oidc-provider may give it a new uid).
  const consentUid = /^\/auth\/app\/([A-Za-z0-9_-]+)$/.exec(resumed.headers.get('location') ?? '')?.[1];
  if (!consentUid) return { signIn, callbackUrl: new URL(resumed.headers.get('location') ?? '/', harness.issuer) };
  const consent = await completeConsent({ ...common, uid: consentUid, cookieHeader: jar.header(), decision: { decision: 'allow', actor: input.actor ?? 'self' } });
  if (consent.kind !== 'continue') return { signIn, consent };
  const finished = await fetch(consent.location, { redirect: 'manual', headers: { cookie: jar.header() } });
  return { signIn, consent, callbackUrl: new URL(finished.headers.get('location') ?? '', harness.issuer) };
}

/** POST /oidc/token for a public client. */
export async function tokenRequest(harness: Harness, clientId: string, parameters: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${harness.issuer}/oidc/token`, { method: 'POST', body: new URLSearchParams({ client_id: clientId, ...parameters }) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The device verification page as a browser uses it: GET it, then POST the code; the confirmation page that answers. */
export async function enterDeviceCode(harness: Harness, jar: CookieJar, userCode: string, headers: Record<string, string> = {}, postPath = '/oidc/device'): Promise<{ status: number; html: string }> {
  const page = await fetch(`${harness.issuer}/oidc/device`, { headers: { cookie: jar.header(), ...headers } });
  jar.store(page);
  const html = await page.text();
  const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
  const posted = await fetch(`${harness.issuer}${postPath}`, { method: 'POST', redirect: 'manual', headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams({ xsrf, user_code: userCode }) });
  jar.store(posted);
  return { status: posted.status, html: await posted.text() };
}

/**
 * A `verification_uri_complete` (RFC 8628 §3.3.1) opened in a browser: the page submits itself with the code it carries
 * (oidc-provider's form post); the confirmation page that answers.
 */
export async function openVerificationUriComplete(jar: CookieJar, url: string): Promise<{ status: number; html: string }> {
  const page = await fetch(url, { headers: { cookie: jar.header() } });
  jar.store(page);
  const html = await page.text();
  const action = /<form[^>]* action="([^"]+)"/.exec(html)?.[1];
  if (!action) throw new Error(`no form at ${url}: ${page.status}`);
  const fields = new URLSearchParams();
  for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)) fields.append(name!, value!);
  const posted = await fetch(new URL(action, url), { method: 'POST', redirect: 'manual', headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' }, body: fields });
  jar.store(posted);
  return { status: posted.status, html: await posted.text() };
}

/** Confirms the code on the confirmation page, signs in and consents (as `actor`); the page the device flow ends on. */
export async function approveDeviceCode(harness: Harness, database: TestDatabase, jar: CookieJar, confirmationHtml: string, email: string, actor = 'self'): Promise<string> {
  const xsrf = /name="xsrf" value="([^"]+)"/.exec(confirmationHtml)?.[1] ?? '';
  const userCode = /name="user_code" value="([^"]+)"/.exec(confirmationHtml)?.[1] ?? '';
  const confirmed = await fetch(`${harness.issuer}/oidc/device`, { method: 'POST', redirect: 'manual', headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ xsrf, user_code: userCode, confirm: 'yes' }) });
  jar.store(confirmed);
  const uid = /^\/auth\/app\/([A-Za-z0-9_-]+)$/.exec(confirmed.headers.get('location') ?? '')?.[1];
  if (!uid) throw new Error(`no sign-in after the confirmation: ${confirmed.status} ${confirmed.headers.get('location')}`);
  const common = { provider: harness.provider, db: database.db, issuer: harness.issuer, clientIp: '192.0.2.1' };
  const signIn = await completePasswordSignIn({ ...common, uid, cookieHeader: jar.header(), credential: { kind: 'password', email, password: TEST_PASSWORD } });
  if (signIn.kind !== 'continue') throw new Error(`sign-in: ${signIn.kind}`);
  const resumed = await fetch(signIn.location, { redirect: 'manual', headers: { cookie: jar.header() } });
  jar.store(resumed);
  const consentUid = /^\/auth\/app\/([A-Za-z0-9_-]+)$/.exec(resumed.headers.get('location') ?? '')?.[1];
  if (!consentUid) throw new Error(`no consent: ${resumed.headers.get('location')}`);
  const consent = await completeConsent({ ...common, uid: consentUid, cookieHeader: jar.header(), decision: { decision: 'allow', actor } });
  if (consent.kind !== 'continue') throw new Error(`consent: ${consent.kind}`);
  const finished = await fetch(consent.location, { redirect: 'manual', headers: { cookie: jar.header() } });
  return finished.text();
}
