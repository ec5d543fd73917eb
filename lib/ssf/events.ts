// Shared Signals (OpenID SSF 1.0, CAEP 1.0, RISC 1.0): which security events Portico transmits, about whom, to which
// streams. An event is queued in the outbound outbox in the transaction of the change that caused it — one row per
// stream that asked for that event type — and signed as a Security Event Token (RFC 8417) when it is pushed or
// polled (the security_event channel, lib/deliveries/channels/security-event.ts). Each event goes only to streams of
// apps the person uses (a grant at the app's own client) and so only inside the organizations concerned (a grant
// there means membership there).
//
// Depends on lib/db and the outbox only: lib/grants and lib/accounts call it.
import { and, eq, inArray, ne, sql } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { clients, oidcPayloads, outboundDeliveries, ssfStreams } from '../db/schema';
import { securityEventRow, type EventSubject } from '../deliveries/channels/security-event';
import { enqueue, type NewDelivery } from '../deliveries/outbox';

const CAEP = 'https://schemas.openid.net/secevent/caep/event-type/';
const RISC = 'https://schemas.openid.net/secevent/risc/event-type/';

export const SSF_EVENT_TYPES = {
  sessionRevoked: `${CAEP}session-revoked`,
  credentialChange: `${CAEP}credential-change`,
  tokenClaimsChange: `${CAEP}token-claims-change`,
  assuranceLevelChange: `${CAEP}assurance-level-change`,
  accountDisabled: `${RISC}account-disabled`,
  accountPurged: `${RISC}account-purged`,
  credentialCompromise: `${RISC}credential-compromise`,
} as const;

/** SSF 1.0 §8.1.4: sent on request to prove the stream works; delivered whatever the stream asked for. */
export const VERIFICATION_EVENT = 'https://schemas.openid.net/secevent/ssf/event-type/verification';

/**
 * What a stream may request (`events_supported` in its configuration). Not RISC account-enabled: a disabled
 * account's grants and sessions are ended, so no app holds a session of it to resume; it signs in again.
 */
export const EVENTS_SUPPORTED: readonly string[] = Object.values(SSF_EVENT_TYPES);

/** The apps' own clients this person uses (holds a grant at), optionally only one organization's or some clients. */
export async function appClientsUsedBy(db: Queryable, userId: string, only: { orgId?: string; clientIds?: readonly string[] } = {}): Promise<string[]> {
  if (only.clientIds && only.clientIds.length === 0) return [];
  const rows = await db
    .selectDistinct({ clientId: oidcPayloads.clientId })
    .from(oidcPayloads)
    .innerJoin(clients, and(eq(clients.id, oidcPayloads.clientId), eq(clients.kind, 'app'), only.orgId ? eq(clients.orgId, only.orgId) : undefined))
    .where(and(eq(oidcPayloads.kind, 'Grant'), eq(oidcPayloads.accountId, userId), only.clientIds ? inArray(oidcPayloads.clientId, [...only.clientIds]) : undefined));
  return rows.map((row) => row.clientId).filter((id): id is string => id !== null);
}

/**
 * Queues one event for every stream of these clients that asked for its type and is not disabled, about this
 * subject. Returns how many were queued.
 */
export async function queueSecurityEvent(db: Queryable, input: { clientIds: readonly string[]; subject: EventSubject; eventType: string; event: Record<string, unknown>; at?: Date }): Promise<number> {
  return queueSecurityEvents(db, { targets: input.clientIds.map((clientId) => ({ clientId, subject: input.subject })), eventType: input.eventType, event: input.event, at: input.at });
}

/**
 * Queues one event of this type for each target (a client and a subject), on every stream of the target's client
 * that asked for the type and is not disabled (securityEventRow). A session-revoked event about a subject that still
 * waits in a stream is not queued twice (a password reset ends the grant and then the session that held it; a sign-out ends the session and
 * then its grants): the unique index outbound_deliveries_waiting_session_revoked. Returns how many were queued.
 */
