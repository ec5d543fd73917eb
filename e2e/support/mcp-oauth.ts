// The MCP SDK's own client and OAuth flow, with an OAuthClientProvider whose "user agent" is a Playwright page:
// the SDK discovers, registers (or uses a CIMD URL), builds the PKCE authorization request with `resource`; the
// page signs in and answers the consent screen; the SDK exchanges the code and refreshes.
import { createHash, randomBytes } from 'node:crypto';
import type { Locator, Page, TestInfo } from '@playwright/test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { SCRIPTED_CLIENT_REDIRECT_URI } from './constants';
import { ensureCallbackServer, fillSignIn } from './relying-party';
import { rememberSecret } from './secret-scan';

export class PageOAuthProvider implements OAuthClientProvider {
  private information?: OAuthClientInformationMixed;
  private saved?: OAuthTokens;
  private verifier?: string;
  /** The authorization URL the SDK sent the user agent to, waiting for the page to open it. */
  pendingAuthorization?: URL;
  readonly clientMetadataUrl?: string;

  constructor(
    readonly redirectUrl: string,
    options: { clientMetadataUrl?: string; clientName?: string } = {},
  ) {
    this.clientMetadataUrl = options.clientMetadataUrl;
    this.clientName = options.clientName ?? 'E2E MCP client';
  }

  private readonly clientName: string;

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.clientName,
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.information = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    rememberSecret('a refresh token', tokens.refresh_token);
    rememberSecret('an access token', tokens.access_token);
    this.saved = tokens;
  }
  /** Drops the tokens (keeps the registration): the next connection authorizes from the start. */
  forgetTokens() {
    this.saved = undefined;
  }
  /**
   * Drops the refresh token (keeps the access token): the SDK answers a 403 insufficient_scope with a refresh
   * first, which cannot widen a consent; without one it starts an authorization with the challenge's scope.
   */
  forgetRefreshToken() {
    if (this.saved) this.saved = { ...this.saved, refresh_token: undefined };
  }
  /** Replaces the access token with a dead one, so the next call must refresh. */
  spoilAccessToken() {
    if (this.saved) this.saved = { ...this.saved, access_token: 'expired.access.token' };
  }
  /**
   * MCP authorization 2026-07-28 (step-up): a 403 names only what the operation needs, and the client asks for the
   * union of that and what it asked for before. The SDK (1.32) asks for the challenge's scope alone, so this
   * provider widens the request it is handed, as a client of the revision does.
   */
  redirectToAuthorization(authorizationUrl: URL) {
    const asked = authorizationUrl.searchParams.get('scope')?.split(' ').filter(Boolean) ?? [];
    const union = [...new Set([...this.requestedScopes, ...asked])];
    if (union.length > 0) authorizationUrl.searchParams.set('scope', union.join(' '));
    this.requestedScopes = union;
    this.pendingAuthorization = authorizationUrl;
  }
  private requestedScopes: string[] = [];
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    if (!this.verifier) throw new Error('no code verifier saved');
    return this.verifier;
  }
}

export interface PersonAtTheBrowser {
  email: string;
  password: string;
  /** `self`, or the name of the agent to choose on the consent screen. */
  actsAs?: string;
  screenshot?: { testInfo: TestInfo; name: string };
  /** The browser already holds a session with Portico: no sign-in form comes first. */
  signedIn?: boolean;
  /** Assertions on the consent screen, before answering it. */
  onConsent?: (page: Page) => Promise<void>;
  /** Sign in and answer the consent screen with the keyboard alone (Tab, arrow keys, Enter): no click. */
  keyboardOnly?: boolean;
}

