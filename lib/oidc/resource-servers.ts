// RFC 8707 resource indicators → the app a token is for. Two rules, one per kind of client:
// - an app's own client asks for its own app's resource, resolved from the app's redirect origins;
// - any other client (external, dynamic, CIMD) is bound at consent: code exchange and refresh read the grant's
//   binding (grant_bindings) and never resolve the resource again, so a binding cannot change under a live grant.
import type Provider from 'oidc-provider';
import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import type { Database } from '../db/client';
import { findAppById } from '../clients/apps';
import { findGrantBinding, resolveClientResource, type ClientKind, type GrantBinding, type ResourceTarget } from '../clients/binding';
import { PORTICO_API_SCOPES, porticoApiResource } from '../resource/portico-api';
import { clientPolicyOf } from './client-policy';
import { appResourceScopes, noteResourceApp } from './resource-scope';

/** The slice of oidc-provider's Client that Portico reads (its extra metadata, and the CIMD marker). */
export type PorticoClient = {
  clientId: string;
  portico_kind?: ClientKind;
  portico_app_id?: string | null;
  portico_org_id?: string | null;
  portico_app_disabled?: boolean;
  clientIdMetadataDocument?: boolean;
  clientName?: string;
};


/**
 * Audience of the placeholder resource server an unresolvable resource gets at the authorization endpoint. It lets
 * the request reach the authorization screen, which refuses it with a message a person can act on (instead of a
 * bare redirect with `invalid_target`). No token can carry it: consent refuses such a request and the token
 * endpoint only knows bindings.
 */
export const UNRESOLVED_RESOURCE_AUDIENCE = 'urn:portico:unresolved-resource';

export const ACCESS_TOKEN_TTL_SECONDS = 10 * 60;

/**
 * The resource server of an app's access token that a grant builds itself (the agent token exchange, ID-JAGs,
 * workloads): a JWT (RFC 9068) whose audience is the app's fixed identity, ten minutes, the catalog as what it may hold.
 */
export function appTokenResourceServer(provider: Provider, resource: string, app: { identity: string; catalog: readonly string[] }) {
  return new provider.ResourceServer(resource, {
    scope: app.catalog.join(' '),
    audience: app.identity,
    accessTokenTTL: ACCESS_TOKEN_TTL_SECONDS,
    accessTokenFormat: 'jwt',
    jwt: { sign: { alg: 'ES256' } },
  });
}

/**
 * An app's tokens carry its fixed identity as audience and its catalog as the scopes the resource knows (which of
 * them a token carries is decided at issuance, lib/oidc/resource-scope.ts); Portico's own API's carry its resource
 * identifier and its fixed scopes.
 */
async function resourceServerOf(db: Database, ctx: KoaContextWithOIDC, target: ResourceTarget, issuer: string) {
  if (target.kind === 'app') noteResourceApp(ctx, target.app.identity, target.app);
  return {
    scope: (target.kind === 'app' ? await appResourceScopes(db, target.app.id, ctx) : PORTICO_API_SCOPES).join(' '),
    audience: target.kind === 'app' ? target.app.identity : porticoApiResource(issuer),
    accessTokenTTL: ACCESS_TOKEN_TTL_SECONDS,
    accessTokenFormat: 'jwt' as const,
    jwt: { sign: { alg: 'ES256' as const } },
  };
}

const bindingsByRequest = new WeakMap<object, Map<string, Promise<GrantBinding | undefined>>>();

/** The grant's binding, read once per request however many hooks ask for it. */
export function grantBindingFor(db: Database, ctx: object, grantId: string): Promise<GrantBinding | undefined> {
  let cache = bindingsByRequest.get(ctx);
  if (!cache) bindingsByRequest.set(ctx, (cache = new Map()));
  let binding = cache.get(grantId);
  if (!binding) cache.set(grantId, (binding = findGrantBinding(db, grantId)));
  return binding;
}

/** The grant behind the code or refresh token being exchanged at the token endpoint. */
export function exchangedGrantId(ctx: KoaContextWithOIDC): string | undefined {
  const entities = ctx.oidc?.entities as { AuthorizationCode?: { grantId?: string }; RefreshToken?: { grantId?: string }; DeviceCode?: { grantId?: string } } | undefined;
  return entities?.AuthorizationCode?.grantId ?? entities?.RefreshToken?.grantId ?? entities?.DeviceCode?.grantId;
}

export async function getResourceServer(db: Database, issuer: string, ctx: KoaContextWithOIDC, resource: string, client: unknown) {
  const { clientId, portico_app_id: appId = null } = client as PorticoClient;
  const policy = clientPolicyOf(client);
  if (!policy) throw new errors.InvalidTarget('this client may not request resources');
  const { kind } = policy;
  const porticoApi = porticoApiResource(issuer);

  if (policy.resourceServerFrom === 'request') {
    const resolution = await resolveClientResource(db, { id: clientId, kind, appId }, resource, porticoApi);
    if (!resolution.ok) throw new errors.InvalidTarget('the resource does not name an application this client may access');
    return resourceServerOf(db, ctx, resolution.target, issuer);
  }

  if (ctx.oidc.route === 'token') {
    const grantId = exchangedGrantId(ctx);
    const binding = grantId ? await grantBindingFor(db, ctx, grantId) : undefined;
    if (!binding || binding.clientId !== clientId || binding.resource !== resource) {
      throw new errors.InvalidTarget('the resource is not the one this grant was given for');
    }
    if (!binding.appId) return resourceServerOf(db, ctx, { kind: 'portico' }, issuer);
    const app = await findAppById(db, binding.appId);
    if (!app) throw new errors.InvalidTarget('the application of this grant no longer exists');
    return resourceServerOf(db, ctx, { kind: 'app', app }, issuer);
  }

  const resolution = await resolveClientResource(db, { id: clientId, kind, appId }, resource, porticoApi);
  if (resolution.ok) return resourceServerOf(db, ctx, resolution.target, issuer);
  return { scope: '', audience: UNRESOLVED_RESOURCE_AUDIENCE, accessTokenTTL: 1, accessTokenFormat: 'jwt' as const, jwt: { sign: { alg: 'ES256' as const } } };
}
