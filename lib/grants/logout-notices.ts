// When Portico ends a person's session or grant, every app that was signed in through it hears so, from the outbox:
// by a back-channel logout token (OpenID Connect Back-Channel Logout 1.0) when it registered a
// `backchannel_logout_uri` (signed when it is sent, lib/deliveries/logout-token-delivery.ts), and by a CAEP
// session-revoked event on each of its Shared Signals streams that asked for one (lib/ssf/). This file decides who
// hears what; it is called by the functions that end sessions and grants (lib/grants/index.ts), in their
// transaction, so that a notice is queued exactly when the ending commits.
//
// Depends on lib/db only, like the rest of lib/grants.
import { createHash } from 'node:crypto';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { chunksOf, type Queryable } from '../db/client';
import { apps, clients, oidcPayloads, outboundDeliveries } from '../db/schema';
import { queueSecurityEvents, SSF_EVENT_TYPES } from '../ssf/events';

/** Why an app's session of a person ended: shown in the app's delivery log (the token itself carries no reason). */
export const LOGOUT_REASONS = [
  'signed_out',
  'session_ended',
  'credentials_changed',
  'second_factor_removed',
  'member_removed',
  'account_disabled',
  'account_deleted',
  'access_revoked',
  'app_disabled',
  'app_deleted',
  'grant_ended',
] as const;
export type LogoutReason = (typeof LOGOUT_REASONS)[number];

/** One app session that ended: the client, the person (`sub`), and the session id its ID tokens carried (`sid`). */
export interface SessionEnding {
  clientId: string;
  accountId: string;
  sid?: string;
}

/**
 * What a queued logout token delivery holds until it is signed and sent (no secret: stored as is). The URI the
 * client had when it was queued: the client's current one is used when it is sent, this one only when the client is
 * gone (its app was deleted, which is itself an ending to announce) (lib/deliveries/logout-token-delivery.ts).
 */
export interface LogoutTokenPayload {
  uri: string;
  sub: string;
  sid?: string;
  /** The client's ID token algorithm (Back-Channel Logout 1.0 §2.4: logout tokens are signed like its ID tokens). */
  alg: string;
}

interface SessionAuthorization {
  sid?: unknown;
  grantId?: unknown;
}

function authorizationsOf(payload: Record<string, unknown>): Record<string, SessionAuthorization> {
  const authorizations = payload.authorizations;
  return typeof authorizations === 'object' && authorizations !== null ? (authorizations as Record<string, SessionAuthorization>) : {};
}

/** Every app session a stored oidc-provider Session held: one per client it signed in to. */
export function endingsOfSessionPayloads(payloads: readonly Record<string, unknown>[]): SessionEnding[] {
  return payloads.flatMap((payload) => {
    const accountId = typeof payload.accountId === 'string' ? payload.accountId : undefined;
    if (!accountId) return [];
    return Object.entries(authorizationsOf(payload)).map(([clientId, authorization]) => ({
      clientId,
      accountId,
      ...(typeof authorization.sid === 'string' ? { sid: authorization.sid } : {}),
    }));
  });
}

/**
 * The app sessions that depend on these grants: each grant's client and person, with the `sid` of the session
 * that holds the grant when one still does (a grant of an MCP client, or one whose session expired, has none: the
 * token then names the person alone).
 */
export async function endingsOfGrants(db: Queryable, grantIds: readonly string[]): Promise<SessionEnding[]> {
  if (grantIds.length === 0) return [];
  const grants = await db
    .select({ id: oidcPayloads.id, clientId: oidcPayloads.clientId, accountId: oidcPayloads.accountId })
    .from(oidcPayloads)
    .where(and(eq(oidcPayloads.kind, 'Grant'), inArray(oidcPayloads.id, [...grantIds])));
  const accountIds = [...new Set(grants.map((grant) => grant.accountId).filter((id): id is string => id !== null))];
  if (accountIds.length === 0) return [];
  const sessions = await db
    .select({ payload: oidcPayloads.payload })
    .from(oidcPayloads)
    .where(and(eq(oidcPayloads.kind, 'Session'), inArray(oidcPayloads.accountId, accountIds)));
  return grants.flatMap((grant) => {
    if (!grant.clientId || !grant.accountId) return [];
    const holding = sessions
      .map(({ payload }) => authorizationsOf(payload)[grant.clientId!])
      .filter((authorization) => authorization?.grantId === grant.id && typeof authorization.sid === 'string');
    if (holding.length === 0) return [{ clientId: grant.clientId, accountId: grant.accountId }];
    return holding.map((authorization) => ({ clientId: grant.clientId!, accountId: grant.accountId!, sid: authorization!.sid as string }));
  });
}

/** The same (client, person, session) always names the same waiting delivery: a second ending of it adds nothing. */
function endingKey(ending: SessionEnding): string {
  return `logout:${createHash('sha256').update(`${ending.clientId}\u0000${ending.accountId}\u0000${ending.sid ?? ''}`).digest('base64url')}`;
}

