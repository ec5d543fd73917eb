// Portico's clients table seen as RFC 7591 client metadata, the form oidc-provider's Client model takes.
import { eq, sql } from 'drizzle-orm';
import { readCacheOf, type Queryable } from '../db/client';
import { apps, clientSecrets, clients, redirectUris } from '../db/schema';
import { AUTHORIZATION_DETAILS_TYPES } from '../oidc/authorization-details';
import { NONCE_WITHOUT_PKCE_FIELD } from '../oidc/client-policy';

/** OpenID Connect CIBA Core 1.0 §4: the grant type of the token request that polls for a person's answer. */
export const CIBA_GRANT_TYPE = 'urn:openid:params:grant-type:ciba';
/** RFC 8628 §3.4: the grant type of the device authorization grant's token request. */
export const DEVICE_CODE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code';
/** RFC 8693 §2.1: token exchange (Portico's own components; an app's client asking for an ID-JAG, lib/oidc/id-jag.ts). */
export const TOKEN_EXCHANGE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:token-exchange';
/** RFC 7523 §2.1: a JWT as the grant — here an Identity Assertion JWT Authorization Grant (lib/oidc/id-jag.ts). */
export const JWT_BEARER_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** RFC 6749 §4.4: an agent's own client (lib/clients/agent-clients.ts) asking for a token for itself. */
export const CLIENT_CREDENTIALS_GRANT_TYPE = 'client_credentials';

/** Extra metadata fields Portico attaches to every client it hands to oidc-provider (never client-settable). */
export const PORTICO_CLIENT_FIELDS = ['portico_kind', 'portico_app_id', 'portico_org_id', 'portico_app_disabled', NONCE_WITHOUT_PKCE_FIELD] as const;

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
  [NONCE_WITHOUT_PKCE_FIELD]: boolean;
  [extra: string]: unknown;
}

export interface LoadedClient {
  metadata: PorticoClientMetadata;
  /**
   * SHA-256 hashes of the client's secrets that are valid at this moment (checked at this use, from the rows'
   * validity windows): what the token endpoint compares a presented secret with, in this same request
   * (lib/oidc/provider-overrides.ts).
   */
  secretHashesValidNow: string[];
}

/** What loadClient reads, as stored in the per-process read cache: rows and their time windows, never decisions. */
interface ClientRows {
  client: typeof clients.$inferSelect;
  appDisabled: boolean;
  /** The app lets its own client use CIBA (apps.ciba_enabled). */
  cibaEnabled: boolean;
  /** Until when the app's dev environment is on (ms since the epoch), or null. */
  devEnvironmentUntil: number | null;
  uris: { uri: string; devOnly: boolean }[];
  /** Secrets not yet expired, with their windows (ms since the epoch). */
  secrets: { hash: string; validFrom: number; validUntil: number | null }[];
}

/** How far the estimated database clock may lag the one that wrote a secret's valid_from (see loadClient). */
export const VALID_FROM_TOLERANCE_MS = 5_000;

/**
 * Loads an active client — its row, its app's state, its redirect URIs and its secrets valid now — in one statement
 * (the refresh and code grants read this on every call), or undefined for an unknown or revoked client. The rows
 * come from the per-process read cache when they are there (lib/db/read-cache.ts: dropped on any change to the
 * client, its URIs, its secrets or its app, by any instance); the time windows are checked here, at each use.
 * `secretPlaceholder` stands in for client_secret: oidc-provider's schema insists on one for confidential
 * clients, but Portico keeps only hashes and authenticates secrets itself (lib/oidc/provider-overrides.ts).
 */
