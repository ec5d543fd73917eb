// Apps an organization publishes: each one is a protected resource with a fixed identity and its own
// confidential OIDC client, so a token for one app can never be used at another.
import { organizationHoldingHost } from '../identity/domains';
import { randomBytes, randomUUID } from 'node:crypto';
import { and, eq, isNotNull, isNull, like, ne, sql } from 'drizzle-orm';
import { readCacheOf, type Queryable } from '../db/client';
import { endAppGrants, noticeAppSessionsEnded, type EndedGrants } from '../grants';
import { apps, clientSecrets, clients, gatewayServers, organizations, redirectUris } from '../db/schema';
import { generateClientSecret, hashClientSecret } from './secrets';
import { isUuid } from '../util/uuid';
import { isStorableText } from '../util/storable-text';
import { localized, textIn, type LocalizedText } from '../i18n/catalogs';
import { NONCE_WITHOUT_PKCE_FIELD } from '../oidc/client-policy';

export type App = typeof apps.$inferSelect;

export interface CreateAppInput {
  orgId: string;
  slug: string;
  name: string;
  publishOrigin: string;
  redirectUris: string[];
  avatarUrl?: string;
  /** Fixed values for reproducible setups (the demo seed, test fixtures); generated when absent. */
  appId?: string;
  clientId?: string;
  clientSecret?: string;
  /** How the app authenticates at the token endpoint (RFC 7591 §2): one registered method. */
  tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post';
  /** The ID token's signing algorithm; RS256 when not chosen (see ID_TOKEN_ALGS). */
  idTokenAlg?: IdTokenAlg;
  /** What kind of app signs its people in (see APP_PROFILES); a web app when not chosen. */
  profile?: AppProfile;
}

/**
 * What kind of app an app's own client serves, chosen at creation (RFC 6749 §2.1: a client's type never changes):
 * - `web`: a server-side web app, a confidential client with a secret (as every app was before issue 54);
 * - `spa`: a single-page app in the browser, a public client (OAuth 2.1 §2.1): PKCE, no secret, its token requests
 *   cross-origin from its redirect URIs' origins (oidc-provider's clientBasedCORS), refresh tokens rotated with reuse
 *   detection and a shorter lifetime (PUBLIC_APP_REFRESH_TOKEN_TTL_SECONDS);
 * - `native`: a mobile or desktop app (RFC 8252), public likewise, whose redirect URIs may also be a private-use URI
 *   scheme (§7.1) or http on a loopback address with any port (§7.3); registered as `application_type: native`.
 * All three sign in on the app's own card with no extra consent (the app is the organization's own).
 */
export const APP_PROFILES = ['web', 'spa', 'native'] as const;
export type AppProfile = (typeof APP_PROFILES)[number];

export function isAppProfile(value: unknown): value is AppProfile {
  return typeof value === 'string' && (APP_PROFILES as readonly string[]).includes(value);
}

/** The profile of an app's own client, from what its row says (type, and application_type for native). */
export function appProfileOf(client: { type: 'confidential' | 'public'; metadata: Record<string, unknown> }): AppProfile {
  if (client.type === 'confidential') return 'web';
  return client.metadata.application_type === 'native' ? 'native' : 'spa';
}

/**
 * The algorithms an app may have its ID tokens signed with (both keys are published at /oidc/jwks). RS256 first and
 * the default: OpenID Connect Dynamic Client Registration §2 makes it the default when a client registers none, and
 * relying parties assume it unless told (express-openid-connect, go-oidc, passport's strategies). ES256 is smaller and
 * cheaper to sign, for relying parties that read the discovery document.
 */
export const ID_TOKEN_ALGS = ['RS256', 'ES256'] as const;
export type IdTokenAlg = (typeof ID_TOKEN_ALGS)[number];
export const DEFAULT_ID_TOKEN_ALG: IdTokenAlg = 'RS256';

export function isIdTokenAlg(value: unknown): value is IdTokenAlg {
  return typeof value === 'string' && (ID_TOKEN_ALGS as readonly string[]).includes(value);
}

