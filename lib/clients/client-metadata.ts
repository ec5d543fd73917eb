// Portico's clients table seen as RFC 7591 client metadata, the form oidc-provider's Client model takes.
import { eq } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { apps, clients, redirectUris } from '../db/schema';
import { devEnvironmentActive } from './dev-environment';

/** Extra metadata fields Portico attaches to every client it hands to oidc-provider (never client-settable). */
export const PORTICO_CLIENT_FIELDS = ['portico_kind', 'portico_app_id', 'portico_org_id', 'portico_app_disabled'] as const;

export interface PorticoClientMetadata {
  client_id: string;
  client_name: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: string;
  client_secret?: string;
  portico_kind: 'app' | 'external' | 'dynamic' | 'cimd';
  portico_app_id: string | null;
  portico_org_id: string | null;
  /** The client's app is disabled (apps.disabled_at): nobody signs in through it and it gets no tokens. */
  portico_app_disabled: boolean;
  [extra: string]: unknown;
}

/**
 * Loads an active client's metadata, or undefined for an unknown or revoked client.
 * `secretPlaceholder` stands in for client_secret: oidc-provider's schema insists on one for confidential
 * clients, but Portico keeps only hashes and authenticates secrets itself (lib/oidc/provider-overrides.ts).
 */
export async function loadClientMetadata(
  db: Queryable,
  clientId: string,
  secretPlaceholder: string,
): Promise<PorticoClientMetadata | undefined> {
  const [row] = await db.select({ client: clients, appDisabledAt: apps.disabledAt }).from(clients).leftJoin(apps, eq(apps.id, clients.appId)).where(eq(clients.id, clientId)).limit(1);
  const client = row?.client;
  // A CIMD client's row only mirrors its document for the console; oidc-provider fetches the document itself.
  if (!client || client.revokedAt || client.kind === 'cimd') return undefined;
  const uris = await db.select({ uri: redirectUris.uri, devOnly: redirectUris.devOnly }).from(redirectUris).where(eq(redirectUris.clientId, clientId));
  // Dev-only redirect URIs count only while the app's dev environment is on: checked at every authorization request.
  const devActive = client.appId && uris.some((row) => row.devOnly) ? await devEnvironmentActive(db, client.appId) : false;
  return {
    ...client.metadata,
    client_id: client.id,
    client_name: client.name,
    redirect_uris: uris.filter((row) => !row.devOnly || devActive).map((row) => row.uri),
    // What the client registered (dynamic clients may leave out refresh_token); apps' own clients get both.
    grant_types: Array.isArray(client.metadata.grant_types) ? (client.metadata.grant_types as string[]) : ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: client.tokenEndpointAuthMethod,
    ...(client.type === 'confidential' ? { client_secret: secretPlaceholder } : {}),
    portico_kind: client.kind,
    portico_app_id: client.appId,
    portico_org_id: client.orgId,
    portico_app_disabled: row.appDisabledAt !== null,
  };
}
