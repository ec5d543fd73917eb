// What an access token for an app carries: the permissions that reach tokens (docs/permissions.md).
//
// The rule, in one place:
// - `named`: the app's permissions the request named (RFC 6749 §3.3 `scope`), as oidc-provider already narrowed them
//   to the app's catalog and to the grant;
// - a request that names none of them asks for everything the grant allows;
// - the token carries that, intersected with what the subject holds at this very moment (effective permissions,
//   lib/organizations/effective-permissions.ts). Scopes asked for but not held are left out, never an error: the token
//   response states the granted scope (RFC 6749 §5.1).
// The grant is what the person allowed: the whole catalog as it is now for an app's own client (signing in to one's
// own organization's app is the consent), the consented permissions for an MCP client. Because the effective set is
// read at every code exchange and refresh, a grant removed is gone at the next refresh and a grant added appears
// there — within what the grant allows, so an MCP client asking beyond its consent must go through consent again.
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { Queryable } from '../db/client';
import { listPermissionCatalog, sortScopes, type CatalogPermission } from '../clients/permission-catalog';
import { effectivePermissionsOfPerson } from '../organizations/effective-permissions';
import { clientPolicyOf } from './client-policy';
import { findAppByIdentity } from '../clients/apps';

/** The OpenID Connect scopes Portico's provider knows: they are about the account, never about an app. */
export const OIDC_SCOPES = ['openid', 'offline_access', 'email', 'profile'];

export function resourceTokenScope(input: { named: readonly string[]; allowedByGrant: readonly string[]; effective: ReadonlySet<string> }): string[] {
  const asked = input.named.length > 0 ? input.named.filter((scope) => input.allowedByGrant.includes(scope)) : input.allowedByGrant;
  return sortScopes([...new Set(asked)].filter((scope) => input.effective.has(scope)));
}

/**
 * Every scope the app's resource knows: its whole catalog, retired permissions included. This is the resource
 * server's `scope` at the authorization and token endpoints — so a request naming only a retired permission still
 * counts as naming one (and gets nothing), rather than as naming none (and getting everything held).
 */
export async function appResourceScopes(db: Queryable, appId: string, ctx?: object): Promise<string[]> {
  return (await catalogOf(db, appId, ctx)).map((entry) => entry.scope);
}

/** An app's catalog, read once per provider request however many steps ask for it. */
const catalogsByRequest = new WeakMap<object, Map<string, Promise<CatalogPermission[]>>>();

function catalogOf(db: Queryable, appId: string, ctx?: object): Promise<CatalogPermission[]> {
  if (!ctx) return listPermissionCatalog(db, appId);
  let byApp = catalogsByRequest.get(ctx);
  if (!byApp) catalogsByRequest.set(ctx, (byApp = new Map()));
  let catalog = byApp.get(appId);
  if (!catalog) byApp.set(appId, (catalog = listPermissionCatalog(db, appId)));
  return catalog;
}

/** The app a resource server of this request stands for, noted by getResourceServerInfo. */
const appsByRequest = new WeakMap<object, Map<string, { appId: string; orgId: string }>>();

export function noteResourceApp(ctx: object, audience: string, app: { id: string; orgId: string }): void {
  let byAudience = appsByRequest.get(ctx);
  if (!byAudience) appsByRequest.set(ctx, (byAudience = new Map()));
  byAudience.set(audience, { appId: app.id, orgId: app.orgId });
}

interface IssuedAccessToken {
  accountId?: string;
  grantId?: string;
  scope?: string;
  resourceServer?: { audience?: string; scope?: string; identifier(): string };
}

/**
 * The scope of an access token oidc-provider is about to save for an app (code exchange or refresh), or undefined
 * for any other token (Portico's own API, userinfo-only tokens, the agent token exchange, which decides its own).
 */
export async function scopeOfAppAccessToken(db: Queryable, ctx: KoaContextWithOIDC | undefined, token: IssuedAccessToken): Promise<string[] | undefined> {
  const audience = token.resourceServer?.audience;
  if (!ctx || !audience || !token.grantId || !token.accountId) return undefined;
  // Noted by getResourceServerInfo in this request; otherwise read from the audience (an app's fixed identity), so
  // that no path can issue an app's token without the check. Portico's own API has no app: upstream decides.
  const noted = appsByRequest.get(ctx)?.get(audience);
  const found = noted ? undefined : await findAppByIdentity(db, audience);
  const app = noted ?? (found ? { appId: found.id, orgId: found.orgId } : undefined);
  if (!app) return undefined;
  const grant = ctx.oidc.entities.Grant as { getResourceScope(resource: string): string } | undefined;
  if (!grant) return undefined;
  const resource = token.resourceServer!.identifier();
  const split = (value: string | undefined) => (value ?? '').split(' ').filter(Boolean);
  // An app's own client stands for the whole catalog as it is now (a permission added since the sign-in included);
  // any other client for what the person consented to.
  const allowedByGrant = clientPolicyOf(ctx.oidc.client)?.firstParty ? split(token.resourceServer!.scope) : split(grant.getResourceScope(resource));
  // A CIBA approval (lib/oidc/ciba.ts) is for the described action: it carries only permissions the request named,
  // never "everything held" for naming none.
  if (ctx.oidc.entities.BackchannelAuthenticationRequest && split(token.scope).length === 0) return [];
  const held = await effectivePermissionsOfPerson(db, { orgId: app.orgId, appId: app.appId, userId: token.accountId }, await catalogOf(db, app.appId, ctx));
  return resourceTokenScope({
    named: split(token.scope),
    allowedByGrant,
    effective: new Set(held.map((permission) => permission.scope)),
  });
}