/** Presses Tab until `target` has the focus: it is reachable with the keyboard, in a sensible number of steps. */
async function tabTo(page: Page, target: Locator, maxSteps = 25): Promise<void> {
  for (let step = 0; step < maxSteps; step += 1) {
    if (await target.evaluate((element) => element === document.activeElement)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`not reached with ${maxSteps} presses of Tab: ${target}`);
}

/**
 * What a person does in the browser between the SDK's redirect and its callback: sign in, answer the consent
 * screen, and land on the client's redirect URI, whose `code` is returned.
 */
export async function authorizeInBrowser(page: Page, provider: PageOAuthProvider, person: PersonAtTheBrowser): Promise<string> {
  const authorizationUrl = provider.pendingAuthorization;
  if (!authorizationUrl) throw new Error('the SDK did not start an authorization');
  provider.pendingAuthorization = undefined;
  const redirect = new URL(provider.redirectUrl);
  // A real listener behind the route: the headless shell sends a redirected navigation past page.route (the full
  // browser now and then), and the page then lands on the listener.
  await ensureCallbackServer(provider.redirectUrl);
  let callback: URL | undefined;
  await page.route(`${redirect.origin}${redirect.pathname}**`, async (route) => {
    callback = new URL(route.request().url());
    await route.fulfill({ status: 200, contentType: 'text/plain', body: 'authorization finished' });
  });
  await page.goto(authorizationUrl.href);
  if (!person.signedIn) {
    if (person.keyboardOnly) {
      // The email field has the focus when the card opens.
      await page.getByLabel('Email').waitFor();
      await page.keyboard.type(person.email);
      await tabTo(page, page.getByLabel('Password'));
      await page.keyboard.type(person.password);
      await page.keyboard.press('Enter');
    } else {
      await fillSignIn(page, person.email, person.password);
    }
  }
  await page.getByTestId('who-acts').waitFor();
  // Let React hydrate the page first: hydration may reset a radio button checked before it.
  await page.waitForLoadState('networkidle');
  if (person.onConsent) await person.onConsent(page);
  if (person.keyboardOnly) {
    // A radio group takes one Tab stop (its checked radio); the arrow keys move the choice.
    if (person.actsAs && person.actsAs !== 'self') {
      await tabTo(page, page.getByTestId('who-acts').locator('input[type=radio]:checked'));
      const choice = page.getByLabel(person.actsAs);
      for (let step = 0; step < 10 && !(await choice.isChecked()); step += 1) await page.keyboard.press('ArrowDown');
      if (!(await choice.isChecked())) throw new Error(`${person.actsAs} cannot be chosen with the arrow keys`);
    }
    if (person.screenshot) await page.screenshot({ path: person.screenshot.testInfo.outputPath(person.screenshot.name), fullPage: true });
    await tabTo(page, page.getByRole('button', { name: 'Allow' }));
    await page.keyboard.press('Enter');
  } else {
    if (person.actsAs && person.actsAs !== 'self') await page.getByLabel(person.actsAs).check();
    if (person.screenshot) await page.screenshot({ path: person.screenshot.testInfo.outputPath(person.screenshot.name), fullPage: true });
    await page.getByRole('button', { name: 'Allow' }).click();
  }
  await page.waitForURL((url) => url.href.startsWith(provider.redirectUrl));
  await page.unroute(`${redirect.origin}${redirect.pathname}**`);
  const code = (callback ?? new URL(page.url())).searchParams.get('code');
  if (!code) throw new Error(`no code at the redirect URI: ${page.url()}`);
  return code;
}

/** Connects the SDK client; on the first 401 the person authorizes in the browser, then the client connects again. */
export async function connectWithOAuth(page: Page, resource: string, provider: PageOAuthProvider, person: PersonAtTheBrowser): Promise<Client> {
  const client = new Client({ name: 'portico-e2e', version: '1.0.0' });
  const firstTry = new StreamableHTTPClientTransport(new URL(resource), { authProvider: provider });
  try {
    await client.connect(firstTry);
    return client; // already authorized
  } catch (error) {
    if (!(error instanceof UnauthorizedError)) throw error;
  }
  const code = await authorizeInBrowser(page, provider, person);
  await firstTry.finishAuth(code);
  const connected = new Client({ name: 'portico-e2e', version: '1.0.0' });
  await connected.connect(new StreamableHTTPClientTransport(new URL(resource), { authProvider: provider }));
  return connected;
}

/**
 * Step-up as an MCP client does it (MCP authorization, scope challenge handling): `call` meets a 403
 * insufficient_scope, the SDK starts an authorization with the scope the challenge names, the person answers the
 * consent screen in the browser, and a new connection makes the call again with the new token (its result, or
 * what it threw).
 */
export async function callAfterStepUp<T>(
  page: Page,
  resource: string,
  provider: PageOAuthProvider,
  person: PersonAtTheBrowser,
  call: (client: Client) => Promise<T>,
): Promise<{ client: Client; result?: T; error?: unknown }> {
  provider.forgetRefreshToken();
  const transport = new StreamableHTTPClientTransport(new URL(resource), { authProvider: provider });
  const client = new Client({ name: 'portico-e2e', version: '1.0.0' });
  await client.connect(transport);
  const refused = await call(client).then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(refused instanceof UnauthorizedError)) throw new Error(`the call did not start a step-up authorization: ${String(refused)}`);
  const code = await authorizeInBrowser(page, provider, { ...person, signedIn: true });
  await transport.finishAuth(code);
  await client.close();
  const again = new Client({ name: 'portico-e2e', version: '1.0.0' });
  await again.connect(new StreamableHTTPClientTransport(new URL(resource), { authProvider: provider }));
  return call(again).then(
    (result) => ({ client: again, result }),
    (error: unknown) => ({ client: again, error }),
  );
}

