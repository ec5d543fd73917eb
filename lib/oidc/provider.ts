// oidc-provider's configuration: an OAuth 2.1 / OpenID Connect profile. The issuer is the origin root (so both
// discovery documents sit at /.well-known/ where MCP clients look first) and endpoints live under /oidc/*.
import { randomBytes } from 'node:crypto';
import Provider, { errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { Database } from '../db/client';
import { isActiveMember } from '../accounts/memberships';
import { findUserById } from '../accounts/users';
import { findAppByIdentity, findAppByResource } from '../clients/apps';
import type { KeyMaterial } from './keys';
import { createAdapterClass } from './adapter';
import { applyProviderOverrides } from './provider-overrides';
import { logoutSource, postLogoutSuccessSource, renderError } from './provider-pages';
import { PORTICO_CLIENT_FIELDS } from '../clients/client-metadata';

export const OIDC_PREFIX = '/oidc';

export interface ProviderOptions {
  issuer: string;
  db: () => Database;
  keys: KeyMaterial;
  /** Behind a TLS-terminating proxy: trust X-Forwarded-* (Koa `proxy`). */
  trustProxy: boolean;
  secureCookies: boolean;
  refreshTokenReuseGraceSeconds: number;
}

/** Lifetimes in seconds. */
export const TOKEN_TTL = {
  AccessToken: 10 * 60,
  AuthorizationCode: 60,
  IdToken: 60 * 60,
  RefreshToken: 30 * 24 * 60 * 60,
  Interaction: 60 * 60,
  Session: 14 * 24 * 60 * 60,
  Grant: 30 * 24 * 60 * 60,
} as const;

export function interactionPath(uid: string): string {
  return `/auth/app/${uid}`;
}

export function createProvider(options: ProviderOptions): Provider {
  const cookieOptions = { httpOnly: true, sameSite: 'lax' as const, secure: options.secureCookies, signed: true };

  const configuration: Configuration = {
    adapter: createAdapterClass(options.db, {
      clientSecretPlaceholder: randomBytes(32).toString('base64url'),
      refreshTokenReuseGraceSeconds: options.refreshTokenReuseGraceSeconds,
    }),
    jwks: { keys: options.keys.signingKeys as NonNullable<Configuration['jwks']>['keys'] },
    cookies: { keys: options.keys.cookieKeys, long: cookieOptions, short: cookieOptions },
    routes: {
      authorization: `${OIDC_PREFIX}/auth`,
      backchannel_authentication: `${OIDC_PREFIX}/backchannel`,
      challenge: `${OIDC_PREFIX}/challenge`,
      code_verification: `${OIDC_PREFIX}/device`,
      device_authorization: `${OIDC_PREFIX}/device/auth`,
      end_session: `${OIDC_PREFIX}/session/end`,
      introspection: `${OIDC_PREFIX}/token/introspection`,
      jwks: `${OIDC_PREFIX}/jwks`,
      pushed_authorization_request: `${OIDC_PREFIX}/request`,
      registration: `${OIDC_PREFIX}/reg`,
      revocation: `${OIDC_PREFIX}/token/revocation`,
      token: `${OIDC_PREFIX}/token`,
      userinfo: `${OIDC_PREFIX}/me`,
    },
    // OAuth 2.1 §4.1: the authorization code grant only; no implicit or hybrid flows.
    responseTypes: ['code'],
    // OAuth 2.1 §4.1.1 / RFC 9700 §2.1.1: PKCE for every client, confidential ones included. S256 only.
    pkce: { required: () => true },
    clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'none'],
    // No HS* anywhere: client secrets are stored hashed, so they can never serve as symmetric keys.
    enabledJWA: {
      idTokenSigningAlgValues: ['ES256', 'RS256'],
      userinfoSigningAlgValues: ['ES256', 'RS256'],
      requestObjectSigningAlgValues: ['ES256', 'RS256', 'PS256', 'EdDSA'],
      clientAuthSigningAlgValues: ['ES256', 'RS256', 'PS256', 'EdDSA'],
      introspectionSigningAlgValues: ['ES256', 'RS256'],
      authorizationSigningAlgValues: ['ES256', 'RS256'],
    },
    scopes: ['openid', 'offline_access', 'email', 'profile'],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    extraClientMetadata: { properties: [...PORTICO_CLIENT_FIELDS] },
    // Registration is Portico's own endpoint (abuse limits before the body is read), announced here (RFC 8414 §2).
    discovery: { registration_endpoint: `${options.issuer}/oauth/register` },
    features: {
      devInteractions: { enabled: false },
      revocation: { enabled: true },
      rpInitiatedLogout: { enabled: true, logoutSource, postLogoutSuccessSource },
      // RFC 8707: an access token for an app is requested with resource=<origin>/api/mcp. It is a JWT whose audience
      // is the app's fixed identity, so no other app accepts it. Without a resource the access token is the opaque
      // one that only serves OIDC's userinfo endpoint.
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource, client) => appResourceServer(options.db(), resource, client),
      },
    },
    async extraTokenClaims(_ctx, token) {
      // RFC 9068 access tokens for an app: who asked (azp, kept for audit; the audience is the gate) and the org.
      if (token.kind !== 'AccessToken' || !('resourceServer' in token) || !token.resourceServer?.audience) return undefined;
      const app = await findAppByIdentity(options.db(), String(token.resourceServer.audience));
      return { azp: token.clientId, ...(app ? { org: app.orgId } : {}) };
    },
    // Refresh tokens rotate on every use (OAuth 2.1 §4.3.1, RFC 9700 §4.14.2).
    rotateRefreshToken: true,
    ttl: { ...TOKEN_TTL },
    interactions: { url: (_ctx, interaction) => interactionPath(interaction.uid) },
    renderError: renderError as Configuration['renderError'],
    loadExistingGrant,
    // Runs at sign-in, at every code exchange and refresh, and at userinfo: returning nothing ends the flow with
    // invalid_grant (or a new login), so a person who left the organization or was disabled is out at once.
    async findAccount(ctx, sub) {
      const user = await findUserById(options.db(), sub);
      if (!user || user.disabledAt) return undefined;
      const orgId = (ctx.oidc?.client as PorticoClient | undefined)?.portico_org_id;
      if (orgId && !(await isActiveMember(options.db(), orgId, user.id))) return undefined;
      return {
        accountId: user.id,
        async claims() {
          return { sub: user.id, email: user.email, email_verified: false, name: user.name };
        },
      };
    },
  };

  const provider = new Provider(options.issuer, configuration);
  provider.proxy = options.trustProxy;
  applyProviderOverrides(provider, options.db);
  return provider;
}

