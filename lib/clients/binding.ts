// Resource binding (RFC 8707) for clients that are not an app's own: external, dynamically registered and CIMD
// clients. Such a client reaches an app only through the `resource` its authorization request names; the person's
// consent then binds the grant to that app (and to who acts) once, in `grant_bindings`.
import { DEFAULT_LOCALE, translator } from '../i18n/catalogs';
import { and, eq, sql } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { agents, apps, clientAppLinks, clients, grantBindings } from '../db/schema';
import { endGrants, grantsOfClientAtApp } from '../grants';
import { findUsableAgent } from '../organizations/agents';
import { findAppByResource, type App } from './apps';
import { policyOfKind, type ClientKind } from '../oidc/client-policy';

export type { ClientKind } from '../oidc/client-policy';

export interface RequestingClient {
  id: string;
  kind: ClientKind;
  /** An app's own client: its app. An external client: its target app. Others: null. */
  appId: string | null;
}

/** Why a resource cannot be granted to the client; each has its own message on the authorization screen. */
export type ResourceRefusal = 'missing_resource' | 'several_resources' | 'unknown_resource' | 'other_app' | 'revoked_for_app' | 'no_scope' | 'app_disabled';

/** Why a connection is refused, in a language (messages/*.json, signIn.refusals; English on the wire). */
export function resourceRefusalMessage(reason: ResourceRefusal, locale: string = DEFAULT_LOCALE): string {
  return translator(locale, 'signIn')(`refusals.${reason}`);
}

/** What a resource names: one app of an organization, or Portico's own API (`<issuer>/api/mcp`). */
export type ResourceTarget = { kind: 'app'; app: App } | { kind: 'portico' };

export type ResourceResolution = { ok: true; target: ResourceTarget; resource: string } | { ok: false; reason: ResourceRefusal };

