// oidc-provider's configuration: an OAuth 2.1 / OpenID Connect profile. The issuer is the origin root (so both
// discovery documents sit at /.well-known/ where MCP clients look first) and endpoints live under /oidc/*.
import { supportedLocales } from '../i18n/catalogs';
import { clientPolicyOf, isNativeAppClient, isPublicAppClient, pkceRequired } from './client-policy';
import { createHmac, randomBytes } from 'node:crypto';
import Provider, { interactionPolicy, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { Database } from '../db/client';
import { findAccountInOrganization } from '../organizations/memberships';
import { isUuid } from '../util/uuid';
import { findUsableAgent } from '../organizations/agents';
import { findAppByIdentity, findAppByResource } from '../clients/apps';
import { cimdConfiguration, cimdFetch, type CimdHostPolicy } from './cimd';
import { interactionPath } from './interactions';
import { exchangedClaimsOf, porticoInternalClient, registerAgentTokenExchange } from './agent-token-exchange';
import { publicJwksOf } from './keys';
import { recordClientUse } from './client-use';
import { exchangeIdJag, ID_JAG_GRANT_PROFILE, ID_JAG_TOKEN_TYPE, issueIdJag, type IdJagDeps } from './id-jag';
import { exchangeWorkloadToken, registerClientCredentialsGrant, WORKLOAD_CLIENT_ID, workloadFederationClient, type WorkloadGrantDeps } from './workload-grants';
import { JWT_BEARER_GRANT_TYPE } from '../clients/client-metadata';
import { porticoApiResource } from '../resource/portico-api';
import {
  exchangedGrantId,
  getResourceServer,
  grantBindingFor,
  type PorticoClient,
} from './resource-servers';
import type { KeyMaterial } from './keys';
import { createAdapterClass } from './adapter';
import { PUBLIC_APP_REFRESH_TOKEN_TTL_SECONDS, TOKEN_TTL } from './token-ttl';
import { applyProviderOverrides } from './provider-overrides';
import { OIDC_SCOPES } from './resource-scope';
import { ACR_MFA, ACR_PASSWORD, requestsMfa } from '../accounts/sign-in-second-step';
import { secondFactorRequired } from '../accounts/factors/second-factor-policy';
import { logoutSource, postLogoutSuccessSource, renderError } from './provider-pages';
import { PORTICO_CLIENT_FIELDS } from '../clients/client-metadata';
import { richAuthorizationRequestsConfiguration } from './authorization-details';
import { backchannelRequestTtl, cibaConfiguration } from './ciba';
import { announcePollInterval, DEVICE_CODE_TTL_SECONDS, deviceFlowConfiguration, limitUserCodeEntries } from './device-flow';
import type { AllowedNetworks } from '../http/outbound';

export const OIDC_PREFIX = '/oidc';

export interface ProviderOptions {
  issuer: string;
  db: () => Database;
  keys: KeyMaterial;
  /** Behind a TLS-terminating proxy: trust X-Forwarded-* (Koa `proxy`). */
  trustProxy: boolean;
  secureCookies: boolean;
  refreshTokenReuseGraceSeconds: number;
  /** Development and tests only (PORTICO_OUTBOUND_ALLOW_LOOPBACK): outbound fetches may reach loopback hosts. */
  outboundAllowLoopback?: boolean;
  /** PORTICO_OUTBOUND_ALLOWED_NETWORKS: ID-JAG key fetches may reach them (CIMD fetches never do). */
  outboundAllowedNetworks?: AllowedNetworks;
  /** Which hosts may serve client ID metadata documents (PORTICO_CIMD_ALLOWED_HOSTS / _BLOCKED_HOSTS). */
  cimdHosts?: CimdHostPolicy;
  /** Seals what must not be readable from the database alone (a CIBA request's id, lib/oidc/ciba.ts). */
  atRestKey: Uint8Array;
  /** The least number of seconds between two polls of a CIBA or device request (PORTICO_POLL_INTERVAL_SECONDS). */
  pollIntervalSeconds?: number;
}

/** RFC 8628 §3.2 / CIBA Core §7.3: the default least interval between polls. */
export const DEFAULT_POLL_INTERVAL_SECONDS = 5;

export { TOKEN_TTL };

export function createProvider(options: ProviderOptions): Provider {
  const cookieOptions = { httpOnly: true, sameSite: 'lax' as const, secure: options.secureCookies, signed: true };

  const configuration: Configuration = {
    adapter: createAdapterClass(options.db, {
      clientSecretPlaceholder: randomBytes(32).toString('base64url'),
      refreshTokenReuseGraceSeconds: options.refreshTokenReuseGraceSeconds,
      referenceKey: createHmac('sha256', options.atRestKey).update('portico adapter references').digest(),
      outbound: { allowLoopback: options.outboundAllowLoopback ?? false, allowedNetworks: options.outboundAllowedNetworks },
    }),
    jwks: { keys: options.keys.signingKeys as NonNullable<Configuration['jwks']>['keys'] },
    // Portico's own components (own-mode agent tokens, lib/oidc/agent-token-exchange.ts): no secret, Portico's key.
    // Workloads presenting their own JWT (lib/oidc/workload-grants.ts): public, the assertion is the credential.
    clients: [porticoInternalClient(publicJwksOf(options.keys)), workloadFederationClient()],
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
    // OAuth 2.1 §4.1.1 / RFC 9700 §2.1.1: PKCE for every client, confidential ones included, S256 only — except an app
    // that lets a nonce stand in for it (off by default; lib/oidc/client-policy.ts pkceRequired says exactly when).
    pkce: { required: (ctx, client) => pkceRequired(client, ctx.oidc.params ?? {}) },
    // private_key_jwt serves Portico's own components (portico-internal, signed with Portico's key) and agents' own
    // clients (their public keys, lib/clients/agent-clients.ts); registration and CIMD never let another client choose it.
    clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'none', 'private_key_jwt'],
    // No HS* anywhere: client secrets are stored hashed, so they can never serve as symmetric keys.
    enabledJWA: {
      idTokenSigningAlgValues: ['ES256', 'RS256'],
      userinfoSigningAlgValues: ['ES256', 'RS256'],
      requestObjectSigningAlgValues: ['ES256', 'RS256', 'PS256', 'EdDSA'],
      clientAuthSigningAlgValues: ['ES256', 'RS256', 'PS256', 'EdDSA'],
      introspectionSigningAlgValues: ['ES256', 'RS256'],
      authorizationSigningAlgValues: ['ES256', 'RS256'],
    },
    scopes: OIDC_SCOPES,
    // OpenID Connect Core §2 `acr`: a password alone, or a password and a second factor (RFC 8176 `amr` says which).
    acrValues: [ACR_PASSWORD, ACR_MFA],
    // acr and amr (RFC 8176) travel with openid: how the person signed in, in every ID token.
    claims: { openid: ['sub', 'acr', 'amr'], email: ['email', 'email_verified'], profile: ['name', 'given_name', 'family_name'] },
    // The claims of the granted scopes go into the ID token as well as userinfo. OpenID Connect Core §5.4 returns them
    // from userinfo when an access token is issued, and oidc-provider's default conforms to that; but relying parties
    // read the ID token (Auth.js's default profile, express-openid-connect's req.oidc.user, passport's strategies), so a
    // person signed in through them had no email or name. Auth0, Keycloak and Google put them in both.
    conformIdTokenClaims: false,
    extraClientMetadata: { properties: [...PORTICO_CLIENT_FIELDS] },
    // Registration is Portico's own endpoint (abuse limits before the body is read), announced here (RFC 8414 §2).
    // ui_locales_supported (OpenID Connect Discovery §3): the languages of the sign-in card and consent, one per
    // catalog in messages/ (a request's ui_locales picks among them, lib/i18n/negotiate.ts).
    // draft-ietf-oauth-identity-assertion-authz-grant §7: Portico accepts ID-JAGs for its apps (the jwt-bearer grant,
    // listed in grant_types_supported by oidc-provider) and issues them (token exchange, lib/oidc/id-jag.ts).
    discovery: {
      registration_endpoint: `${options.issuer}/oauth/register`,
      ui_locales_supported: [...supportedLocales()],
      authorization_grant_profiles_supported: [ID_JAG_GRANT_PROFILE],
      identity_chaining_requested_token_types_supported: [ID_JAG_TOKEN_TYPE],
    },
    features: {
      devInteractions: { enabled: false },
      revocation: { enabled: true },
      rpInitiatedLogout: { enabled: true, logoutSource, postLogoutSuccessSource },
      // OpenID Connect Back-Channel Logout 1.0: clients may register a backchannel_logout_uri; every ending of a
      // session or grant they were signed in through is queued for them (deviation 8, lib/grants/logout-notices.ts).
      backchannelLogout: { enabled: true },
      // RFC 8707: an access token for an app is requested with resource=<origin>/api/mcp. It is a JWT whose audience
      // is the app's fixed identity, so no other app accepts it. Without a resource the access token is the opaque
      // one that only serves OIDC's userinfo endpoint.
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined,
        useGrantedResource: () => true,
        getResourceServerInfo: (ctx, resource, client) => getResourceServer(options.db(), options.issuer, ctx, resource, client),
      },
      // Client ID metadata documents (MCP 2025-11-25): a client_id that is an https URL names its own metadata.
      clientIdMetadataDocument: cimdConfiguration(options.cimdHosts),
      // CIBA (poll mode) with rich authorization details: an app's backend asks a person to approve one action.
      ciba: cibaConfiguration({
        db: options.db,
        issuer: options.issuer,
        atRestKey: options.atRestKey,
        pollIntervalSeconds: options.pollIntervalSeconds ?? DEFAULT_POLL_INTERVAL_SECONDS,
      }),
      richAuthorizationRequests: richAuthorizationRequestsConfiguration(),
      // RFC 8628: headless clients that registered the device grant sign people in through /oidc/device.
      deviceFlow: deviceFlowConfiguration(options.db),
    },
    fetch: cimdFetch({ allowLoopback: options.outboundAllowLoopback ?? false }),
    fetchResponseBodyLimits: { 'client_id metadata document': 16 * 1024, jwks_uri: 64 * 1024, sector_identifier_uri: 16 * 1024 },
    /**
     * MCP clients (external, dynamic, CIMD) get a rotating refresh token whenever they registered the grant type
     * (OAuth 2.1 §4.3.1: public clients' refresh tokens rotate). An app's own client asks for one with
     * offline_access, as OpenID Connect has it.
     */
    async issueRefreshToken(_ctx, client, code) {
      if (!client.grantTypeAllowed('refresh_token')) return false;
      // A CIBA approval is for one described action: its token is not renewed.
      if (code.kind === 'BackchannelAuthenticationRequest') return false;
      return clientPolicyOf(client)?.issuesRefreshToken(code.scopes.has('offline_access')) ?? false;
    },
    async extraTokenClaims(ctx, token) {
      // RFC 9068 access tokens for an app: who asked (azp, kept for audit; the audience is the gate), the org, and
      // for a consent that named an agent, that agent as the actor (RFC 8693 §4.1 `act`); the subject stays the
      // person, whose permissions the token carries.
      if (token.kind !== 'AccessToken' || !('resourceServer' in token) || !token.resourceServer?.audience) return undefined;
      const exchanged = exchangedClaimsOf(token);
      if (exchanged) return { azp: token.clientId, ...exchanged };
      const grantId = 'grantId' in token ? (token.grantId as string | undefined) : undefined;
      if (clientPolicyOf(ctx.oidc.client)?.extraClaimsFrom === 'grant_binding' && grantId) {
        const binding = await grantBindingFor(options.db(), ctx, grantId);
        if (!binding) return undefined;
        return { azp: token.clientId, ...(binding.orgId ? { org: binding.orgId } : {}), ...(binding.agentId ? { act: { sub: binding.agentId } } : {}) };
      }
      const app = await findAppByIdentity(options.db(), String(token.resourceServer.audience));
      return { azp: token.clientId, ...(app ? { org: app.orgId } : {}) };
    },
    // Refresh tokens rotate on every use (OAuth 2.1 §4.3.1, RFC 9700 §4.14.2).
    // Cross-origin calls from a browser (the Fetch standard's CORS), decided here rather than left to oidc-provider's
    // default: a public client (a single-page app, an MCP client in a browser) may call the token, revocation and
    // userinfo endpoints from its redirect URIs' origins; a confidential client only userinfo, from the same (its
    // secret stays on a server). A private-use scheme's "null" origin never.
    clientBasedCORS: (ctx, origin, client) => {
      if (origin === 'null') return false;
      if (ctx.oidc.route !== 'userinfo' && client.clientAuthMethod !== 'none') return false;
      return (client.redirectUris ?? []).some((uri) => URL.parse(uri)?.origin === origin);
    },
    rotateRefreshToken: true,
    ttl: {
      ...TOKEN_TTL,
      RefreshToken: (_ctx, _token, client) => (isPublicAppClient(client) ? PUBLIC_APP_REFRESH_TOKEN_TTL_SECONDS : TOKEN_TTL.RefreshToken),
      BackchannelAuthenticationRequest: (ctx) => backchannelRequestTtl(ctx),
      DeviceCode: DEVICE_CODE_TTL_SECONDS,
    },
    interactions: { url: (_ctx, interaction) => interactionPath(interaction.uid), policy: interactionPolicyWithMcpConsent(options) },
    renderError: renderError as Configuration['renderError'],
    loadExistingGrant,
    // Runs at sign-in, at every code exchange and refresh, and at userinfo: returning nothing ends the flow with
    // invalid_grant (or a new login), so a person who left the organization or was disabled is out at once.
    async findAccount(ctx, sub, token) {
      // Ids come from tokens: anything that is not a UUID cannot name a person (and must not reach a uuid column).
      if (!isUuid(sub)) return undefined;
      // Which organization the request belongs to comes first (from the client, or the grant's binding), so that the
      // person and their membership there are read in one statement.
      const org = await organizationOfRequest(options.db(), options.issuer, ctx, sub, token);
      if (org.refuse) return undefined;
      const account = await findAccountInOrganization(options.db(), sub, org.id);
      if (!account || account.user.disabledAt || !account.member) return undefined;
      const { user } = account;
      return {
        accountId: user.id,
        async claims() {
          // OIDC Core §5.1: true only when the person proved the address (an invitation, a verification or reset link).
          // given_name / family_name (§5.1) only when a directory gave them (SCIM name.givenName / familyName).
          return {
            sub: user.id,
            email: user.email,
            email_verified: user.emailVerifiedAt !== null,
            name: user.name,
            ...(user.givenName ? { given_name: user.givenName } : {}),
            ...(user.familyName ? { family_name: user.familyName } : {}),
          };
        },
      };
    },
  };

  const provider = new Provider(options.issuer, configuration);
  provider.proxy = options.trustProxy;
  applyProviderOverrides(provider, options.db, { pollIntervalSeconds: options.pollIntervalSeconds ?? DEFAULT_POLL_INTERVAL_SECONDS });
  const idJag: IdJagDeps = {
    issuer: options.issuer,
    db: options.db,
    signingKeys: options.keys.signingKeys,
    publicJwks: publicJwksOf(options.keys),
    outbound: { allowLoopback: options.outboundAllowLoopback ?? false, allowedNetworks: options.outboundAllowedNetworks },
  };
  registerAgentTokenExchange(provider, options.db, (ctx) => issueIdJag(ctx, idJag));
  const workload: WorkloadGrantDeps = { issuer: options.issuer, db: options.db, outbound: idJag.outbound };
  // RFC 7523 §2.1's jwt-bearer grant serves two profiles, told apart by the client: a workload's own JWT through
  // `portico-workload` (SEP-1933), an ID-JAG through any other client allowed the grant.
  provider.registerGrantType(
    JWT_BEARER_GRANT_TYPE,
    (ctx) => (ctx.oidc.client?.clientId === WORKLOAD_CLIENT_ID ? exchangeWorkloadToken(provider, ctx, workload) : exchangeIdJag(provider, ctx, idJag)),
    new Set(['assertion', 'resource', 'scope']),
  );
  registerClientCredentialsGrant(provider, workload);
  limitUserCodeEntries(provider, options.db);
  recordClientUse(provider, options.db);
  announcePollInterval(provider, options.pollIntervalSeconds ?? DEFAULT_POLL_INTERVAL_SECONDS);
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
  if (!clientPolicyOf(client)?.firstParty) {
    // Every authorization of an MCP client is consented to anew (who acts may differ): only the grant this very
    // interaction's consent created counts, never one remembered in the session.
    const consented = ctx.oidc.result?.consent?.grantId;
    return consented ? provider.Grant.find(consented) : undefined;
  }
  const existing = grantId ? await provider.Grant.find(grantId) : undefined;

  const grant = existing ?? new provider.Grant({ clientId: client.clientId, accountId: session.accountId });
  if (typeof params?.scope === 'string') grant.addOIDCScope(params.scope);
  // The app's own resource, when asked for, with its whole catalog (getResourceServerInfo has already refused any
  // other app's): what a token carries of it is decided at issuance (lib/oidc/resource-scope.ts).
  for (const [resource, server] of Object.entries(ctx.oidc.resourceServers ?? {})) {
    grant.addResourceScope(resource, server.scope ?? '');
  }
  await grant.save();
  return grant;
}

