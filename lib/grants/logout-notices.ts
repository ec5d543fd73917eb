// When Portico ends a person's session or grant, every app that was signed in through it hears so, from the outbox:
// by a back-channel logout token (OpenID Connect Back-Channel Logout 1.0) when it registered a
// `backchannel_logout_uri` (the outbox's logout_token channel, lib/deliveries/channels/logout-token.ts), and by a
// CAEP session-revoked event on each of its Shared Signals streams that asked for one (lib/ssf/events.ts, the
// security_event channel). This file decides who hears what; it is called by the functions that end sessions and
// grants (lib/grants/index.ts), in their transaction, so that a notice is queued exactly when the ending commits.
import { and, eq, inArray } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { oidcPayloads } from '../db/schema';
import { queueLogoutTokens } from '../deliveries/channels/logout-token';
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
