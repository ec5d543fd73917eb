// Security Event Tokens (RFC 8417) as SSF 1.0 §4 has them: `typ: secevent+jwt`, signed with Portico's ES256 key (the
// JWKS of /oidc/jwks, announced as jwks_uri in /.well-known/ssf-configuration), with iss, aud (the stream's receiver:
// the app's client id), iat (when it is signed; the event's own time is its event_timestamp), jti, sub_id and one
// event; no exp (RFC 8417 §2.2: a SET describes a fact, it does not grant anything). Signed when sent, so a queued event holds no signature to leak.
// Also the outbox's push channel (RFC 8935), and the rows the events of lib/ssf/events.ts are queued as.
import { and, eq, sql } from 'drizzle-orm';
import { importJWK, SignJWT, type JWK } from 'jose';
import type { Queryable } from '../../db/client';
import { outboundDeliveries, ssfStreams } from '../../db/schema';
import { randomUUID } from 'node:crypto';
import { DeliveryDeferred, DeliveryFailed, type DeliveryHandler, type NewDelivery } from '../outbox';
import { outboundRequest, OutboundRefused, type OutboundPolicy } from '../../http/outbound';
import { decryptAtRest } from '../../security/at-rest';

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

/** The stream an event is queued for: where it goes, how, and whether it is held. */
export type StreamOfEvent = Pick<typeof ssfStreams.$inferSelect, 'id' | 'clientId' | 'orgId' | 'deliveryMethod' | 'displayEndpointUrl' | 'status'>;

/**
 * When a stream's waiting events are due for the outbox: at once when it pushes and is enabled; never when it is
 * paused (held until it is enabled, SSF 1.0 §8.1.2) or polled (the receiver fetches them, lib/ssf/streams.ts).
 */
export function dueOf(stream: Pick<StreamOfEvent, 'deliveryMethod' | 'status'>) {
  return stream.deliveryMethod === 'push' && stream.status === 'enabled' ? sql`now()` : sql`'infinity'::timestamptz`;
}

/** The outbox row of one event for one stream. */
export function securityEventRow(stream: StreamOfEvent, input: { subject: EventSubject; eventType: string; event: Record<string, unknown>; iat: number }): NewDelivery {
  const jti = randomUUID();
  const payload: SecurityEventPayload = { jti, iat: input.iat, subject: input.subject, events: { [input.eventType]: input.event } };
  return {
    channel: stream.deliveryMethod === 'push' ? 'security_event' : 'security_event_poll',
    orgId: stream.orgId,
    clientId: stream.clientId,
    streamId: stream.id,
    recipient: stream.displayEndpointUrl ?? 'poll',
    messageId: jti,
    eventType: input.eventType,
    payload,
    nextAttemptAt: dueOf(stream),
  };
}


const TIMEOUT_MS = 10_000;
const MAX_ANSWER_BYTES = 16 * 1024;

export function securityEventSigner(options: { issuer: string; signingKeys: JWK[] }) {
  const jwk = options.signingKeys.find((key) => key.alg === 'ES256') ?? options.signingKeys[0];
  let key: ReturnType<typeof importJWK> | undefined;
  return async (payload: SecurityEventPayload, audience: string): Promise<string> => {
    if (!jwk?.alg || !jwk.kid) throw new DeliveryFailed('no signing key');
    key ??= importJWK(jwk, jwk.alg);
    return new SignJWT({ sub_id: subjectIdentifier(options.issuer, payload.subject), events: payload.events })
      .setProtectedHeader({ alg: jwk.alg, kid: jwk.kid, typ: 'secevent+jwt' })
      .setIssuer(options.issuer)
      .setAudience(audience)
      // RFC 8417 §2.2: when the SET is issued — now, also for an event a paused stream held for days; when the event
      // happened is its event_timestamp.
      .setIssuedAt()
      .setJti(payload.jti)
      .sign(await key);
  };
}

export interface PushDeliveryOptions {
  db: () => Queryable;
  issuer: string;
  signingKeys: JWK[];
  atRestKey: Uint8Array;
  outbound: OutboundPolicy;
}

/** RFC 8935 §2: POST the SET as application/secevent+jwt to the stream's endpoint; 202 (any 2xx) is delivered. */
export function securityEventPushDelivery(options: PushDeliveryOptions): DeliveryHandler {
  const sign = securityEventSigner(options);
  return async (delivery) => {
    const [stream] = await options.db().select().from(ssfStreams).where(eq(ssfStreams.id, delivery.streamId!)).limit(1);
    if (!stream) throw new DeliveryFailed('the stream no longer exists', undefined, true);
    // Changed since it was claimed. Now polled: the change moved the event to the poll channel, where it waits.
    if (stream.deliveryMethod === 'poll' || !stream.sealedEndpointUrl) {
      await options
        .db()
        .update(outboundDeliveries)
        .set({ nextAttemptAt: sql`'infinity'::timestamptz` })
        .where(and(eq(outboundDeliveries.id, delivery.id), eq(outboundDeliveries.channel, 'security_event_poll')));
      throw new DeliveryDeferred('the stream is now polled');
    }
    // Paused: held like the stream's other events (SSF 1.0 §8.1.2) — unless it was enabled meanwhile. Read under a
    // share lock of the stream, so an enabling that commits first is seen, and one that comes later waits and then
    // makes this due with the rest.
    if (stream.status === 'paused') {
      await options.db().transaction(async (tx) => {
        const [current] = await tx.select({ status: ssfStreams.status }).from(ssfStreams).where(eq(ssfStreams.id, stream.id)).for('share');
        await tx
          .update(outboundDeliveries)
          .set({ nextAttemptAt: current?.status === 'paused' ? sql`'infinity'::timestamptz` : sql`now()` })
          .where(eq(outboundDeliveries.id, delivery.id));
      });
      throw new DeliveryDeferred('the stream is paused');
    }
    if (stream.status === 'disabled') throw new DeliveryFailed('the stream is disabled', undefined, true);
    const token = await sign(delivery.payload as SecurityEventPayload, stream.clientId);
    const headers: Record<string, string> = { 'content-type': 'application/secevent+jwt', accept: 'application/json' };
    if (stream.sealedAuthorizationHeader) headers.authorization = await decryptAtRest(stream.sealedAuthorizationHeader, options.atRestKey);
    let response: Response;
    try {
      response = await outboundRequest(
        await decryptAtRest(stream.sealedEndpointUrl, options.atRestKey),
        { method: 'POST', headers, body: token, timeoutMs: TIMEOUT_MS, maxBytes: MAX_ANSWER_BYTES, tooLarge: 'truncate' },
        options.outbound,
      );
    } catch (error) {
      if (error instanceof OutboundRefused) throw new DeliveryFailed(error.message);
      throw new DeliveryFailed('the request failed');
    }
    if (response.status < 200 || response.status > 299) {
      // RFC 8935 §2.4: a refusal says why in {"err", "description"}; only its short code is kept (outside text). A 400
      // refuses this SET itself (it would be refused again): not retried. Anything else is.
      const err = response.headers.get('content-type')?.includes('json') ? String(((await response.json().catch(() => ({}))) as { err?: unknown }).err ?? '').slice(0, 40) : '';
      throw new DeliveryFailed(`the receiver answered ${response.status}${/^[a-z_]+$/.test(err) ? ` (${err})` : ''}`, response.status, response.status === 400);
    }
    return { status: response.status };
  };
}
