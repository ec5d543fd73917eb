// Everything Portico sends out — mail, webhooks, back-channel logout tokens, and later security event tokens — goes through
// one durable outbox: written in the transaction of the change that causes it, delivered afterwards by the
// dispatcher of whichever instance leases it (lib/deliveries/), retried with backoff, one delivery at a time across
// instances. A crash between commit and delivery loses nothing, and no request waits for a remote server.
import { sql } from 'drizzle-orm';
import { bigint, boolean, check, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { organizations } from './accounts';
import { apps, clients } from './apps';

/** What a delivery is, and so who delivers it. */
/**
 * security_event: a Security Event Token pushed to a stream's receiver (RFC 8935); security_event_poll: one waiting
 * for the receiver to poll it (RFC 8936) — never claimed by a dispatcher, delivered when the receiver acknowledges it.
 * upstream_revocation: a person's upstream token the gateway no longer holds, revoked at its server (RFC 7009).
 */
export const DELIVERY_CHANNELS = ['mail', 'webhook', 'logout_token', 'security_event', 'security_event_poll', 'upstream_revocation'] as const;
export type DeliveryChannel = (typeof DELIVERY_CHANNELS)[number];

/**
 * An organization's webhook endpoint (Standard Webhooks). The URL is sealed at rest: an incoming-webhook URL of a
 * chat service carries its own secret in the path. The signing secret is sealed (HMAC needs it back, so it cannot be
 * hashed); during a rotation the previous one keeps signing beside the new one until `previous_secret_expires_at`.
 */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    /** JWE (lib/security/at-rest.ts) of the endpoint's URL. */
    sealedUrl: text('sealed_url').notNull(),
    /** What the console shows: the origin, and the path only where it holds no secret (standard endpoints). */
    displayUrl: text('display_url').notNull(),
    /** standard: a Standard Webhooks event; slack: `{"text": …}` for a chat's incoming webhook. */
    format: text('format', { enum: ['standard', 'slack'] }).notNull().default('standard'),
    description: text('description').notNull().default(''),
    /** Event types (`approval.requested`) or whole families (`approval.*`), or `*`. */
    events: text('events').array().notNull(),
    /** JWE of `whsec_…`. */
    sealedSecret: text('sealed_secret').notNull(),
    sealedPreviousSecret: text('sealed_previous_secret'),
    previousSecretExpiresAt: timestamp('previous_secret_expires_at', { withTimezone: true }),
    enabled: boolean('enabled').notNull().default(true),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('webhook_endpoints_org_idx').on(t.orgId),
    check('webhook_endpoints_previous_secret', sql`(${t.sealedPreviousSecret} IS NULL) = (${t.previousSecretExpiresAt} IS NULL)`),
  ],
);

/** The events a Shared Signals stream may ask for, by delivery method (SSF 1.0 §8.1.1). */
export const SSF_DELIVERY_METHODS = { push: 'urn:ietf:rfc:8935', poll: 'urn:ietf:rfc:8936' } as const;

/**
 * A Shared Signals Framework 1.0 stream (Portico transmits, an app's own client receives): which events, how
 * (pushed to the receiver's URL, or polled), and whether it runs. The push URL and the authorization header the
 * receiver asked Portico to send are sealed at rest (either may carry a secret).
 */