export interface CreatedApp {
  app: App;
  clientId: string;
  /** Shown once: only its hash is stored. None for a single-page or native app (a public client). */
  clientSecret: string | undefined;
  profile: AppProfile;
}

/** `<origin>/api/mcp`: where an app serves MCP, and the RFC 8707 resource identifier naming it. */
export function appResource(publishOrigin: string): string {
  return `${publishOrigin}/api/mcp`;
}

/** A redirect URI whose origin another app already reaches through: the resource would name two apps. */
export class RedirectOriginTaken extends Error {
  constructor(readonly origin: string) {
    super(`${origin} is already the address of another app on Portico: each app's redirect origins are its own`);
  }
}

/**
 * Whether a redirect URI's origin names its app's resource (`<origin>/api/mcp`). A native app's private-use scheme
 * (RFC 8252 §7.1) has no origin, and its loopback http URIs (§7.3) are shared by every native app on a machine, any
 * port: neither names a resource nor claims an origin, so two organizations' native apps may both return to
 * `http://127.0.0.1/callback`.
 */
export function redirectNamesResource(uri: string, profile: AppProfile): boolean {
  const protocol = new URL(uri).protocol;
  if (protocol !== 'https:' && protocol !== 'http:') return false;
  return !(profile === 'native' && protocol === 'http:');
}

/**
 * The same, in SQL, for the redirect URIs stored with their clients (joined as `clients` and `redirect_uris`). The
 * coalesce matters: a client with no application_type must compare false, not NULL (which `not` keeps NULL).
 */
const storedRedirectNamesResource = sql`not (coalesce(${clients.metadata}->>'application_type', '') = 'native' and ${redirectUris.uri} not like 'https://%')`;

/**
 * Refuses a (non-dev) redirect URI of an app's own client whose origin another app's client already uses. The
 * resource `<origin>/api/mcp` names an app by these origins, so they must belong to one app only; otherwise any
 * organization could make another's resource ambiguous. The advisory lock serializes concurrent claims of one
 * origin until the transaction ends (call it inside one).
 */
async function assertOriginFree(db: Queryable, uri: string, appId: string, profile: AppProfile): Promise<void> {
  if (!redirectNamesResource(uri, profile)) return;
  const origin = new URL(uri).origin;
  await db.execute(sql`select pg_advisory_xact_lock(hashtext(${`portico:redirect-origin:${origin}`}))`);
  const rows = await db
    .select({ uri: redirectUris.uri })
    .from(redirectUris)
    .innerJoin(clients, eq(clients.id, redirectUris.clientId))
    .where(and(eq(clients.kind, 'app'), ne(clients.appId, appId), eq(redirectUris.devOnly, false), storedRedirectNamesResource, like(redirectUris.uri, `${origin}/%`)));
  if (rows.some((row) => new URL(row.uri).origin === origin)) throw new RedirectOriginTaken(origin);
}

/** A publish origin that would show one thing as another: Portico itself, or another app's address. */
export class PublishOriginTaken extends Error {
  /** The refusal's words for a person (the catalogs); `message` is English (the CLI). */
  constructor(readonly text: LocalizedText) {
    super(textIn(text));
  }
}

/**
 * Refuses a publish origin an admin sets when it is Portico's own origin (the consent card would present Portico
 * as the app), on a domain another organization verified (lib/identity/domains.ts), or another app's publish or
 * (non-dev) redirect origin (two apps behind one address). Called by every
 * door where a person sets the address: the console and the CLI. (The demo seed's stand-in app, whose callback is
 * a page of Portico's, is created without it on purpose.)
 */
