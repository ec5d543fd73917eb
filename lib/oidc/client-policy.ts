// The kinds of OAuth client Portico knows, as one table. Every rule that differs between "an app's own client" and
// "an MCP client" (external, dynamically registered, or a client ID metadata document) reads its entry here instead
// of branching on the kind where it is needed.
//
// | kind     | who made it                               | serves                  | organization from | grant            | refresh token        | resource server | extra claims     |
// |----------|-------------------------------------------|-------------------------|-------------------|------------------|----------------------|-----------------|------------------|
// | app      | an admin, with the app (confidential)     | its own app             | the client        | remembered, kept | with offline_access  | resolved        | org of the app   |
// | external | an admin, for one app (public)            | that one app            | the grant binding | consented now    | when registered      | bound at consent| org, act         |
// | dynamic  | the client itself, RFC 7591 (public)      | any app, or Portico     | the grant binding | consented now    | when registered      | bound at consent| org, act         |
// | cimd     | the client's metadata document (public)   | any app, or Portico     | the grant binding | consented now    | when registered      | bound at consent| org, act         |
// | agent    | an admin, with an agent's key (confidential, private_key_jwt) | the apps the agent connects to as itself | the agent | none: client credentials | never | the request's resource | org |
/** Every kind of OAuth client Portico knows (the `kind` column of `clients`; `agent` is an agent's own, lib/clients/agent-clients.ts). */
export type ClientKind = 'app' | 'external' | 'dynamic' | 'cimd' | 'agent';

export interface ClientPolicy {
  kind: ClientKind;
  /** First-party: signing in is the consent, the grant the session remembers is reused and extended. */
  firstParty: boolean;
  /** The client exists for one app (`portico_app_id`): a resource must name that app. */
  servesOneApp: boolean;
  /** The client may name Portico's own API as its resource (MCP clients that bound themselves). */
  mayReachPorticoApi: boolean;
  /** Where the organization a person must belong to comes from: the client's own, or the grant's binding. */
  organizationFrom: 'client' | 'grant_binding';
  /** Which resource server a token request gets: resolved from the request, or the one bound at consent. */
  resourceServerFrom: 'request' | 'grant_binding';
  /** Extra access-token claims: `org` of the audience's app, or `org` and `act` from the grant's binding. */
  extraClaimsFrom: 'audience_app' | 'grant_binding';
  /** Whether a refresh token is issued, given the grant type is registered and whether offline_access was asked. */
  issuesRefreshToken(offlineAccessAsked: boolean): boolean;
  /** Revoking it at an app: not possible (the app's own), the client itself (external), or its link (others). */
  revocationAtApp: 'not_applicable' | 'client' | 'link';
  /** Its app may let a nonce stand in for PKCE (see pkceRequired): only a confidential client an admin made. */
  nonceMayReplacePkce: boolean;
}

const MCP_CLIENT = {
  firstParty: false,
  organizationFrom: 'grant_binding',
  resourceServerFrom: 'grant_binding',
  extraClaimsFrom: 'grant_binding',
  // OAuth 2.1 §4.3.1: a public client's refresh token rotates; it gets one whenever it registered the grant type.
  issuesRefreshToken: () => true,
  nonceMayReplacePkce: false,
} as const;

export const CLIENT_POLICIES: Readonly<Record<ClientKind, ClientPolicy>> = {
  app: {
    kind: 'app',
    firstParty: true,
    servesOneApp: true,
    mayReachPorticoApi: false,
    organizationFrom: 'client',
    resourceServerFrom: 'request',
    extraClaimsFrom: 'audience_app',
    // OpenID Connect: an app's own client asks for offline access.
    issuesRefreshToken: (offlineAccessAsked) => offlineAccessAsked,
    revocationAtApp: 'not_applicable',
    nonceMayReplacePkce: true,
  },
  external: { kind: 'external', ...MCP_CLIENT, servesOneApp: true, mayReachPorticoApi: false, revocationAtApp: 'client' },
  dynamic: { kind: 'dynamic', ...MCP_CLIENT, servesOneApp: false, mayReachPorticoApi: true, revocationAtApp: 'link' },
  cimd: { kind: 'cimd', ...MCP_CLIENT, servesOneApp: false, mayReachPorticoApi: true, revocationAtApp: 'link' },
  // An agent acting as itself (own mode) by the client-credentials grant: no person, no consent, no refresh token
  // (it asks again with a new assertion), one app per token by `resource` (lib/oidc/workload-grants.ts).
  agent: {
    kind: 'agent',
    firstParty: false,
    servesOneApp: false,
    mayReachPorticoApi: false,
    organizationFrom: 'client',
    resourceServerFrom: 'request',
    extraClaimsFrom: 'audience_app',
    issuesRefreshToken: () => false,
    revocationAtApp: 'not_applicable',
    nonceMayReplacePkce: false,
  },
};