export async function queueSecurityEvents(
  db: Queryable,
  input: { targets: readonly { clientId: string; subject: EventSubject }[]; eventType: string; event: Record<string, unknown>; at?: Date },
): Promise<number> {
  if (input.targets.length === 0) return 0;
  const streams = await db
    .select({ id: ssfStreams.id, clientId: ssfStreams.clientId, orgId: ssfStreams.orgId, deliveryMethod: ssfStreams.deliveryMethod, displayEndpointUrl: ssfStreams.displayEndpointUrl, status: ssfStreams.status })
    .from(ssfStreams)
    .where(and(inArray(ssfStreams.clientId, [...new Set(input.targets.map((target) => target.clientId))]), ne(ssfStreams.status, 'disabled'), sql`${input.eventType} = any(${ssfStreams.eventsRequested})`));
  if (streams.length === 0) return 0;
  const iat = Math.floor((input.at ?? new Date()).getTime() / 1000);
  const event = { event_timestamp: iat, ...input.event };
  const seen = new Set<string>();
  const rows: NewDelivery[] = [];
  for (const target of input.targets) {
    for (const stream of streams) {
      if (stream.clientId !== target.clientId) continue;
      const key = `${stream.id}\u0000${JSON.stringify(target.subject)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      rows.push(securityEventRow(stream, { subject: target.subject, eventType: input.eventType, event, iat }));
    }
  }
  return (await enqueue(db, rows, { skipDuplicates: true })).length;
}

/**
 * An event about a person, to every app of theirs whose stream asked for it — or only the apps of one organization,
 * for what an organization's admin did.
 */
export async function queuePersonEvent(db: Queryable, userId: string, eventType: string, event: Record<string, unknown>, orgId?: string): Promise<number> {
  return queueSecurityEvent(db, { clientIds: await appClientsUsedBy(db, userId, { orgId }), subject: { sub: userId }, eventType, event });
}

/** CAEP 1.0 §3.2 credential types Portico has. */
export type CredentialType = 'password' | 'fido2-platform' | 'fido2-roaming' | 'app';

/** CAEP credential-change (§3.2), and assurance-level-change (§3.3) when the person gained their first second factor or lost their last. */
export async function queueCredentialChange(
  db: Queryable,
  input: { userId: string; credentialType: CredentialType; changeType: 'create' | 'revoke' | 'update' | 'delete'; friendlyName?: string; secondFactorsBefore?: number; secondFactorsAfter?: number },
): Promise<void> {
  const clientIds = await appClientsUsedBy(db, input.userId);
  if (clientIds.length === 0) return;
  const subject = { sub: input.userId };
  await queueSecurityEvent(db, {
    clientIds,
    subject,
    eventType: SSF_EVENT_TYPES.credentialChange,
    event: { credential_type: input.credentialType, change_type: input.changeType, ...(input.friendlyName ? { friendly_name: input.friendlyName } : {}), initiating_entity: 'user' },
  });
  const before = input.secondFactorsBefore;
  const after = input.secondFactorsAfter;
  if (before === undefined || after === undefined || (before > 0) === (after > 0)) return;
  // NIST SP 800-63B: a password alone is AAL1; with a second factor, AAL2.
  await queueSecurityEvent(db, {
    clientIds,
    subject,
    eventType: SSF_EVENT_TYPES.assuranceLevelChange,
    event: { namespace: 'NIST-AAL', current_level: after > 0 ? 'nist-aal2' : 'nist-aal1', previous_level: before > 0 ? 'nist-aal2' : 'nist-aal1', change_direction: after > 0 ? 'increase' : 'decrease', initiating_entity: 'user' },
  });
}

/** How long an event waits in a stream (polled and not acknowledged, or held by a paused stream) before it is given up. */
export const UNCOLLECTED_EVENT_DAYS = 30;

/**
 * Gives up the security events that waited longer than UNCOLLECTED_EVENT_DAYS (a poll stream nobody polls, a stream
 * paused and forgotten), a batch at a time: marked failed, they leave with the delivery log's retention. Run by the
 * ticker (lib/notifications/ticker.ts). Returns how many.
 */
export async function giveUpUncollectedEvents(db: Queryable, at: Date = new Date()): Promise<number> {
  const rows = await db
    .update(outboundDeliveries)
    .set({ failedAt: sql`${at.toISOString()}::timestamptz`, lastError: `not collected within ${UNCOLLECTED_EVENT_DAYS} days` })
    .where(
      sql`${outboundDeliveries.id} in (select id from ${outboundDeliveries} where channel in ('security_event', 'security_event_poll') and delivered_at is null and failed_at is null
        and created_at < ${at.toISOString()}::timestamptz - make_interval(days => ${UNCOLLECTED_EVENT_DAYS}) limit 500)`,
    )
    .returning({ id: outboundDeliveries.id });
  return rows.length;
}