export async function assertPublishOriginAvailable(db: Queryable, input: { origin: string; issuer: string; orgId: string; appId?: string }): Promise<void> {
  const origin = new URL(input.origin).origin;
  if (origin === new URL(input.issuer).origin) throw new PublishOriginTaken(localized('refusals.apps.porticoOrigin', { origin }));
  // A domain another organization verified is theirs: no app of this one is published on it (or under it).
  const holder = await organizationHoldingHost(db, new URL(origin).hostname);
  if (holder && holder.orgId !== input.orgId) throw new PublishOriginTaken(localized('refusals.apps.originOnOthersDomain', { origin, domain: holder.domain }));
  await db.execute(sql`select pg_advisory_xact_lock(hashtext(${`portico:redirect-origin:${origin}`}))`);
  const other = input.appId ? ne(apps.id, input.appId) : undefined;
  const [published] = await db.select({ id: apps.id }).from(apps).where(and(eq(apps.publishOrigin, origin), other)).limit(1);
  const redirects = await db
    .select({ uri: redirectUris.uri })
    .from(redirectUris)
    .innerJoin(clients, eq(clients.id, redirectUris.clientId))
    .where(and(eq(clients.kind, 'app'), input.appId ? ne(clients.appId, input.appId) : undefined, eq(redirectUris.devOnly, false), storedRedirectNamesResource, like(redirectUris.uri, `${origin}/%`)));
  if (published || redirects.some((row) => new URL(row.uri).origin === origin)) {
    throw new PublishOriginTaken(localized('refusals.apps.originTaken', { origin }));
  }
}

/** Creates an app with its own client (a web app's client has a secret, shown once in the answer). */
export async function createApp(db: Queryable, input: CreateAppInput & { profile?: 'web' }): Promise<CreatedApp & { clientSecret: string; profile: 'web' }>;
export async function createApp(db: Queryable, input: CreateAppInput): Promise<CreatedApp>;
export async function createApp(db: Queryable, input: CreateAppInput): Promise<CreatedApp> {
  const appId = input.appId ?? randomUUID();
  // One lock per distinct origin, always in the same order: two creations claiming the same origins cannot deadlock.
  const byOrigin = new Map(input.redirectUris.filter((uri) => redirectNamesResource(uri, input.profile ?? 'web')).map((uri) => [new URL(uri).origin, uri]));
  for (const origin of [...byOrigin.keys()].sort()) await assertOriginFree(db, byOrigin.get(origin)!, appId, input.profile ?? 'web');
  const [app] = await db
    .insert(apps)
    .values({
      id: appId,
      orgId: input.orgId,
      slug: input.slug,
      name: input.name,
      avatarUrl: input.avatarUrl ?? null,
      publishOrigin: new URL(input.publishOrigin).origin,
      identity: `urn:portico:app:${appId}`,
    })
    .returning();
  if (!app) throw new Error('app insert returned nothing');

  const clientId = input.clientId ?? `app_${randomBytes(16).toString('base64url')}`;
  const profile = input.profile ?? 'web';
  const confidential = profile === 'web';
  if (!confidential && (input.clientSecret !== undefined || input.tokenEndpointAuthMethod !== undefined)) {
    throw new Error('a single-page or native app has a public client: no secret, no token endpoint authentication');
  }
  const clientSecret = confidential ? (input.clientSecret ?? generateClientSecret()) : undefined;
  await db.insert(clients).values({
    id: clientId,
    kind: 'app',
    type: confidential ? 'confidential' : 'public',
    orgId: input.orgId,
    appId,
    name: input.name,
    tokenEndpointAuthMethod: confidential ? (input.tokenEndpointAuthMethod ?? 'client_secret_basic') : 'none',
    // Registered explicitly, so the app's page and a later change of the default never move an app's relying parties.
    metadata: { id_token_signed_response_alg: input.idTokenAlg ?? DEFAULT_ID_TOKEN_ALG, ...(profile === 'native' ? { application_type: 'native' } : {}) },
    secretGeneration: confidential ? 1 : null,
  });
  if (clientSecret !== undefined) await db.insert(clientSecrets).values({ clientId, generation: 1, secretHash: hashClientSecret(clientSecret) });
  if (input.redirectUris.length > 0) {
    await db.insert(redirectUris).values(input.redirectUris.map((uri) => ({ clientId, uri })));
  }
  return { app, clientId, clientSecret, profile };
}