export async function loadClient(db: Queryable, clientId: string, secretPlaceholder: string): Promise<LoadedClient | undefined> {
  const cache = readCacheOf(db);
  const rows = cache
    ? await cache.read(`client:${clientId}`, () => readClientRows(db, clientId), (found) => [`clients:${found.client.id}`, ...(found.client.appId ? [`apps:${found.client.appId}`] : [])])
    : await readClientRows(db, clientId);
  // A CIMD client's row only mirrors its document for the console; oidc-provider fetches the document itself.
  if (!rows || rows.client.revokedAt || rows.client.kind === 'cimd') return undefined;
  const { client } = rows;
  // The database's time (the windows were written with its now()), as the cache's feed last measured it.
  const now = Date.now() + (cache?.clockOffsetMs ?? 0);
  // Dev-only redirect URIs count only while the app's dev environment is on: checked at every authorization request.
  const devActive = rows.devEnvironmentUntil !== null && rows.devEnvironmentUntil > now;
  // What the client registered (dynamic clients may leave out refresh_token); apps' own clients get both.
  const grantTypes = Array.isArray(client.metadata.grant_types) ? [...(client.metadata.grant_types as string[])] : ['authorization_code', 'refresh_token'];
  // CIBA (lib/oidc/ciba.ts): only an app's own confidential client, only while the app turned it on, poll mode only.
  const ciba = client.kind === 'app' && client.type === 'confidential' && rows.cibaEnabled;
  if (ciba) grantTypes.push(CIBA_GRANT_TYPE);
  // Enterprise-managed authorization: an app's own confidential client may exchange a person's ID token for an
  // ID-JAG to an outside MCP server its organization connected; a client an admin registered for one app may present
  // an ID-JAG from an identity provider the organization trusts. Whether it gets anything is decided there.
  if (client.kind === 'app' && client.type === 'confidential') grantTypes.push(TOKEN_EXCHANGE_GRANT_TYPE);
  if (client.kind === 'external') grantTypes.push(JWT_BEARER_GRANT_TYPE);
  const metadata: PorticoClientMetadata = {
    // A copy: the cached row is shared by every request of this process. A stored `client_secret` never counts: the
    // placeholder below is set for confidential clients alone. The row's metadata is a jsonb column, so a JSON round
    // trip copies it exactly, at about two thirds of structuredClone's cost on every token request.
    ...withoutStoredSecret(JSON.parse(JSON.stringify(client.metadata)) as typeof client.metadata),
    client_id: client.id,
    client_name: client.name,
    redirect_uris: rows.uris.filter((row) => !row.devOnly || devActive).map((row) => row.uri),
    grant_types: grantTypes,
    // A client that registered only the device grant (RFC 8628) has no redirect URIs and no response type.
    response_types: grantTypes.includes('authorization_code') ? ['code'] : [],
    // RFC 9396 §10: which detail types the client may send (oidc-provider allows none by default).
    ...(ciba ? { backchannel_token_delivery_mode: 'poll', backchannel_user_code_parameter: false, authorization_details_types: [...AUTHORIZATION_DETAILS_TYPES] } : {}),
    token_endpoint_auth_method: client.tokenEndpointAuthMethod,
    ...(client.type === 'confidential' ? { client_secret: secretPlaceholder } : {}),
    portico_kind: client.kind,
    portico_app_id: client.appId,
    portico_org_id: client.orgId,
    portico_app_disabled: rows.appDisabled,
    // Only an app's own confidential client carries it (whatever else a stored row might hold): client-policy.ts.
    [NONCE_WITHOUT_PKCE_FIELD]: client.kind === 'app' && client.type === 'confidential' && client.metadata[NONCE_WITHOUT_PKCE_FIELD] === true,
  };
  // valid_from is the database's now() at the insert, and `now` is this process's estimate of that clock, off by up to
  // half a round trip of the feed's measurement: a secret made a millisecond ago must not read as "not yet valid".
  const secretHashesValidNow = rows.secrets
    .filter((secret) => secret.validFrom <= now + VALID_FROM_TOLERANCE_MS && (secret.validUntil === null || secret.validUntil > now))
    .map((secret) => secret.hash);
  return { metadata, secretHashesValidNow };
}

async function readClientRows(db: Queryable, clientId: string): Promise<ClientRows | undefined> {
  const [row] = await db
    .select({
      client: clients,
      appDisabledAt: apps.disabledAt,
      cibaEnabled: apps.cibaEnabled,
      devEnvironmentUntil: apps.devEnvironmentUntil,
      uris: sql<{ uri: string; devOnly: boolean }[]>`coalesce((select json_agg(json_build_object('uri', ${redirectUris.uri}, 'devOnly', ${redirectUris.devOnly})) from ${redirectUris} where ${redirectUris.clientId} = ${clients.id}), '[]'::json)`,
      // Expired secrets never come back; the ones not yet valid do (they become valid while cached).
      secrets: sql<{ hash: string; validFrom: string; validUntil: string | null }[]>`coalesce((select json_agg(json_build_object('hash', ${clientSecrets.secretHash}, 'validFrom', ${clientSecrets.validFrom}, 'validUntil', ${clientSecrets.validUntil})) from ${clientSecrets} where ${clientSecrets.clientId} = ${clients.id} and (${clientSecrets.validUntil} is null or ${clientSecrets.validUntil} > now())), '[]'::json)`,
    })
    .from(clients)
    .leftJoin(apps, eq(apps.id, clients.appId))
    .where(eq(clients.id, clientId))
    .limit(1);
  if (!row) return undefined;
  const json = <Value>(value: Value | string): Value => (typeof value === 'string' ? (JSON.parse(value) as Value) : value);
  return {
    client: row.client,
    appDisabled: row.appDisabledAt !== null,
    cibaEnabled: row.cibaEnabled === true,
    devEnvironmentUntil: row.devEnvironmentUntil ? row.devEnvironmentUntil.getTime() : null,
    uris: json(row.uris),
    secrets: json(row.secrets).map((secret) => ({
      hash: secret.hash,
      validFrom: Date.parse(secret.validFrom),
      validUntil: secret.validUntil === null ? null : Date.parse(secret.validUntil),
    })),
  };
}

function withoutStoredSecret(metadata: Record<string, unknown>): Record<string, unknown> {
  const { client_secret: _stored, ...rest } = metadata;
  return rest;
}

/** The client's metadata alone (see loadClient). */
export async function loadClientMetadata(db: Queryable, clientId: string, secretPlaceholder: string): Promise<PorticoClientMetadata | undefined> {
  return (await loadClient(db, clientId, secretPlaceholder))?.metadata;
}
