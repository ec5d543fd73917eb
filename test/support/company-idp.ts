// A company's own identity provider for the tests: a bare oidc-provider instance (not Portico's code, none of its
// configuration), over HTTPS on loopback with the run's test certificate, with one confidential client — Portico —
// and whoever the test says is signing in. Its interactions finish at once (login as the current person, consent to
// openid email profile), as a company IdP with a signed-in employee would.
//
// `forgeIssuer`: the token endpoint's ID token is re-signed with the IdP's own key but another `iss` — what a
// compromised or confused upstream could send; Portico must refuse it. `sendIss: false`: an identity provider that
// predates RFC 9207, as many do: its authorization responses carry no `iss` and its metadata does not promise one.
// `tokenRequests` counts the codes redeemed at its token endpoint (a mix-up test checks that none arrive).
import { createServer, type Server } from 'node:https';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import Provider from 'oidc-provider';
import { loopbackTlsFiles } from '../../e2e/support/tls';

export interface CompanyPerson {
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
  groups?: string[];
  /** What the IdP asserts about how the person signed in there (RFC 8176). */
  amr?: string[];
}

export interface CompanyIdp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Who signs in next. */
  person: CompanyPerson;
  forgeIssuer: boolean;
  tokenRequests: number;
  close(): Promise<void>;
}

export async function startCompanyIdp(options: { redirectUris: string[]; tlsDir?: string; clientId?: string; clientSecret?: string; sendIss?: boolean }): Promise<CompanyIdp> {
  const tls = loopbackTlsFiles({ dir: options.tlsDir });
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingJwk: JWK = { ...(await exportJWK(privateKey)), kid: 'company-key', alg: 'RS256', use: 'sig' };
  let handler: (request: import('node:http').IncomingMessage, response: import('node:http').ServerResponse) => void = (_request, response) => response.writeHead(503).end();
  const server: Server = createServer({ cert: readFileSync(tls.certPath), key: readFileSync(tls.keyPath) }, (request, response) => handler(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `https://localhost:${(server.address() as AddressInfo).port}`;
  const idp: CompanyIdp = {
    issuer,
    clientId: options.clientId ?? 'portico-at-company',
    clientSecret: options.clientSecret ?? 'company-issued-secret-for-portico',
    person: { sub: 'employee-1', email: 'ada@company.test', email_verified: true, name: 'Ada' },
    forgeIssuer: false,
    tokenRequests: 0,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: idp.clientId,
        client_secret: idp.clientSecret,
        redirect_uris: options.redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys: [signingJwk as never] },
    claims: { openid: ['sub', 'amr'], email: ['email', 'email_verified'], profile: ['name', 'groups'] },
    // The claims go into the ID token itself (as many company IdPs do), not only into UserInfo.
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['company-idp-cookie-key'] },
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600 },
    findAccount: (_ctx, sub) => ({
      accountId: sub,
      claims: () => {
        const { amr: _amr, ...claims } = idp.person.sub === sub ? idp.person : { sub };
        return claims;
      },
    }),
  });
  const callback = provider.callback();
  handler = (request, response) => {
    const url = request.url ?? '';
    if (url.startsWith('/interaction/')) {
      void finishInteraction(provider, idp, request, response).catch(() => response.writeHead(500).end());
      return;
    }
    if (request.method === 'POST' && url.startsWith('/token')) idp.tokenRequests += 1;
    if (idp.forgeIssuer && request.method === 'POST' && url.startsWith('/token')) forgeIdToken(response, privateKey);
    if (options.sendIss === false) withoutIss(url, response);
    callback(request, response);
  };
  return idp;
}

async function finishInteraction(provider: Provider, idp: CompanyIdp, request: import('node:http').IncomingMessage, response: import('node:http').ServerResponse) {
  const details = await provider.interactionDetails(request, response);
  if (details.prompt.name === 'login') {
    await provider.interactionFinished(request, response, { login: { accountId: idp.person.sub, ...(idp.person.amr ? { amr: idp.person.amr } : {}) } }, { mergeWithLastSubmission: false });
    return;
  }
  const grant = new provider.Grant({ accountId: details.session!.accountId, clientId: String(details.params.client_id) });
  grant.addOIDCScope('openid email profile');
  const grantId = await grant.save();
  await provider.interactionFinished(request, response, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

/** An identity provider without RFC 9207: no `iss` in authorization responses, and none promised in its metadata. */
function withoutIss(url: string, response: import('node:http').ServerResponse) {
  const setHeader = response.setHeader.bind(response);
  response.setHeader = ((name: string, value: number | string | readonly string[]) => {
    if (name.toLowerCase() === 'location' && typeof value === 'string' && /[?&]code=/.test(value)) {
      const location = new URL(value);
      location.searchParams.delete('iss');
      return setHeader(name, location.href);
    }
    return setHeader(name, value);
  }) as typeof response.setHeader;
  if (!url.startsWith('/.well-known/openid-configuration')) return;
  const end = response.end.bind(response) as (...args: unknown[]) => import('node:http').ServerResponse;
  response.end = ((body?: unknown, ...rest: unknown[]) => {
    try {
      const metadata = JSON.parse(String(body)) as Record<string, unknown>;
      delete metadata.authorization_response_iss_parameter_supported;
      const rewritten = JSON.stringify(metadata);
      if (!response.headersSent) response.setHeader('Content-Length', Buffer.byteLength(rewritten));
      return end(rewritten);
    } catch {
      return end(body, ...rest);
    }
  }) as typeof response.end;
}

/** Rewrites the token response's ID token: the same key, the same claims, another issuer. */
function forgeIdToken(response: import('node:http').ServerResponse, privateKey: CryptoKey) {
  const end = response.end.bind(response) as (...args: unknown[]) => import('node:http').ServerResponse;
  response.end = ((body?: unknown, ...rest: unknown[]) => {
    void (async () => {
      try {
        const parsed = JSON.parse(String(body)) as { id_token?: string };
        if (parsed.id_token) {
          const header = decodeProtectedHeader(parsed.id_token);
          const claims = decodeJwt(parsed.id_token);
          parsed.id_token = await new SignJWT({ ...claims, iss: 'https://evil.example' }).setProtectedHeader({ alg: header.alg!, kid: header.kid, typ: header.typ }).sign(privateKey);
        }
        const forged = JSON.stringify(parsed);
        if (!response.headersSent) response.setHeader('Content-Length', Buffer.byteLength(forged));
        end(forged);
      } catch {
        end(body, ...rest);
      }
    })();
    return response;
  }) as typeof response.end;
}


/**
 * A browser at the company IdP: follows its redirects (keeping its cookies) from Portico's authorization URL until
 * the IdP sends the browser back to `returnTo` (Portico's callback); returns that URL. Nothing of Portico's runs here.
 */
export async function signInAtCompany(authorizationUrl: string, returnTo: string): Promise<URL> {
  const jar = new Map<string, string>();
  let location = authorizationUrl;
  for (let hop = 0; hop < 10; hop += 1) {
    if (location.startsWith(returnTo)) return new URL(location);
    const response = await fetch(location, { redirect: 'manual', headers: { cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; ') } });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, ...value] = pair!.split('=');
      jar.set(name!.trim(), value.join('='));
    }
    const next = response.headers.get('location');
    if (!next) throw new Error(`the company IdP answered ${response.status} without a redirect: ${(await response.text()).slice(0, 300)}`);
    location = new URL(next, location).href;
  }
  throw new Error('too many redirects at the company IdP');
}
