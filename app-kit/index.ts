// Portico's app kit: what a published app needs to protect its `/api/mcp` with Portico access tokens.
//
// This first part covers the protected-resource side (RFC 9728 metadata, RFC 6750/9728 challenges, token
// verification with the audience fixed to the app's own identity). It depends on nothing of Portico but
// lib/resource, the same code Portico's own API runs. See app-kit/README.md.
import {
  authorizeBearer,
  protectedResourceMetadata,
  protectedResourceMetadataUrl,
  remoteKeys,
  type ProtectedResourceConfig,
  type ResourceAuthorization,
  type VerifiedAccessToken,
} from '../lib/resource/protected-resource';

export type { ResourceAuthorization, VerifiedAccessToken };

/**
 * The contract between the kit and Portico. Portico states the version it expects (lib/clients/app-environment.ts)
 * and a test compares the two, so they cannot drift apart silently.
 */
export const APP_KIT_CONTRACT_VERSION = 6;

/** The identity variables Portico gives each app (the console shows them once, at creation). */
export interface AppIdentity {
  /** PORTICO_ISSUER */
  issuer: string;
  /** PORTICO_APP_IDENTITY: the audience every token for this app carries. Never taken from a token. */
  appIdentity: string;
  /** The app's own origin: its MCP endpoint is `<origin>/api/mcp`, the resource clients name. */
  origin: string;
  /** The scopes the app's tools need; `mcp` is the baseline every member's token carries. */
  scopesSupported?: readonly string[];
  resourceName?: string;
}

export interface AppKit {
  /** The resource identifier (RFC 8707) of the app's MCP endpoint. */
  resource: string;
  /** The paths at which the metadata must be served (path-suffixed and root form, RFC 9728 §3). */
  metadataPaths: readonly string[];
  /** The RFC 9728 metadata response. */
  protectedResourceMetadata(): Response;
  /**
   * The gate in front of `/api/mcp`: a verified token, or the 401/403 response to send (with the challenge naming
   * the metadata and the scope needed). `azp` is reported for audit and never decides anything.
   */
  authorize(request: Request, requiredScopes?: readonly string[]): Promise<ResourceAuthorization>;
}

export function createAppKit(identity: AppIdentity): AppKit {
  const origin = new URL(identity.origin).origin;
  const config: ProtectedResourceConfig = {
    resource: `${origin}/api/mcp`,
    issuer: identity.issuer,
    audience: identity.appIdentity,
    scopesSupported: identity.scopesSupported ?? ['mcp'],
    resourceName: identity.resourceName,
  };
  // Portico's JWKS, fetched once and cached; an unknown `kid` refetches it (rate-limited by jose).
  const keys = remoteKeys(identity.issuer);
  return {
    resource: config.resource,
    metadataPaths: [new URL(protectedResourceMetadataUrl(config.resource)).pathname, '/.well-known/oauth-protected-resource'],
    protectedResourceMetadata: () => Response.json(protectedResourceMetadata(config), { headers: { 'Cache-Control': 'max-age=300' } }),
    authorize: (request, requiredScopes = ['mcp']) => authorizeBearer(request, config, keys, requiredScopes),
  };
}