/** A public client's PKCE authorization request (S256), built by hand for the cases the SDK would never send. */
export function pkceAuthorizationRequest(issuer: string, input: { clientId: string; redirectUri: string; resource?: string; scope?: string }): { url: URL; verifier: string } {
  const verifier = randomBytes(32).toString('base64url');
  const url = new URL(`${issuer}/oidc/auth`);
  url.search = new URLSearchParams({
    client_id: input.clientId,
    redirect_uri: input.redirectUri,
    response_type: 'code',
    scope: input.scope ?? 'mcp',
    state: randomBytes(8).toString('hex'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    ...(input.resource ? { resource: input.resource } : {}),
  }).toString();
  return { url, verifier };
}

/**
 * A person's access token for a resource with the scopes named, through a freshly registered client and the real
 * sign-in and consent screens (for scopes an MCP SDK client would not ask for on its own).
 */
export async function accessTokenThroughConsent(
  page: Page,
  issuer: string,
  input: { resource: string; scope: string; person: { email: string; password: string } },
): Promise<string> {
  const redirectUri = SCRIPTED_CLIENT_REDIRECT_URI;
  const registered = await fetch(`${issuer}/oauth/register`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ client_name: 'Scripted client', redirect_uris: [redirectUri] }),
  });
  if (registered.status !== 201) throw new Error(`registration failed: ${registered.status} ${await registered.text()}`);
  const clientId = ((await registered.json()) as { client_id: string }).client_id;
  const { url, verifier } = pkceAuthorizationRequest(issuer, { clientId, redirectUri, resource: input.resource, scope: input.scope });
  let code: string | null = null;
  await ensureCallbackServer(redirectUri); // a real listener behind the route, as in authorizeInBrowser
  await page.route(`${redirectUri}**`, async (route) => {
    code = new URL(route.request().url()).searchParams.get('code');
    await route.fulfill({ status: 200, contentType: 'text/plain', body: 'done' });
  });
  await page.goto(url.href);
  await fillSignIn(page, input.person.email, input.person.password);
  await page.getByRole('button', { name: 'Allow' }).click();
  await page.waitForURL((current) => current.href.startsWith(redirectUri));
  await page.unroute(`${redirectUri}**`);
  code ??= new URL(page.url()).searchParams.get('code');
  if (!code) throw new Error('no authorization code');
  const response = await fetch(`${issuer}/oidc/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: clientId, code_verifier: verifier }),
  });
  const tokens = (await response.json()) as { access_token?: string };
  if (!response.ok || !tokens.access_token) throw new Error(`token request failed: ${response.status} ${JSON.stringify(tokens)}`);
  rememberSecret('an access token', tokens.access_token);
  return tokens.access_token;
}
