// Fixtures for the Portico side, made through Portico's real screens without a browser (fetch and a cookie jar):
// one sign-in through the card, then as many authorization codes as needed from that session (the app's own client
// needs no consent; with prompt=consent its "Continue" step is posted). Made before the measurement, never during.
import { calculatePKCECodeChallenge } from 'openid-client';
import { CookieJar } from '../../test/support/provider-harness';
import { demoClient, ISSUER } from './harness';

export const BENCH_VERIFIER = 'bench-verifier-0123456789-0123456789-0123456789';

export class PorticoSession {
  private readonly jar = new CookieJar();

  /**
   * `origin`: where this session's Portico listens, when not at the issuer's own address (another process of the
   * run, on its own port and database, with the same issuer: the scale bench's empty and big databases side by side).
   */
  constructor(readonly origin: string = ISSUER) {}

  /** A URL on this session's Portico: the issuer's own absolute URLs (redirects) are sent there too. */
  at(url: string): URL {
    return new URL(url.startsWith(ISSUER) ? `${this.origin}${url.slice(ISSUER.length)}` : url, this.origin);
  }

  /** The session's cookies, for a request made outside it. */
  cookieHeader(): string {
    return this.jar.header();
  }

  private async step(url: string, init: RequestInit = {}): Promise<string> {
    const response = await fetch(this.at(url), { ...init, redirect: 'manual', headers: { ...init.headers, cookie: this.jar.header() } });
    this.jar.store(response);
    const body = await response.text();
    const location = response.headers.get('location');
    if (!location) throw new Error(`${init.method ?? 'GET'} ${url} answered ${response.status} without a redirect: ${body.slice(0, 200)}`);
    return location;
  }

  /**
   * Follows redirects until the client's redirect URI; posts the sign-in card, then the Continue step (the app's own
   * client) or the consent screen (allow, as the person: an MCP client) on the way.
   */
  async authorize(parameters: Record<string, string>, client: { clientId: string; redirectUri: string; consent: 'continue' | 'allow' } = { ...demoClient, consent: 'continue' }): Promise<string> {
    const url = this.at('/oidc/auth');
    url.search = new URLSearchParams({
      client_id: client.clientId,
      redirect_uri: client.redirectUri,
      response_type: 'code',
      code_challenge: await calculatePKCECodeChallenge(BENCH_VERIFIER),
      code_challenge_method: 'S256',
      state: 'bench',
      ...parameters,
    }).toString();
    let location = await this.step(url.href);
    for (let hops = 0; hops < 10; hops += 1) {
      if (location.startsWith(client.redirectUri)) {
        const code = new URL(location).searchParams.get('code');
        if (!code) throw new Error(`no code: ${location}`);
        return code;
      }
      const card = /^\/auth\/app\/([A-Za-z0-9_-]+)$/.exec(location);
      if (card) {
        const signedIn = this.jar.header().includes('_session=');
        location = signedIn
          ? client.consent === 'continue'
            ? await this.step(`/auth/app/${card[1]}/continue`, { method: 'POST' })
            : await this.step(`/auth/app/${card[1]}/consent`, { method: 'POST', body: new URLSearchParams({ decision: 'allow', actor: 'self' }) })
          : await this.step(`/auth/app/${card[1]}/login`, { method: 'POST', body: new URLSearchParams({ email: demoClient.email, password: demoClient.password }) });
      } else {
        location = await this.step(location);
      }
    }
    throw new Error(`the authorization did not reach the redirect URI (last: ${location})`);
  }

  /** An authorization code (PKCE with BENCH_VERIFIER) for the demo app. */
  code(scope = 'openid', extra: Record<string, string> = {}): Promise<string> {
    return this.authorize({ scope, ...extra });
  }

  /** A refresh token chain of its own (a grant with offline_access). */
  async refreshToken(): Promise<string> {
    const code = await this.code('openid offline_access', { prompt: 'consent' });
    const response = await fetch(this.at('/oidc/token'), {
      method: 'POST',
      headers: { Authorization: basicAuthorization() },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: demoClient.redirectUri, code_verifier: BENCH_VERIFIER }),
    });
    const tokens = (await response.json()) as { refresh_token?: string };
    if (!tokens.refresh_token) throw new Error(`no refresh token: ${JSON.stringify(tokens)}`);
    return tokens.refresh_token;
  }
}

export const basicAuthorization = () => `Basic ${Buffer.from(`${encodeURIComponent(demoClient.clientId)}:${encodeURIComponent(demoClient.clientSecret)}`).toString('base64')}`;

/** A Portico API access token (JWT, audience <issuer>/api/mcp, scope mcp) through a registered public client. */
/** A dynamic client's access token for `resource` (Portico's own API by default; a gateway server's, say). */
export async function porticoApiToken(session: PorticoSession, resource = `${ISSUER}/api/mcp`): Promise<string> {
  const redirectUri = 'http://127.0.0.1:40001/callback';
  const registered = (await (await fetch(session.at('/oauth/register'), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ client_name: 'Bench client', redirect_uris: [redirectUri] }) })).json()) as { client_id: string };
  const code = await session.authorize({ scope: 'mcp', resource }, { clientId: registered.client_id, redirectUri, consent: 'allow' });
  const response = await fetch(session.at('/oidc/token'), {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: registered.client_id, code_verifier: BENCH_VERIFIER }),
  });
  const tokens = (await response.json()) as { access_token?: string };
  if (!tokens.access_token) throw new Error(`no access token: ${JSON.stringify(tokens)}`);
  return tokens.access_token;
}