const RESOURCE_PATH = '/api/mcp';

/** The origin a resource indicator names, when it has the form `<origin>/api/mcp` (RFC 8707 §2: no fragment). */
export function originOfAppResource(resource: string): string | undefined {
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (url.pathname !== RESOURCE_PATH || url.search || url.hash || url.username || url.password) return undefined;
  if (resource !== `${url.origin}${RESOURCE_PATH}`) return undefined; // only the canonical spelling names an app
  return url.origin;
}

/**
 * The app a resource indicator names. An app is reached at the origins its own client redirects to: the same list
 * that authenticates the app's sign-ins names its resource, so there is no second table to drift from it.
 * Two apps claiming one origin name no app at all.
 */
export async function findAppByResource(db: Queryable, resource: string): Promise<App | undefined> {
  // A value PostgreSQL text cannot hold (a NUL) names no app: not found, rather than a failed statement.
  if (!isStorableText(resource)) return undefined;
  const origin = originOfAppResource(resource);
  if (!origin) return findGatewayApp(db, resource);
  // Read on every token request bound to an app. The answer depends on every app client's redirect URIs (two apps
  // claiming one origin name none), so any change to a client, its URIs or an app drops it (lib/db/read-cache.ts).
  const cache = readCacheOf(db);
  const read = () => readAppByOrigin(db, origin);
  return cache ? cache.read(`app-by-origin:${origin}`, read, () => ['clients:*', 'apps:*']) : read();
}

/**
 * The app standing for a gateway server (lib/gateway) whose resource identifier is exactly `resource`
 * (`<issuer>/mcp/<org>/<server>`, fixed when the server was added). Removing the server deletes its app, which drops it.
 */
