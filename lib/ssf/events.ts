// Shared Signals (OpenID SSF 1.0, CAEP 1.0, RISC 1.0): which security events Portico transmits, about whom, to which
// streams. An event is queued in the outbound outbox in the transaction of the change that caused it — one row per
// stream that asked for that event type — and signed as a Security Event Token (RFC 8417) when it is pushed or
// polled (lib/ssf/set.ts). Each event goes only to streams of apps the person uses (a grant at the app's own client)
// and so only inside the organizations concerned (a grant there means membership there).
//
// Depends on lib/db only: lib/grants and lib/accounts call it.
import { randomUUID } from 'node:crypto';
import { and, eq, inArray, ne, sql } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { clients, oidcPayloads, outboundDeliveries, ssfStreams } from '../db/schema';

const CAEP = 'https://schemas.openid.net/secevent/caep/event-type/';
const RISC = 'https://schemas.openid.net/secevent/risc/event-type/';

export const SSF_EVENT_TYPES = {
  sessionRevoked: `${CAEP}session-revoked`,
  credentialChange: `${CAEP}credential-change`,
  tokenClaimsChange: `${CAEP}token-claims-change`,
  assuranceLevelChange: `${CAEP}assurance-level-change`,
  accountDisabled: `${RISC}account-disabled`,
  accountEnabled: `${RISC}account-enabled`,
  credentialCompromise: `${RISC}credential-compromise`,
} as const;

/** SSF 1.0 §8.1.4: sent on request to prove the stream works; delivered whatever the stream asked for. */
export const VERIFICATION_EVENT = 'https://schemas.openid.net/secevent/ssf/event-type/verification';

/** What a stream may request (`events_supported` in its configuration). */
export const EVENTS_SUPPORTED: readonly string[] = Object.values(SSF_EVENT_TYPES);

/**
 * Who an event is about (RFC 9493 subject identifiers): the person, and their session when there is one; or, for a
 * verification event, the stream itself.
 */
export type EventSubject = { sub: string; sid?: string } | { stream: string };

/** A queued event, as stored until it is signed: the SET but `iss`, `aud`, the subject's issuer and the signature. */
export interface SecurityEventPayload {
  jti: string;
  iat: number;
  subject: EventSubject;
  events: Record<string, Record<string, unknown>>;
}

/** RFC 9493 §3.2.2 `iss_sub`, or SSF 1.0 §3.3's complex subject with the session (`opaque` format, the `sid`). */
export function subjectIdentifier(issuer: string, subject: EventSubject): Record<string, unknown> {
  // SSF 1.0 §8.1.4.1: a verification event names its stream.
  if ('stream' in subject) return { format: 'opaque', id: subject.stream };
  const user = { format: 'iss_sub', iss: issuer, sub: subject.sub };
  return subject.sid ? { format: 'complex', user, session: { format: 'opaque', id: subject.sid } } : user;
}

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
 * Queues one event for every stream of these clients that asked for its type and is not disabled (a paused stream
 * keeps it until it is enabled again, SSF 1.0 §8.1.2). Returns how many were queued.
 */
export async function queueSecurityEvent(
  db: Queryable,
  input: { clientIds: readonly string[]; subject: EventSubject; eventType: string; event: Record<string, unknown>; at?: Date; oncePerTransaction?: boolean },
): Promise<number> {
  if (input.clientIds.length === 0) return 0;
  const streams = await db
    .select({ id: ssfStreams.id, clientId: ssfStreams.clientId, orgId: ssfStreams.orgId, method: ssfStreams.deliveryMethod, display: ssfStreams.displayEndpointUrl, status: ssfStreams.status })
    .from(ssfStreams)
    .where(and(inArray(ssfStreams.clientId, [...new Set(input.clientIds)]), ne(ssfStreams.status, 'disabled'), sql`${input.eventType} = any(${ssfStreams.eventsRequested})`));
  if (input.oncePerTransaction && streams.length > 0) {
    // now() is the transaction's start: a row of this type and subject made at that moment was queued by this same
    // change (a password reset ends the grant and then the session that held it: one session-revoked, not two).
    const already = await db
      .select({ streamId: outboundDeliveries.streamId })
      .from(outboundDeliveries)
      .where(
        and(
          inArray(outboundDeliveries.streamId, streams.map((stream) => stream.id)),
          eq(outboundDeliveries.eventType, input.eventType),
          sql`${outboundDeliveries.createdAt} = now() and ${outboundDeliveries.payload}->'subject' = ${JSON.stringify(input.subject)}::jsonb`,
        ),
      );
    const done = new Set(already.map((row) => row.streamId));
    streams.splice(0, streams.length, ...streams.filter((stream) => !done.has(stream.id)));
  }
  if (streams.length === 0) return 0;
  const iat = Math.floor((input.at ?? new Date()).getTime() / 1000);
  const event = { event_timestamp: iat, ...input.event };
  await db.insert(outboundDeliveries).values(
    streams.map((stream) => {
      const jti = randomUUID();
      const payload: SecurityEventPayload = { jti, iat, subject: input.subject, events: { [input.eventType]: event } };
      return {
        channel: stream.method === 'push' ? ('security_event' as const) : ('security_event_poll' as const),
        orgId: stream.orgId,
        clientId: stream.clientId,
        streamId: stream.id,
        recipient: stream.display ?? 'poll',
        messageId: jti,
        eventType: input.eventType,
        payload,
        // Held while the stream is paused; enabling it makes them due (lib/ssf/streams.ts).
        ...(stream.status === 'paused' ? { nextAttemptAt: sql`'infinity'::timestamptz` } : {}),
      };
    }),
  );
  return streams.length;
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