/**
 * An app's own client is first-party: signing in to the app is the consent, so the person is never asked again
 * (the consent step is for external and dynamically registered clients). Other clients use the grant the person
 * gave through the consent screen.
 */
async function loadExistingGrant(ctx: KoaContextWithOIDC) {
  const { client, session, provider, params } = ctx.oidc;
  if (!client || !session?.accountId) return undefined;
  const grantId = ctx.oidc.result?.consent?.grantId ?? session.grantIdFor(client.clientId);
  const existing = grantId ? await provider.Grant.find(grantId) : undefined;
  if ((client as unknown as PorticoClient).portico_kind !== 'app') return existing;

  const grant = existing ?? new provider.Grant({ clientId: client.clientId, accountId: session.accountId });
  if (typeof params?.scope === 'string') grant.addOIDCScope(params.scope);
  // The app's own resource, when asked for; getResourceServerInfo has already refused any other app's.
  for (const [resource, server] of Object.entries(ctx.oidc.resourceServers ?? {})) {
    grant.addResourceScope(resource, server.scope ?? '');
  }
  await grant.save();
  return grant;
}

type PorticoClient = { clientId: string; portico_kind?: string; portico_app_id?: string | null; portico_org_id?: string | null };

/** The scopes every app's resource knows. Team grants and app-declared scopes extend this in later issues. */
export const APP_RESOURCE_SCOPES = ['mcp'] as const;

/**
 * Resolves an RFC 8707 resource indicator to the app it names. An app's own client may only ask for its own app:
 * that is what keeps one app's client from obtaining access to another.
 */
async function appResourceServer(db: Database, resource: string, client: unknown) {
  const app = await findAppByResource(db, resource);
  const { portico_kind: kind, portico_app_id: clientAppId } = client as PorticoClient;
  if (!app || (kind === 'app' && app.id !== clientAppId)) {
    throw new errors.InvalidTarget('the resource does not name an application this client may access');
  }
  return {
    scope: APP_RESOURCE_SCOPES.join(' '),
    audience: app.identity,
    accessTokenTTL: TOKEN_TTL.AccessToken,
    accessTokenFormat: 'jwt' as const,
    jwt: { sign: { alg: 'ES256' as const } },
  };
}
