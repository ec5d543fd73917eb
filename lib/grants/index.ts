// The one place that ends grants. "End these grants and everything issued from them" means: the grant itself,
// every authorization code, refresh token and opaque access token issued from it (oidc-provider stores them with
// its grant id), and Portico's binding of the grant to an app and an actor. Selectors below name the grants of a
// client, an app, an agent, a person or an organization; callers pick one and end what it returns, in their own
// transaction. What no one can end: a JWT access token already issued stays valid until it expires (10 minutes at
// most), because apps verify it locally without calling Portico.
//
// Every ending here also tells the apps that were signed in through what ended (back-channel logout,
// lib/grants/logout-notices.ts), in the same transaction: sessions end only through endSessions, grants only
// through endGrants.
//
// Depends on lib/db, and on the outbox's channels through logout-notices.ts, so that accounts, clients, the console and
// the provider's adapter can all use it.
import { endGatewayConnections } from './gateway-connections';
import { and, eq, inArray, isNotNull, or, type SQL } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { apps, clients, grantBindings, oidcPayloads } from '../db/schema';
import { announceSessionEndings, endingsOfGrants, endingsOfSessionPayloads, type LogoutReason } from './logout-notices';

export type { LogoutReason } from './logout-notices';

/** What was ended, by oidc-provider model (Grant, RefreshToken, AuthorizationCode, AccessToken, …). */
export type EndedGrants = { grants: number; byKind: Record<string, number> };

function countByKind(rows: { kind: string }[]): Record<string, number> {
  const byKind: Record<string, number> = {};
  for (const { kind } of rows) byKind[kind] = (byKind[kind] ?? 0) + 1;
  return byKind;
}

/** Ends these grants and everything issued from them, and drops their bindings; the apps hear it. */
export async function endGrants(db: Queryable, grantIds: readonly string[], reason: LogoutReason = 'grant_ended'): Promise<EndedGrants> {
  const ids = [...new Set(grantIds)];
  if (ids.length === 0) return { grants: 0, byKind: {} };
  await announceSessionEndings(db, await endingsOfGrants(db, ids), reason);
  await db.delete(grantBindings).where(inArray(grantBindings.grantId, ids));
  const removed = await db
    .delete(oidcPayloads)
    .where(or(and(isNotNull(oidcPayloads.grantId), inArray(oidcPayloads.grantId, ids)), and(eq(oidcPayloads.kind, 'Grant'), inArray(oidcPayloads.id, ids))))
    .returning({ kind: oidcPayloads.kind });
  return { grants: ids.length, byKind: countByKind(removed) };
}

async function grantIdsWhere(db: Queryable, condition: SQL | undefined, bindingCondition?: SQL): Promise<string[]> {
  const direct = condition ? await db.select({ id: oidcPayloads.id }).from(oidcPayloads).where(and(eq(oidcPayloads.kind, 'Grant'), condition)) : [];
  const bound = bindingCondition ? await db.select({ id: grantBindings.grantId }).from(grantBindings).where(bindingCondition) : [];
  return [...new Set([...direct, ...bound].map((row) => row.id))];
}

/** Every client that reaches an app of the organization: the apps' own clients and clients bound to those apps. */
function clientsOfOrganization(db: Queryable, orgId: string) {
  return db
    .select({ id: clients.id })
    .from(clients)
    .leftJoin(apps, eq(apps.id, clients.appId))
    .where(or(eq(clients.orgId, orgId), eq(apps.orgId, orgId)));
}

/** The grants a client holds anywhere. */
export function grantsOfClient(db: Queryable, clientId: string): Promise<string[]> {
  return grantIdsWhere(db, eq(oidcPayloads.clientId, clientId), eq(grantBindings.clientId, clientId));
}

/** The grants a client holds at one app (bound to it by `resource`). */
export function grantsOfClientAtApp(db: Queryable, clientId: string, appId: string): Promise<string[]> {
  return grantIdsWhere(db, undefined, and(eq(grantBindings.clientId, clientId), eq(grantBindings.appId, appId)));
}

/** The grants in which this agent acts (`act`), optionally only those of one person. */
export function grantsOfAgent(db: Queryable, agentId: string, onlyForUserId?: string): Promise<string[]> {
  return grantIdsWhere(db, undefined, and(eq(grantBindings.agentId, agentId), onlyForUserId ? eq(grantBindings.accountId, onlyForUserId) : undefined));
}

/** The person's grants at the organization's clients, and their grants bound to the organization's apps. */
export function grantsOfPersonInOrganization(db: Queryable, orgId: string, userId: string): Promise<string[]> {
  return grantIdsWhere(
    db,
    and(eq(oidcPayloads.accountId, userId), inArray(oidcPayloads.clientId, clientsOfOrganization(db, orgId))),
    and(eq(grantBindings.orgId, orgId), eq(grantBindings.accountId, userId)),
  );
}

/** Every grant at the organization's clients or bound to its apps. */
export function grantsOfOrganization(db: Queryable, orgId: string): Promise<string[]> {
  return grantIdsWhere(db, inArray(oidcPayloads.clientId, clientsOfOrganization(db, orgId)), eq(grantBindings.orgId, orgId));
}

