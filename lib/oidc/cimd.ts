// Client ID metadata documents (draft-ietf-oauth-client-id-metadata-document, MCP authorization 2025-11-25):
// oidc-provider's own feature fetches, caches and checks the document (its client_id must equal the URL exactly;
// no shared-secret auth). Portico adds its client policy on top, and fetches through its outbound guard
// (special-use addresses refused before connecting, 2.5 s, size caps).
import type { Configuration } from 'oidc-provider';
import { checkRegisteredRedirectUri, REGISTRABLE_GRANT_TYPES } from '../clients/registration';
import { outboundFetch } from '../http/outbound';
import { PORTICO_CLIENT_FIELDS } from '../clients/client-metadata';

type CimdFeature = NonNullable<NonNullable<Configuration['features']>['clientIdMetadataDocument']>;

/** Why a metadata document's client is refused; exported for tests and the error log. */
export function cimdPolicyViolation(client: Record<string, unknown>): string | undefined {
  // Portico's own fields are Portico's to set, never a document's.
  for (const field of PORTICO_CLIENT_FIELDS) {
    if (client[field] !== undefined && client[field] !== null) return `${field} is not client metadata`;
  }
  if (client.tokenEndpointAuthMethod !== 'none') return 'token_endpoint_auth_method must be "none": CIMD clients are public and use PKCE';
  const uris = client.redirectUris;
  if (!Array.isArray(uris) || uris.length === 0) return 'redirect_uris must be a non-empty array';
  if (uris.length > 10) return 'at most 10 redirect_uris';
  for (const uri of uris) {
    const problem = checkRegisteredRedirectUri(uri);
    if (problem) return problem;
  }
  const grants = client.grantTypes;
  if (Array.isArray(grants) && !grants.every((grant) => REGISTRABLE_GRANT_TYPES.includes(grant))) {
    return `grant_types may contain only ${REGISTRABLE_GRANT_TYPES.map((grant) => `"${String(grant)}"`).join(', ')}`;
  }
  return undefined;
}

/**
 * The installation's trust policy for metadata documents (PORTICO_CIMD_ALLOWED_HOSTS, PORTICO_CIMD_BLOCKED_HOSTS):
 * host patterns, `example.com` for that host and `*.example.com` for its subdomains. A blocked host is refused even
 * when allowed; an empty allow list allows every host not blocked.
 */
export interface CimdHostPolicy {
  allowed: readonly string[];
  blocked: readonly string[];
}

const hostMatches = (host: string, pattern: string) => (pattern.startsWith('*.') ? host.endsWith(pattern.slice(1)) && host.length > pattern.length - 1 : host === pattern);

/** Whether a client_id URL's host may serve a metadata document here. */
export function cimdHostAllowed(clientId: string, policy: CimdHostPolicy): boolean {
  let host: string;
  try {
    // A fully qualified name's trailing dot names the same host: it must not slip past a pattern.
    host = new URL(clientId).hostname.toLowerCase().replace(/\.+$/, '');
  } catch {
    return false;
  }
  if (policy.blocked.some((pattern) => hostMatches(host, pattern))) return false;
  return policy.allowed.length === 0 || policy.allowed.some((pattern) => hostMatches(host, pattern));
}

export function cimdConfiguration(hosts: CimdHostPolicy = { allowed: [], blocked: [] }): CimdFeature {
  return {
    enabled: true,
    ack: 'draft-02',
    // The installation's host policy, before anything is fetched (MCP authorization 2026-07-28: servers decide which
    // document hosts they trust).
    async allowFetch(_ctx, clientId) {
      return cimdHostAllowed(clientId, hosts);
    },
    // Same rules as dynamic registration: the document may not make the client confidential, claim Portico's own
    // fields, or redirect anywhere RFC 8252 would not allow. The host policy again: a cached document skips allowFetch.
    async allowClient(_ctx, client) {
      return cimdHostAllowed(client.clientId, hosts) && cimdPolicyViolation(client as unknown as Record<string, unknown>) === undefined;
    },
    // Cache within bounds whatever the document's Cache-Control says: at least a minute, at most a day.
    cacheDuration: { min: 60, max: 24 * 60 * 60 },
  } as CimdFeature;
}

/**
 * oidc-provider's outgoing fetch (client ID metadata documents, and any jwks_uri or sector_identifier_uri): through
 * Portico's outbound guard (lib/http/outbound.ts), which checks the address before it connects. oidc-provider's own
 * dispatcher, which acts only once connected, is set aside.
 */
export function cimdFetch({ allowLoopback }: { allowLoopback: boolean }): NonNullable<Configuration['fetch']> {
  const guarded = outboundFetch({ allowLoopback }, { timeoutMs: 2500, maxBytes: 64 * 1024 });
  return (url, options) => {
    const { dispatcher: _setAside, ...rest } = options as RequestInit & { dispatcher?: unknown };
    return guarded(url, rest);
  };
}