/**
 * The organization a person must belong to for this request. An app's own client: its org. Any other client
 * (external, dynamic, CIMD): with a grant (code exchange, refresh, userinfo), the grant's binding decides — no
 * binding, or a named agent the person may no longer use, refuses the request; at authorization, the org of the app
 * the resource names (the consent then checks everything again).
 */
async function organizationOfRequest(db: Database, issuer: string, ctx: KoaContextWithOIDC, accountId: string, token: unknown): Promise<{ id?: string; refuse?: true }> {
  const client = ctx.oidc?.client as PorticoClient | undefined;
  const policy = clientPolicyOf(client);
  if (!policy) return {};
  // A disabled app (apps.disabled_at): nobody signs in to it, and no code, refresh or userinfo succeeds for it.
  if (policy.organizationFrom === 'client') return client?.portico_app_disabled ? { refuse: true } : { id: client?.portico_org_id ?? undefined };
  const grantId = (token as { grantId?: string } | undefined)?.grantId ?? (ctx.oidc?.route === 'token' ? exchangedGrantId(ctx) : undefined);
  if (grantId) {
    const binding = await grantBindingFor(db, ctx, grantId);
    if (!binding || binding.appDisabled) return { refuse: true };
    // The agent a binding names must still be one this person may use there (enabled, same org, still shared).
    if (binding.agentId && (!binding.orgId || !(await findUsableAgent(db, binding.orgId, accountId, binding.agentId)))) return { refuse: true };
    // A binding to Portico's own API has no organization: the API authorizes each request by role instead.
    return { id: binding.orgId ?? undefined };
  }
  if (client?.portico_org_id) return { id: client.portico_org_id };
  const resource = ctx.oidc?.params?.resource;
  if (resource === porticoApiResource(issuer)) return {};
  const app = typeof resource === 'string' ? await findAppByResource(db, resource) : undefined;
  if (app?.disabledAt) return { refuse: true };
  return app ? { id: app.orgId } : {};
}