/** Every grant of the person, in every organization (also those an agent holds on their behalf). */
export function grantsOfPerson(db: Queryable, userId: string): Promise<string[]> {
  return grantIdsWhere(db, eq(oidcPayloads.accountId, userId), eq(grantBindings.accountId, userId));
}

/**
 * Ends the person's sign-in sessions (oidc-provider's Session model) — all of them, or the one with this uid — and
 * tells every app each of them signed in to. The next app visit asks for the password. Refresh tokens bound to a
 * session end with it; offline grants (offline_access) are the apps' own and stay.
 */
export async function endSessions(db: Queryable, userId: string, reason: LogoutReason, onlyUid?: string): Promise<number> {
  const ended = await db
    .delete(oidcPayloads)
    .where(and(eq(oidcPayloads.kind, 'Session'), eq(oidcPayloads.accountId, userId), onlyUid === undefined ? undefined : eq(oidcPayloads.uid, onlyUid)))
    .returning({ payload: oidcPayloads.payload });
  await announceSessionEndings(db, endingsOfSessionPayloads(ended.map((row) => row.payload)), reason);
  return ended.length;
}

/**
 * Tells the apps signed in through the app's grants that those sessions are over, without ending the grants (an
 * app turned off: its grants stay for when it is turned on again, and nothing is issued from them meanwhile).
 */
export async function noticeAppSessionsEnded(db: Queryable, appId: string, reason: LogoutReason): Promise<number> {
  return announceSessionEndings(db, await endingsOfGrants(db, await grantsOfApp(db, appId)), reason);
}

/** Removes what remains of a client's provider state that belongs to no grant (interactions in flight). */
export async function endUngrantedStateOfClient(db: Queryable, clientId: string): Promise<Record<string, number>> {
  return countByKind(await db.delete(oidcPayloads).where(eq(oidcPayloads.clientId, clientId)).returning({ kind: oidcPayloads.kind }));
}


/**
 * Removes a member's reach into the organization's apps: their grants there (with everything issued from them).
 * Returns how many grants ended.
 */
export async function endPersonGrantsInOrganization(db: Queryable, orgId: string, userId: string): Promise<number> {
  // Their own accounts at the organization's OAuth-protected gateway servers end too (tokens deleted, revoked upstream).
  await endGatewayConnections(db, { orgId, userId });
  return (await endGrants(db, await grantsOfPersonInOrganization(db, orgId, userId), 'member_removed')).grants;
}

/** Every client whose grants reach the app: its own client and clients that target it (external). */
function clientsOfApp(db: Queryable, appId: string) {
  return db.select({ id: clients.id }).from(clients).where(eq(clients.appId, appId));
}

/** Every grant at the app's clients or bound to the app (MCP clients that reached it by `resource`). */
export function grantsOfApp(db: Queryable, appId: string): Promise<string[]> {
  return grantIdsWhere(db, inArray(oidcPayloads.clientId, clientsOfApp(db, appId)), eq(grantBindings.appId, appId));
}

/** Before an app goes: every grant at it (with what was issued from them) and its clients' provider state in flight. */
export async function endAppGrants(db: Queryable, appId: string): Promise<EndedGrants> {
  // An app that stands for a gateway server: the people's accounts at that server end with it.
  await endGatewayConnections(db, { appId });
  const ended = await endGrants(db, await grantsOfApp(db, appId), 'app_deleted');
  await db.delete(oidcPayloads).where(inArray(oidcPayloads.clientId, clientsOfApp(db, appId)));
  return ended;
}

/** Before an organization goes: every grant at its clients or bound to its apps, and its clients' provider state. */
export async function endOrganizationGrants(db: Queryable, orgId: string): Promise<void> {
  await endGatewayConnections(db, { orgId });
  await endGrants(db, await grantsOfOrganization(db, orgId), 'app_deleted');
  await db.delete(oidcPayloads).where(inArray(oidcPayloads.clientId, clientsOfOrganization(db, orgId)));
}

/**
 * After a password change or reset: every grant of the person in every organization (also an agent's on their
 * behalf), their sessions, and any sign-in still in flight (an interaction that passed the old password).
 */
export async function endEverythingOfPerson(db: Queryable, userId: string, reason: LogoutReason = 'credentials_changed'): Promise<number> {
  const { grants } = await endGrants(db, await grantsOfPerson(db, userId), reason);
  await endSessions(db, userId, reason);
  await db.delete(oidcPayloads).where(eq(oidcPayloads.accountId, userId));
  return grants;
}

/** Revoking a client: every grant it holds anywhere, and its provider state in flight. Counts by model. */
export async function endClientAccess(db: Queryable, clientId: string): Promise<Record<string, number>> {
  const { byKind } = await endGrants(db, await grantsOfClient(db, clientId), 'access_revoked');
  for (const [kind, count] of Object.entries(await endUngrantedStateOfClient(db, clientId))) byKind[kind] = (byKind[kind] ?? 0) + count;
  return byKind;
}
