// Portico's clients table seen as RFC 7591 client metadata, the form oidc-provider's Client model takes.
import { eq, sql } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { apps, clientSecrets, clients, redirectUris } from '../db/schema';

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

export interface LoadedClient {
  metadata: PorticoClientMetadata;
  /**
   * SHA-256 hashes of the client's secrets that are valid at this moment (the database's clock, in the same statement):
   * what the token endpoint compares a presented secret with, in this same request (lib/oidc/provider-overrides.ts).
   */
  secretHashesValidNow: string[];
}

/**
 * Loads an active client — its row, its app's state, its redirect URIs and its secrets valid now — in one statement
 * (the refresh and code grants read this on every call), or undefined for an unknown or revoked client.
 * `secretPlaceholder` stands in for client_secret: oidc-provider's schema insists on one for confidential
 * clients, but Portico keeps only hashes and authenticates secrets itself (lib/oidc/provider-overrides.ts).
 */
export async function loadClient(db: Queryable, clientId: string, secretPlaceholder: string): Promise<LoadedClient | undefined> {
  const [row] = await db
    .select({
      client: clients,
      appDisabledAt: apps.disabledAt,
      // Dev-only redirect URIs count only while the app's dev environment is on: checked at every authorization request.
      devActive: sql<boolean>`coalesce(${apps.devEnvironmentUntil} > now(), false)`,
      uris: sql<{ uri: string; devOnly: boolean }[]>`coalesce((select json_agg(json_build_object('uri', ${redirectUris.uri}, 'devOnly', ${redirectUris.devOnly})) from ${redirectUris} where ${redirectUris.clientId} = ${clients.id}), '[]'::json)`,
      secretHashes: sql<string[]>`coalesce((select json_agg(${clientSecrets.secretHash}) from ${clientSecrets} where ${clientSecrets.clientId} = ${clients.id} and ${clientSecrets.validFrom} <= now() and (${clientSecrets.validUntil} is null or ${clientSecrets.validUntil} > now())), '[]'::json)`,
    })
    .from(clients)
    .leftJoin(apps, eq(apps.id, clients.appId))
    .where(eq(clients.id, clientId))
    .limit(1);
  const client = row?.client;
  // A CIMD client's row only mirrors its document for the console; oidc-provider fetches the document itself.
  if (!row || !client || client.revokedAt || client.kind === 'cimd') return undefined;
  const uris = typeof row.uris === 'string' ? (JSON.parse(row.uris) as typeof row.uris) : row.uris;
  const secretHashes = typeof row.secretHashes === 'string' ? (JSON.parse(row.secretHashes) as string[]) : row.secretHashes;
  const devActive = row.devActive === true || (row.devActive as unknown) === 't';
  const metadata: PorticoClientMetadata = {
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
  return { metadata, secretHashesValidNow: secretHashes };
}

/** The client's metadata alone (see loadClient). */
export async function loadClientMetadata(db: Queryable, clientId: string, secretPlaceholder: string): Promise<PorticoClientMetadata | undefined> {
  return (await loadClient(db, clientId, secretPlaceholder))?.metadata;
}