export const ssfStreams = pgTable(
  'ssf_streams',
  {
    id: text('id').primaryKey(),
    /** The receiver: an app's own client (the SET's `aud`). */
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id, { onDelete: 'cascade' }),
    appId: uuid('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    deliveryMethod: text('delivery_method', { enum: ['push', 'poll'] }).notNull(),
    /** push: JWE of the receiver's endpoint URL. */
    sealedEndpointUrl: text('sealed_endpoint_url'),
    /** push: what the console and the stream's description show of it (origin and path). */
    displayEndpointUrl: text('display_endpoint_url'),
    /** push: JWE of the Authorization header value the receiver wants on each push, when it gave one. */
    sealedAuthorizationHeader: text('sealed_authorization_header'),
    eventsRequested: text('events_requested').array().notNull(),
    description: text('description').notNull().default(''),
    /** SSF 1.0 §8.1.2: enabled (sent), paused (held until enabled), disabled (not kept). */
    status: text('status', { enum: ['enabled', 'paused', 'disabled'] }).notNull().default('enabled'),
    statusReason: text('status_reason'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('ssf_streams_client_idx').on(t.clientId),
    check('ssf_streams_push_url', sql`(${t.deliveryMethod} = 'push') = (${t.sealedEndpointUrl} IS NOT NULL)`),
  ],
);

export const outboundDeliveries = pgTable(
  'outbound_deliveries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    channel: text('channel', { enum: DELIVERY_CHANNELS }).notNull(),
    /** The organization it is about (the console's delivery log), when there is one. */
    orgId: uuid('org_id'),
    /**
     * logout_token: the client it goes to (no foreign key: a deleted app's clients still hear that their sessions
     * ended). The app's delivery log in the console reads by it.
     */
    clientId: text('client_id'),
    /** security_event(_poll): the stream; deleting the stream deletes what waits for it. */
    streamId: text('stream_id').references(() => ssfStreams.id, { onDelete: 'cascade' }),
    /** webhook: the endpoint; deleting the endpoint deletes its deliveries. */
    endpointId: uuid('endpoint_id').references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    /** In clear, for logs and the console: a mail's address, an endpoint's display URL. */
    recipient: text('recipient').notNull(),
    /**
     * webhook: the Standard Webhooks `webhook-id` (the same on every retry and redelivery of one message).
     * logout_token: what the token is about (client, person, session), so that one ending is queued once while it waits.
     */
    messageId: text('message_id'),
    eventType: text('event_type'),
    /** The message, when it carries no secret (webhook events; a logout token's claims, signed when it is sent). */
    payload: jsonb('payload'),
    /** The message sealed (JWE), when it carries one (mail holds single-use links); wiped when delivery gives up. */
    sealedPayload: text('sealed_payload'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** When it is due; a leased delivery's is pushed past its lease. */
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    attempts: integer('attempts').notNull().default(0),
    /** The last failure, never the message. */
    lastError: text('last_error'),
    /** webhook: the HTTP status of the last attempt that got an answer. */
    lastStatus: integer('last_status'),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
    /** Delivery gave up (after the last retry). */
    failedAt: timestamp('failed_at', { withTimezone: true }),
    /** A redelivery names the delivery it repeats. */
    redeliveryOf: uuid('redelivery_of'),
    /** The audit event it came from (webhook events), for the console's link. */
    auditEventId: bigint('audit_event_id', { mode: 'number' }),
  },
  (t) => [
    index('outbound_deliveries_due_idx').on(t.nextAttemptAt).where(sql`${t.deliveredAt} IS NULL AND ${t.failedAt} IS NULL`),
    // The sweeper finds finished rows past their retention by this (lib/notifications/sweeper.ts).
    index('outbound_deliveries_finished_idx').on(sql`coalesce(${t.deliveredAt}, ${t.failedAt})`).where(sql`${t.deliveredAt} IS NOT NULL OR ${t.failedAt} IS NOT NULL`),
    index('outbound_deliveries_endpoint_idx').on(t.endpointId, t.createdAt),
    index('outbound_deliveries_client_idx').on(t.clientId, t.createdAt).where(sql`${t.clientId} IS NOT NULL`),
    // A poll answers the oldest waiting events of one stream; an acknowledgment names them by jti.
    index('outbound_deliveries_stream_idx').on(t.streamId, t.createdAt).where(sql`${t.streamId} IS NOT NULL AND ${t.deliveredAt} IS NULL`),
    // One waiting logout token per (client, person, session): ending a grant and the session it belongs to in one
    // change (a password reset) tells the app once.
    uniqueIndex('outbound_deliveries_waiting_logout_key').on(t.messageId).where(sql`${t.channel} = 'logout_token' AND ${t.deliveredAt} IS NULL AND ${t.failedAt} IS NULL`),
    // A session-revoked event about the same subject still waiting in a stream covers a second one (lib/ssf/events.ts).
    uniqueIndex('outbound_deliveries_waiting_session_revoked')
      .on(t.streamId, sql`(${t.payload}->'subject')`)
      .where(sql`${t.eventType} = 'https://schemas.openid.net/secevent/caep/event-type/session-revoked' AND ${t.deliveredAt} IS NULL AND ${t.failedAt} IS NULL`),
    check(
      'outbound_deliveries_shape',
      sql`(${t.channel} = 'mail' AND ${t.sealedPayload} IS NOT NULL) OR (${t.channel} = 'webhook' AND ${t.endpointId} IS NOT NULL AND ${t.payload} IS NOT NULL AND ${t.messageId} IS NOT NULL) OR (${t.channel} = 'logout_token' AND ${t.clientId} IS NOT NULL AND ${t.payload} IS NOT NULL AND ${t.messageId} IS NOT NULL) OR (${t.channel} IN ('security_event', 'security_event_poll') AND ${t.streamId} IS NOT NULL AND ${t.payload} IS NOT NULL AND ${t.messageId} IS NOT NULL) OR (${t.channel} = 'upstream_revocation' AND ${t.payload} IS NOT NULL)`,
    ),
  ],
);