/**
 * oidc-provider's default prompts (max_age among them: an older sign-in, or max_age=0, signs in again), plus two login
 * rules (acr_values, the organization's second-factor policy), and one consent rule: an MCP client (external, dynamic, CIMD) always goes through the
 * consent screen, because the consent is where the person says who acts and where the grant is bound to its app.
 * The defaults would not always ask (a request naming none of the app's permissions has no missing resource scope);
 * this makes it true by construction. A grant without a binding is refused at the token
 * endpoint in any case.
 */
function interactionPolicyWithMcpConsent(options: Pick<ProviderOptions, 'db' | 'issuer'>) {
  const policy = interactionPolicy.base();
  // A disabled app: even a signed-in browser goes to the sign-in screen, which says the app is turned off (instead of
  // a code the token endpoint would refuse).
  policy.get('login')?.checks.add(
    new interactionPolicy.Check('app_disabled', 'The app is disabled', async (ctx) => {
      const accountId = ctx.oidc.session?.accountId;
      if (!accountId) return interactionPolicy.Check.NO_NEED_TO_PROMPT;
      return (await organizationOfRequest(options.db(), options.issuer, ctx, accountId, undefined)).refuse ? interactionPolicy.Check.REQUEST_PROMPT : interactionPolicy.Check.NO_NEED_TO_PROMPT;
    }),
  );
  // The organization's second-factor policy holds for an existing session too: a person it names, signed in with a
  // password alone (for another organization's app, or before the policy), signs in again for this one.
  policy.get('login')?.checks.add(
    new interactionPolicy.Check('organization_requires_mfa', 'The organization requires a second factor', async (ctx) => {
      const session = ctx.oidc.session;
      if (!session?.accountId || session.acr === ACR_MFA) return interactionPolicy.Check.NO_NEED_TO_PROMPT;
      const org = await organizationOfRequest(options.db(), options.issuer, ctx, session.accountId, undefined);
      return (await secondFactorRequired(options.db(), session.accountId, org.id)) ? interactionPolicy.Check.REQUEST_PROMPT : interactionPolicy.Check.NO_NEED_TO_PROMPT;
    }),
  );
  // acr_values naming the MFA level (OIDC Core §3.1.2.1): a session signed in with a password alone signs in again,
  // with a second factor (or sets one up first). oidc-provider treats acr_values as voluntary; Portico honours it.
  policy.get('login')?.checks.add(
    new interactionPolicy.Check('acr_values_mfa', 'The application asked for a second factor', (ctx) =>
      requestsMfa(ctx.oidc.params ?? {}) && ctx.oidc.session?.acr !== ACR_MFA ? interactionPolicy.Check.REQUEST_PROMPT : interactionPolicy.Check.NO_NEED_TO_PROMPT,
    ),
  );
  // RFC 8252 §8.6: a native app's identity cannot be assured (any program on the device may claim its private-use
  // scheme or listen on loopback), so its authorization requests are never completed from an existing session alone:
  // the person signs in on the card each time (as max_age=0 would ask), and prompt=none gets login_required. Its
  // refresh tokens keep the app signed in between. Single-page apps return to https origins that identify them.
  policy.get('login')?.checks.add(
    new interactionPolicy.Check('native_app_interaction', 'A native app needs the person to sign in', 'login_required', (ctx) =>
      isNativeAppClient(ctx.oidc.client) && !ctx.oidc.result?.login ? interactionPolicy.Check.REQUEST_PROMPT : interactionPolicy.Check.NO_NEED_TO_PROMPT,
    ),
  );
  policy.get('consent')?.checks.add(
    new interactionPolicy.Check('mcp_client_consent', 'MCP clients need the consent screen', (ctx) =>
      !clientPolicyOf(ctx.oidc.client)?.firstParty && !ctx.oidc.result?.consent ? interactionPolicy.Check.REQUEST_PROMPT : interactionPolicy.Check.NO_NEED_TO_PROMPT,
    ),
  );
  return policy;
}