/** The single resource indicator of an authorization request, however oidc-provider parsed it. */
export function requestedResource(value: unknown): string | undefined | 'several' {
  if (Array.isArray(value)) return value.length === 0 ? undefined : value.length === 1 ? String(value[0]) : 'several';
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * Which app (or Portico's own API) the client may reach with this resource, or why not. Used at authorization,
 * never at token exchange. Portico's own API is checked first: its origin may also be an app's redirect origin
 * (the demo app signs in at Portico's own address), and Portico's API is never that app's resource.
 */
export async function resolveClientResource(
  db: Queryable,
  client: RequestingClient,
  resourceParam: unknown,
  porticoApiResource: string,
): Promise<ResourceResolution> {
  const resource = requestedResource(resourceParam);
  if (resource === undefined) return { ok: false, reason: 'missing_resource' };
  if (resource === 'several') return { ok: false, reason: 'several_resources' };
  if (resource === porticoApiResource) {
    // Apps' own clients and external clients serve one app; only MCP clients that bound themselves reach Portico.
    return policyOfKind(client.kind).mayReachPorticoApi ? { ok: true, target: { kind: 'portico' }, resource } : { ok: false, reason: 'other_app' };
  }
  const app = await findAppByResource(db, resource);
  if (!app) return { ok: false, reason: 'unknown_resource' };
  if (app.disabledAt) return { ok: false, reason: 'app_disabled' };
  // An app's own client and an external client each serve one app: their own, their target.
  if (policyOfKind(client.kind).servesOneApp && app.id !== client.appId) return { ok: false, reason: 'other_app' };
  if (!policyOfKind(client.kind).firstParty) {
    const [link] = await db
      .select({ revokedAt: clientAppLinks.revokedAt })
      .from(clientAppLinks)
      .where(and(eq(clientAppLinks.clientId, client.id), eq(clientAppLinks.appId, app.id)))
      .limit(1);
    if (link?.revokedAt) return { ok: false, reason: 'revoked_for_app' };
  }
  return { ok: true, target: { kind: 'app', app }, resource };
}

/** A grant's binding, and whether the app it binds to is disabled (read in the same statement). */
export type GrantBinding = typeof grantBindings.$inferSelect & { appDisabled: boolean };

export async function findGrantBinding(db: Queryable, grantId: string): Promise<GrantBinding | undefined> {
  const [row] = await db
    .select({ binding: grantBindings, appDisabledAt: apps.disabledAt })
    .from(grantBindings)
    .leftJoin(apps, eq(apps.id, grantBindings.appId))
    .where(eq(grantBindings.grantId, grantId))
    .limit(1);
  return row ? { ...row.binding, appDisabled: row.appDisabledAt !== null } : undefined;
}

export interface ConsentRecord {
  grantId: string;
  client: RequestingClient & { name: string; metadata?: Record<string, unknown> };
  target: ResourceTarget;
  resource: string;
  accountId: string;
  agentId: string | null;
}

/**
 * Writes what a consent binds: the client's link to the app (refused when the organization revoked it there) and
 * the grant's binding. A CIMD client is mirrored into `clients` (kind 'cimd') so that links, bindings and the
 * console refer to it like any other; its metadata is still fetched from its document, never from this row.
 * Says why not when the client was revoked at the app, or the agent stopped being usable, in the meantime.
 */
export async function recordConsentBinding(tx: Queryable, record: ConsentRecord): Promise<'bound' | 'revoked' | 'agent_not_allowed'> {
  if (record.client.kind === 'cimd') {
    await tx
      .insert(clients)
      .values({ id: record.client.id, kind: 'cimd', type: 'public', name: record.client.name, tokenEndpointAuthMethod: 'none', metadata: record.client.metadata ?? {} })
      .onConflictDoUpdate({ target: clients.id, set: { name: record.client.name, metadata: record.client.metadata ?? {} }, where: eq(clients.kind, 'cimd') });
  }
  const app = record.target.kind === 'app' ? record.target.app : undefined;
  if (app) {
    await tx.insert(clientAppLinks).values({ clientId: record.client.id, appId: app.id, orgId: app.orgId }).onConflictDoNothing();
    // Locks the link row, so a revocation running at the same time either sees this binding or makes this one fail.
    const [link] = await tx
      .select({ revokedAt: clientAppLinks.revokedAt })
      .from(clientAppLinks)
      .where(and(eq(clientAppLinks.clientId, record.client.id), eq(clientAppLinks.appId, app.id)))
      .for('update');
    if (!link || link.revokedAt) return 'revoked';
  }
  if (record.agentId) {
    // Lock the agent against a concurrent disable, delete or move, then check again that the person may use it:
    // a binding can never name an agent that was disabled while the person was deciding.
    const [agent] = await tx.select({ id: agents.id }).from(agents).where(eq(agents.id, record.agentId)).for('share');
    if (!agent || !app || !(await findUsableAgent(tx, app.orgId, record.accountId, record.agentId))) return 'agent_not_allowed';
  }
  await tx.insert(grantBindings).values({
    grantId: record.grantId,
    clientId: record.client.id,
    appId: app?.id ?? null,
    orgId: app?.orgId ?? null,
    resource: record.resource,
    accountId: record.accountId,
    agentId: record.agentId,
  });
  return 'bound';
}

/**
 * Ends every grant the client holds at the app (with their codes and refresh tokens) and drops their bindings.
 * Access tokens already issued (JWTs, 10 minutes at most) run out on their own.
 */
export async function endClientGrantsAtApp(tx: Queryable, clientId: string, appId: string): Promise<number> {
  return (await endGrants(tx, await grantsOfClientAtApp(tx, clientId, appId), 'access_revoked')).grants;
}

export type ClientRevocation = { ok: true; grantsEnded: number } | { ok: false; reason: 'not_linked' | 'already_revoked' };

/**
 * Revokes a client at one app: no new authorization for it there, and its live grants there end, in the caller's
 * transaction. A client that never reached the app (or an external client of another app) is refused, so a
 * revocation started from one app can never touch another.
 */
export async function revokeClientAtApp(tx: Queryable, clientId: string, appId: string): Promise<ClientRevocation> {
  const [link] = await tx
    .select({ revokedAt: clientAppLinks.revokedAt, kind: clients.kind, clientAppId: clients.appId })
    .from(clientAppLinks)
    .innerJoin(clients, eq(clients.id, clientAppLinks.clientId))
    .where(and(eq(clientAppLinks.clientId, clientId), eq(clientAppLinks.appId, appId)))
    .for('update', { of: clientAppLinks });
  const revocation = link ? policyOfKind(link.kind).revocationAtApp : 'not_applicable';
  if (!link || revocation === 'not_applicable' || (revocation === 'client' && link.clientAppId !== appId)) return { ok: false, reason: 'not_linked' };
  if (link.revokedAt) return { ok: false, reason: 'already_revoked' };
  await tx
    .update(clientAppLinks)
    .set({ revokedAt: sql`now()` })
    .where(and(eq(clientAppLinks.clientId, clientId), eq(clientAppLinks.appId, appId)));
  // An external client exists for this one app only: revoking it there revokes the client itself.
  if (revocation === 'client') await tx.update(clients).set({ revokedAt: sql`now()` }).where(eq(clients.id, clientId));
  const grantsEnded = await endClientGrantsAtApp(tx, clientId, appId);
  return { ok: true, grantsEnded };
}