/** What the console shows of where the tokens go: the origin and path, never a query. */
export function shownLogoutUri(uri: string): string {
  try {
    const url = new URL(uri);
    return `${url.origin}${url.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}

/**
 * Queues a logout token for each ending whose client registered a back-channel logout URI. A client that requires
 * the session id (`backchannel_logout_session_required`) gets none for an ending without one: it could not act on
 * it (Back-Channel Logout 1.0 §2.2). Returns how many were queued.
 */
export async function queueLogoutTokens(db: Queryable, endings: readonly SessionEnding[], reason: LogoutReason): Promise<number> {
  if (endings.length === 0) return 0;
  const clientIds = [...new Set(endings.map((ending) => ending.clientId))];
  const receivers = await db
    .select({
      id: clients.id,
      orgId: sql<string | null>`coalesce(${clients.orgId}, ${apps.orgId})`,
      uri: sql<string>`${clients.metadata}->>'backchannel_logout_uri'`,
      sessionRequired: sql<boolean>`coalesce((${clients.metadata}->>'backchannel_logout_session_required')::boolean, false)`,
      alg: sql<string | null>`${clients.metadata}->>'id_token_signed_response_alg'`,
    })
    .from(clients)
    .leftJoin(apps, eq(apps.id, clients.appId))
    .where(and(inArray(clients.id, clientIds), sql`${clients.metadata} ? 'backchannel_logout_uri'`));
  if (receivers.length === 0) return 0;
  const receiverOf = new Map(receivers.map((receiver) => [receiver.id, receiver]));
  const seen = new Set<string>();
  const rows: (typeof outboundDeliveries.$inferInsert)[] = [];
  for (const ending of endings) {
    const receiver = receiverOf.get(ending.clientId);
    if (!receiver?.uri || (receiver.sessionRequired && !ending.sid)) continue;
    const key = endingKey(ending);
    if (seen.has(key)) continue;
    seen.add(key);
    const payload: LogoutTokenPayload = { uri: receiver.uri, sub: ending.accountId, ...(ending.sid ? { sid: ending.sid } : {}), alg: receiver.alg ?? 'RS256' };
    rows.push({ channel: 'logout_token', orgId: receiver.orgId, clientId: receiver.id, recipient: shownLogoutUri(receiver.uri), messageId: key, eventType: reason, payload });
  }
  // A token for the same session still waiting (the grant and its session ending in one change) covers this one.
  let queued = 0;
  for (const chunk of chunksOf(rows)) queued += (await db.insert(outboundDeliveries).values(chunk).onConflictDoNothing().returning({ id: outboundDeliveries.id })).length;
  return queued;
}

/** CAEP 1.0 §3.1 `initiating_entity` of each reason. */
const INITIATED_BY: Record<LogoutReason, 'user' | 'admin' | 'policy' | 'system'> = {
  signed_out: 'user',
  session_ended: 'user',
  credentials_changed: 'user',
  second_factor_removed: 'user',
  member_removed: 'admin',
  account_disabled: 'admin',
  account_deleted: 'admin',
  access_revoked: 'admin',
  app_disabled: 'admin',
  app_deleted: 'admin',
  grant_ended: 'policy',
};

/** CAEP's `reason_admin`: for the app's administrators, in English (the receiver's logs). */
const REASON_TEXT: Record<LogoutReason, string> = {
  signed_out: 'The person signed out.',
  session_ended: 'The person ended this session.',
  credentials_changed: 'The person’s password was changed or reset.',
  second_factor_removed: 'The person removed a second factor.',
  member_removed: 'The person was removed from the organization.',
  account_disabled: 'The person’s account was disabled.',
  account_deleted: 'The person’s account was deleted.',
  access_revoked: 'An administrator revoked the app’s access.',
  app_disabled: 'The app was turned off.',
  app_deleted: 'The app was deleted.',
  grant_ended: 'The person’s access to the app ended.',
};

/**
 * Tells the apps these sessions are over: logout tokens (queueLogoutTokens) and CAEP session-revoked events to the
 * streams that asked for them. Returns how many notices were queued.
 */
export async function announceSessionEndings(db: Queryable, endings: readonly SessionEnding[], reason: LogoutReason): Promise<number> {
  if (endings.length === 0) return 0;
  const tokens = await queueLogoutTokens(db, endings, reason);
  const events = await queueSecurityEvents(db, {
    targets: endings.map((ending) => ({ clientId: ending.clientId, subject: { sub: ending.accountId, ...(ending.sid ? { sid: ending.sid } : {}) } })),
    eventType: SSF_EVENT_TYPES.sessionRevoked,
    event: { initiating_entity: INITIATED_BY[reason], reason_admin: { en: REASON_TEXT[reason] } },
  });
  return tokens + events;
}