/** The kind of an oidc-provider client (or of a stored client row's kind), from Portico's metadata. */
export function clientKindOf(client: unknown): ClientKind | undefined {
  const { portico_kind: kind, clientIdMetadataDocument } = (client ?? {}) as { portico_kind?: ClientKind; clientIdMetadataDocument?: boolean };
  // The CIMD marker first: a metadata document is written by the client and could claim any portico_kind.
  if (clientIdMetadataDocument) return 'cimd';
  return kind && Object.hasOwn(CLIENT_POLICIES, kind) ? kind : undefined;
}

/** The policy of an oidc-provider client; undefined for a client Portico does not know (no kind). */
export function clientPolicyOf(client: unknown): ClientPolicy | undefined {
  const kind = clientKindOf(client);
  return kind ? CLIENT_POLICIES[kind] : undefined;
}

/** The policy of a client kind read from Portico's own tables. */
export function policyOfKind(kind: ClientKind): ClientPolicy {
  return CLIENT_POLICIES[kind];
}

/** The client metadata field an app's own client carries when its app lets a nonce stand in for PKCE. */
export const NONCE_WITHOUT_PKCE_FIELD = 'portico_nonce_without_pkce';

/** How the client authenticates at the token endpoint: oidc-provider's client, or its metadata as stored. */
function authMethodOf(client: unknown): string | undefined {
  const metadata = (client ?? {}) as { clientAuthMethod?: string; tokenEndpointAuthMethod?: string };
  return metadata.clientAuthMethod ?? metadata.tokenEndpointAuthMethod;
}

/** An app's own client that is public: a single-page or native app's (no secret; lib/clients/apps.ts APP_PROFILES). */
export function isPublicAppClient(client: unknown): boolean {
  return clientKindOf(client) === 'app' && authMethodOf(client) === 'none';
}

/**
 * Whether an authorization request must carry PKCE (S256). OAuth 2.1 §4.1.1 and RFC 9700 §2.1.1: always, except that
 * a confidential OpenID Connect client may rely on `nonce` instead, which binds the code to the ID token it redeems
 * for. Portico makes that exception only for an app's own (confidential) client whose app turned it on — off by
 * default, for relying parties that send a nonce but no PKCE (passport-openidconnect) — and only for a request that is
 * OpenID Connect and carries a nonce. Public clients and MCP clients always need PKCE; so does a request without a
 * nonce, whatever the app allows.
 */
export function pkceRequired(client: unknown, params: { scope?: unknown; nonce?: unknown }): boolean {
  const policy = clientPolicyOf(client);
  const allowed = policy?.nonceMayReplacePkce === true && authMethodOf(client) !== 'none' && (client as { [NONCE_WITHOUT_PKCE_FIELD]?: unknown } | undefined)?.[NONCE_WITHOUT_PKCE_FIELD] === true;
  const openIdWithNonce = typeof params.scope === 'string' && params.scope.split(' ').includes('openid') && typeof params.nonce === 'string' && params.nonce.length > 0;
  return !(allowed && openIdWithNonce);
}

/** An app's own client registered as a native app (public, `application_type: native`; lib/clients/apps.ts). */
export function isNativeAppClient(client: unknown): boolean {
  return isPublicAppClient(client) && (client as { applicationType?: string }).applicationType === 'native';
}