async function findGatewayApp(db: Queryable, resource: string): Promise<App | undefined> {
  if (!/^https?:\/\/[^/]+\/(?:[^?#]*\/)?mcp\/[a-z0-9-]+\/[a-z0-9-]+$/.test(resource)) return undefined;
  const read = async () => (await db.select({ app: apps }).from(gatewayServers).innerJoin(apps, eq(apps.id, gatewayServers.appId)).where(eq(gatewayServers.resource, resource)).limit(1))[0]?.app;
  const cache = readCacheOf(db);
  return cache ? cache.read(`app-by-gateway-resource:${resource}`, read, () => ['apps:*']) : read();
}

async function readAppByOrigin(db: Queryable, origin: string): Promise<App | undefined> {
  const rows = await db
    .select({ app: apps, uri: redirectUris.uri })
    .from(redirectUris)
    .innerJoin(clients, eq(clients.id, redirectUris.clientId))
    .innerJoin(apps, eq(apps.id, clients.appId))
    .where(and(eq(clients.kind, 'app'), isNull(clients.revokedAt), eq(redirectUris.devOnly, false), storedRedirectNamesResource, like(redirectUris.uri, `${origin}/%`)));
  const matching = new Map<string, App>();
  for (const row of rows) {
    if (new URL(row.uri).origin === origin) matching.set(row.app.id, row.app);
  }
  return matching.size === 1 ? [...matching.values()][0] : undefined;
}

/** The app an access token's audience names; read through the per-process read cache (any change to the app drops it). */
export async function findAppByIdentity(db: Queryable, identity: string): Promise<App | undefined> {
  const read = async () => (await db.select().from(apps).where(eq(apps.identity, identity)).limit(1))[0];
  const cache = readCacheOf(db);
  return cache ? cache.read(`app-by-identity:${identity}`, read, (app) => [`apps:${app.id}`]) : read();
}

/** An app by its id; read through the per-process read cache (any change to the app drops it). */
export async function findAppById(db: Queryable, id: string): Promise<App | undefined> {
  if (!isUuid(id)) return undefined;
  const read = async () => (await db.select().from(apps).where(eq(apps.id, id)).limit(1))[0];
  const cache = readCacheOf(db);
  return cache ? cache.read(`app:${id}`, read, (app) => [`apps:${app.id}`]) : read();
}

export interface AppListing {
  app: App;
  orgSlug: string;
  clientId: string;
}

/** Apps with their organization's slug and their own client id, optionally for one organization. */
export async function listApps(db: Queryable, orgSlug?: string): Promise<AppListing[]> {
  const rows = await db
    .select({ app: apps, orgSlug: organizations.slug, clientId: clients.id })
    .from(apps)
    .innerJoin(organizations, eq(organizations.id, apps.orgId))
    .innerJoin(clients, and(eq(clients.appId, apps.id), eq(clients.kind, 'app')))
    .where(orgSlug ? eq(organizations.slug, orgSlug) : undefined)
    .orderBy(organizations.slug, apps.slug);
  return rows;
}

/** Finds an app by `<org-slug>/<app-slug>`, its id, or its own client's id. */
export async function findAppListing(db: Queryable, reference: string): Promise<AppListing | undefined> {
  const all = await listApps(db);
  return all.find(
    (row) => `${row.orgSlug}/${row.app.slug}` === reference || row.app.id === reference || row.clientId === reference,
  );
}

/**
 * Every app of the organization permissions are granted on: the apps with their own client, and the apps that stand
 * for gateway servers (lib/gateway: no client of their own, nobody signs in to them). Pickers of teams, people and
 * agents list these; `gateway` names the server's short name for those.
 */
export async function listGrantableApps(db: Queryable, orgId: string): Promise<{ app: App; gateway: string | null }[]> {
  const rows = await db
    .select({ app: apps, gateway: gatewayServers.slug, ownClient: clients.id })
    .from(apps)
    .leftJoin(gatewayServers, eq(gatewayServers.appId, apps.id))
    .leftJoin(clients, and(eq(clients.appId, apps.id), eq(clients.kind, 'app')))
    .where(eq(apps.orgId, orgId))
    .orderBy(apps.name);
  return rows.filter((row) => row.ownClient !== null || row.gateway !== null).map((row) => ({ app: row.app, gateway: row.gateway }));
}

/** Every slug the organization's apps use, the gateway servers' apps included (a new app's slug must be none of them). */
export async function appSlugsOf(db: Queryable, orgId: string): Promise<Set<string>> {
  return new Set((await db.select({ slug: apps.slug }).from(apps).where(eq(apps.orgId, orgId))).map((row) => row.slug));
}

/**
 * The resource identifier (RFC 8707) tokens for the app name: its MCP server (`<origin>/api/mcp`), or, for the app
 * standing for a gateway server, that server's address (`<issuer>/mcp/<org>/<server>`).
 */
export async function resourceOfApp(db: Queryable, app: Pick<App, 'id' | 'publishOrigin'>): Promise<string> {
  const [server] = await db.select({ resource: gatewayServers.resource }).from(gatewayServers).where(eq(gatewayServers.appId, app.id)).limit(1);
  return server?.resource ?? appResource(app.publishOrigin);
}

/** An app of the organization that permissions are granted on (listGrantableApps), or undefined. */
export async function findGrantableApp(db: Queryable, orgId: string, appId: string): Promise<App | undefined> {
  if (!isUuid(appId)) return undefined;
  return (await listGrantableApps(db, orgId)).find((row) => row.app.id === appId)?.app;
}

/** An app of the organization, or undefined: every app lookup from the console is scoped to the org. */
export async function findOrgApp(db: Queryable, orgId: string, appId: string): Promise<AppListing | undefined> {
  if (!isUuid(appId)) return undefined;
  const [row] = await db
    .select({ app: apps, orgSlug: organizations.slug, clientId: clients.id })
    .from(apps)
    .innerJoin(organizations, eq(organizations.id, apps.orgId))
    .innerJoin(clients, and(eq(clients.appId, apps.id), eq(clients.kind, 'app')))
    .where(and(eq(apps.id, appId), eq(apps.orgId, orgId)))
    .limit(1);
  return row;
}

export async function updateApp(db: Queryable, appId: string, changes: { name: string; avatarUrl: string | null; publishOrigin: string }): Promise<void> {
  await db.update(apps).set(changes).where(eq(apps.id, appId));
  await db.update(clients).set({ name: changes.name }).where(and(eq(clients.appId, appId), eq(clients.kind, 'app')));
}

/** An app's description per language (only the catalogs' languages; an empty text removes that language's). */
export async function setAppDescriptions(db: Queryable, appId: string, descriptions: Record<string, string>): Promise<void> {
  await db.update(apps).set({ descriptions }).where(eq(apps.id, appId));
}

export async function listRedirectUris(db: Queryable, clientId: string) {
  return db.select().from(redirectUris).where(eq(redirectUris.clientId, clientId)).orderBy(redirectUris.createdAt);
}

/**
 * Adds a redirect URI to an app's own client; false when the client has it already. Throws RedirectOriginTaken when
 * a non-dev URI's origin belongs to another app (dev-only URIs name no resource, so they may be anywhere).
 */
export async function addRedirectUri(db: Queryable, clientId: string, uri: string, devOnly = false): Promise<boolean> {
  if (!devOnly) {
    const [client] = await db.select({ appId: clients.appId, type: clients.type, metadata: clients.metadata }).from(clients).where(eq(clients.id, clientId)).limit(1);
    if (client?.appId) await assertOriginFree(db, uri, client.appId, appProfileOf(client));
  }
  const inserted = await db.insert(redirectUris).values({ clientId, uri, devOnly }).onConflictDoNothing().returning({ id: redirectUris.id });
  return inserted.length === 1;
}

/**
 * What an app's own client registered that is not a redirect URI: where RP-initiated logout may return
 * (`post_logout_redirect_uris`, OpenID Connect RP-Initiated Logout 1.0 §3.1, compared by exact match) and the ID
 * token's signing algorithm. Kept in the client's metadata, which oidc-provider reads as registered: a sign-out
 * return address names no resource, so it stays out of redirect_uris (which the resource binding reads).
 */
export async function appClientRegistration(db: Queryable, clientId: string): Promise<{ postLogoutRedirectUris: string[]; idTokenAlg: string; nonceWithoutPkce: boolean; profile: AppProfile }> {
  const [row] = await db.select({ metadata: clients.metadata, type: clients.type }).from(clients).where(eq(clients.id, clientId)).limit(1);
  const registered = row?.metadata.post_logout_redirect_uris;
  const alg = row?.metadata.id_token_signed_response_alg;
  return {
    postLogoutRedirectUris: Array.isArray(registered) ? registered.filter((uri): uri is string => typeof uri === 'string') : [],
    nonceWithoutPkce: row?.metadata[NONCE_WITHOUT_PKCE_FIELD] === true,
    profile: row ? appProfileOf(row) : 'web',
    // oidc-provider's default for a client that registered none (apps created before any was registered).
    idTokenAlg: typeof alg === 'string' ? alg : 'RS256',
  };
}

/**
 * Lets a nonce stand in for PKCE at the app's own client, or stops it (lib/oidc/client-policy.ts pkceRequired says
 * exactly when it applies); false when nothing changes.
 */
export async function setNonceWithoutPkce(db: Queryable, clientId: string, allowed: boolean): Promise<boolean> {
  const changed = await db
    .update(clients)
    .set({ metadata: allowed ? sql`jsonb_set(${clients.metadata}, ${`{${NONCE_WITHOUT_PKCE_FIELD}}`}::text[], 'true'::jsonb)` : sql`${clients.metadata} - ${NONCE_WITHOUT_PKCE_FIELD}::text` })
    .where(and(eq(clients.id, clientId), eq(clients.kind, 'app'), eq(clients.type, 'confidential'), allowed ? sql`coalesce(${clients.metadata}->${NONCE_WITHOUT_PKCE_FIELD}::text, 'false'::jsonb) <> 'true'::jsonb` : sql`${clients.metadata} ? ${NONCE_WITHOUT_PKCE_FIELD}::text`))
    .returning({ id: clients.id });
  return changed.length === 1;
}

/** Changes the algorithm an app's ID tokens are signed with; false when it has that one already. */
export async function setIdTokenAlg(db: Queryable, clientId: string, alg: IdTokenAlg): Promise<boolean> {
  const changed = await db
    .update(clients)
    .set({ metadata: sql`jsonb_set(${clients.metadata}, '{id_token_signed_response_alg}', to_jsonb(${alg}::text))` })
    .where(and(eq(clients.id, clientId), sql`coalesce(${clients.metadata}->>'id_token_signed_response_alg', 'RS256') <> ${alg}`))
    .returning({ id: clients.id });
  return changed.length === 1;
}

/** Adds a sign-out return address to an app's own client; false when it has it already. */
export async function addPostLogoutRedirectUri(db: Queryable, clientId: string, uri: string): Promise<boolean> {
  const changed = await db
    .update(clients)
    .set({ metadata: sql`jsonb_set(${clients.metadata}, '{post_logout_redirect_uris}', coalesce(${clients.metadata}->'post_logout_redirect_uris', '[]'::jsonb) || to_jsonb(${uri}::text))` })
    .where(and(eq(clients.id, clientId), sql`not coalesce(${clients.metadata}->'post_logout_redirect_uris', '[]'::jsonb) @> to_jsonb(${uri}::text)`))
    .returning({ id: clients.id });
  return changed.length === 1;
}

/** Removes one; false when the client does not have it. */
export async function removePostLogoutRedirectUri(db: Queryable, clientId: string, uri: string): Promise<boolean> {
  const changed = await db
    .update(clients)
    .set({ metadata: sql`jsonb_set(${clients.metadata}, '{post_logout_redirect_uris}', (select coalesce(jsonb_agg(kept), '[]'::jsonb) from jsonb_array_elements(${clients.metadata}->'post_logout_redirect_uris') kept where kept <> to_jsonb(${uri}::text)))` })
    .where(and(eq(clients.id, clientId), sql`coalesce(${clients.metadata}->'post_logout_redirect_uris', '[]'::jsonb) @> to_jsonb(${uri}::text)`))
    .returning({ id: clients.id });
  return changed.length === 1;
}

export async function removeRedirectUri(db: Queryable, clientId: string, uri: string): Promise<boolean> {
  const removed = await db
    .delete(redirectUris)
    .where(and(eq(redirectUris.clientId, clientId), eq(redirectUris.uri, uri)))
    .returning({ id: redirectUris.id });
  return removed.length === 1;
}

/**
 * Turns the app off or on again. Off: nobody signs in to it (its card says it is turned off), its clients get no
 * code, refresh or userinfo, and MCP clients cannot reach it; grants and tokens are kept for when it is on again
 * (access tokens already issued stay valid until they expire, ten minutes at most). Answers whether anything changed.
 */
export async function setAppDisabled(db: Queryable, appId: string, disabled: boolean): Promise<boolean> {
  const changed = await db
    .update(apps)
    .set({ disabledAt: disabled ? sql`now()` : null })
    .where(and(eq(apps.id, appId), disabled ? isNull(apps.disabledAt) : isNotNull(apps.disabledAt)))
    .returning({ id: apps.id });
  // Turned off, nobody stays signed in to it: its sessions hear so (back-channel logout); the grants wait for it.
  if (changed.length > 0 && disabled) await noticeAppSessionsEnded(db, appId, 'app_disabled');
  return changed.length > 0;
}

/**
 * Deletes the app for good: first every grant at it and everything issued from them (refresh tokens, codes, opaque
 * tokens) and its clients' provider state, then the app with its clients, redirect URIs, permissions, bindings and
 * approval requests (foreign keys cascade). Run it in the caller's transaction with its audit event. Its audit
 * events stay: the trail outlives what it describes.
 */
export async function deleteApp(db: Queryable, appId: string): Promise<EndedGrants> {
  const ended = await endAppGrants(db, appId);
  await db.delete(apps).where(eq(apps.id, appId));
  return ended;
}
