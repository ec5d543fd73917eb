// The Shared Signals Framework 1.0 transmitter's management API (§8): an app's own client creates, reads, updates
// and deletes its streams, reads and sets their status, asks for a verification event, and — for a poll stream —
// polls its events (RFC 8936). Receivers authenticate with their client credentials (HTTP Basic, RFC 7617: the app's
// client id and secret, checked against the stored hashes), announced as the authorization scheme in
// /.well-known/ssf-configuration. A client only ever sees and changes its own streams: any other stream id is
// "not found", as an unknown one is.
import { basicCredentials } from '../http/basic-credentials';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { apps, clients, outboundDeliveries, SSF_DELIVERY_METHODS, ssfStreams } from '../db/schema';
import { verifyClientSecret } from '../clients/secrets';
import { validateRedirectUri } from '../clients/validation';
import { oauthError, readJsonObject } from '../http/errors';
import { decryptAtRest, encryptAtRest } from '../security/at-rest';
import { EVENTS_SUPPORTED, VERIFICATION_EVENT } from './events';
import { dueOf, securityEventRow, type SecurityEventPayload } from '../deliveries/channels/security-event';
import { enqueue } from '../deliveries/outbox';
import { shownLogoutUri } from '../deliveries/channels/logout-token';

export const SSF_PATHS = {
  configuration: '/.well-known/ssf-configuration',
  streams: '/api/ssf/streams',
  status: '/api/ssf/status',
  verification: '/api/ssf/verify',
  poll: '/api/ssf/poll',
} as const;

/** A client holds at most this many streams. */
export const MAX_STREAMS_PER_CLIENT = 5;
const MAX_EVENTS_REQUESTED = 20;
/** RFC 8936 §2.1: how many events one poll may ask for at most, and gets by default. */
const MAX_POLL_EVENTS = 100;
const DEFAULT_POLL_EVENTS = 10;
/** SSF 1.0 §8.1.1 `min_verification_interval`: a stream may ask for a verification event at most this often. */
export const MIN_VERIFICATION_INTERVAL_SECONDS = 30;


export type Stream = typeof ssfStreams.$inferSelect;

/** SSF 1.0 §7.1: the transmitter's configuration metadata. */
export function ssfConfiguration(issuer: string) {
  return {
    spec_version: '1_0',
    issuer,
    jwks_uri: `${issuer}/oidc/jwks`,
    delivery_methods_supported: [SSF_DELIVERY_METHODS.push, SSF_DELIVERY_METHODS.poll],
    configuration_endpoint: `${issuer}${SSF_PATHS.streams}`,
    status_endpoint: `${issuer}${SSF_PATHS.status}`,
    verification_endpoint: `${issuer}${SSF_PATHS.verification}`,
    // The receiver is an app's own confidential client: its id and secret, as HTTP Basic credentials.
    authorization_schemes: [{ spec_urn: 'urn:ietf:rfc:7617' }],
    // Every person who uses the app is a subject of its streams: no subjects to add or remove.
    default_subjects: 'ALL',
  };
}

export interface Receiver {
  clientId: string;
  appId: string;
  orgId: string;
}

const unauthorized = () =>
  oauthError(401, 'invalid_client', 'authenticate with the app’s client id and secret (HTTP Basic)', { 'WWW-Authenticate': 'Basic realm="portico-ssf", charset="UTF-8"' });

/** The app's own client named by HTTP Basic credentials (RFC 6749 §2.3.1 encoding), when the secret is right. */
export async function authenticateReceiver(db: Queryable, request: Request): Promise<Receiver | undefined> {
  const credentials = basicCredentials(request.headers.get('authorization'));
  if (!credentials) return undefined;
  const { clientId, secret } = credentials;
  // A turned-off app's client is refused here as everywhere else; its streams keep receiving (the ending of its
  // sessions among them), a poll stream's events wait until it is on again.
  const [client] = await db
    .select({ id: clients.id, appId: clients.appId, orgId: clients.orgId })
    .from(clients)
    .innerJoin(apps, and(eq(apps.id, clients.appId), isNull(apps.disabledAt)))
    .where(and(eq(clients.id, clientId), eq(clients.kind, 'app'), isNull(clients.revokedAt)))
    .limit(1);
  if (!client?.appId || !client.orgId) {
    // The same work whether or not the client exists.
    timingSafeEqual(Buffer.alloc(32), Buffer.alloc(32));
    return undefined;
  }
  if (!(await verifyClientSecret(db, client.id, secret))) return undefined;
  return { clientId: client.id, appId: client.appId, orgId: client.orgId };
}

/** What the receiver sees of a stream (SSF 1.0 §8.1.1). */
async function configurationOf(issuer: string, atRestKey: Uint8Array, stream: Stream) {
  const delivery =
    stream.deliveryMethod === 'push'
      ? { method: SSF_DELIVERY_METHODS.push, endpoint_url: await decryptAtRest(stream.sealedEndpointUrl!, atRestKey) }
      : { method: SSF_DELIVERY_METHODS.poll, endpoint_url: `${issuer}${SSF_PATHS.poll}/${stream.id}` };
  return {
    stream_id: stream.id,
    iss: issuer,
    aud: stream.clientId,
    delivery,
    events_supported: EVENTS_SUPPORTED,
    events_requested: stream.eventsRequested,
    events_delivered: stream.eventsRequested.filter((type) => EVENTS_SUPPORTED.includes(type)),
    description: stream.description,
    min_verification_interval: MIN_VERIFICATION_INTERVAL_SECONDS,
  };
}

interface StreamFields {
  deliveryMethod: 'push' | 'poll';
  endpointUrl?: string;
  authorizationHeader?: string;
  eventsRequested: string[];
  description: string;
}

type Checked<T> = { ok: true; value: T } | { ok: false; response: Response };
const bad = (description: string): { ok: false; response: Response } => ({ ok: false, response: oauthError(400, 'invalid_request', description) });

/** A stream's configuration as the receiver sent it (create, replace), or the fields it changes (update). */
function checkStreamFields(body: Record<string, unknown>, current?: StreamFields): Checked<StreamFields> {
  const fields: StreamFields = current ? { ...current } : { deliveryMethod: 'poll', eventsRequested: [], description: '' };
  if (body.delivery !== undefined) {
    const delivery = body.delivery as Record<string, unknown>;
    if (typeof delivery !== 'object' || delivery === null || Array.isArray(delivery)) return bad('delivery must be an object');
    if (delivery.method === SSF_DELIVERY_METHODS.push) {
      if (typeof delivery.endpoint_url !== 'string' || delivery.endpoint_url.length > 2000) return bad('a push stream needs delivery.endpoint_url');
      const checked = validateRedirectUri(delivery.endpoint_url);
      if (!checked.ok) return bad(`delivery.endpoint_url: ${checked.error}`);
      const authorization = delivery.authorization_header;
      if (authorization !== undefined && (typeof authorization !== 'string' || authorization.length > 1024 || !/^[\x20-\x7e]+$/.test(authorization))) {
        return bad('delivery.authorization_header must be printable text of at most 1024 characters');
      }
      Object.assign(fields, { deliveryMethod: 'push', endpointUrl: checked.value, authorizationHeader: authorization });
    } else if (delivery.method === SSF_DELIVERY_METHODS.poll) {
      if (delivery.endpoint_url !== undefined) return bad('a poll stream’s endpoint_url is Portico’s to give');
      Object.assign(fields, { deliveryMethod: 'poll', endpointUrl: undefined, authorizationHeader: undefined });
    } else {
      return bad(`delivery.method must be ${SSF_DELIVERY_METHODS.push} (push) or ${SSF_DELIVERY_METHODS.poll} (poll)`);
    }
  } else if (!current) {
    return bad('delivery is required');
  }
  if (body.events_requested !== undefined) {
    const events = body.events_requested;
    if (!Array.isArray(events) || events.length > MAX_EVENTS_REQUESTED || !events.every((type) => typeof type === 'string' && type.length <= 200)) {
      return bad(`events_requested must be an array of at most ${MAX_EVENTS_REQUESTED} event type URIs`);
    }
    fields.eventsRequested = [...new Set(events as string[])];
  }
  if (body.description !== undefined) {
    if (typeof body.description !== 'string' || body.description.length > 200 || /[\u0000-\u001f\u007f]/.test(body.description)) return bad('description must be text of at most 200 characters');
    fields.description = body.description;
  }
  return { ok: true, value: fields };
}

async function sealedFields(fields: StreamFields, atRestKey: Uint8Array) {
  return {
    deliveryMethod: fields.deliveryMethod,
    sealedEndpointUrl: fields.endpointUrl ? await encryptAtRest(fields.endpointUrl, atRestKey) : null,
    displayEndpointUrl: fields.endpointUrl ? shownLogoutUri(fields.endpointUrl) : null,
    sealedAuthorizationHeader: fields.authorizationHeader ? await encryptAtRest(fields.authorizationHeader, atRestKey) : null,
    eventsRequested: fields.eventsRequested,
    description: fields.description,
  };
}

async function currentFields(stream: Stream, atRestKey: Uint8Array): Promise<StreamFields> {
  return {
    deliveryMethod: stream.deliveryMethod,
    endpointUrl: stream.sealedEndpointUrl ? await decryptAtRest(stream.sealedEndpointUrl, atRestKey) : undefined,
    authorizationHeader: stream.sealedAuthorizationHeader ? await decryptAtRest(stream.sealedAuthorizationHeader, atRestKey) : undefined,
    eventsRequested: stream.eventsRequested,
    description: stream.description,
  };
}

async function streamOf(db: Queryable, receiver: Receiver, streamId: unknown): Promise<Stream | undefined> {
  if (typeof streamId !== 'string' || streamId.length > 64 || streamId.includes('\u0000')) return undefined;
  const [stream] = await db.select().from(ssfStreams).where(and(eq(ssfStreams.id, streamId), eq(ssfStreams.clientId, receiver.clientId))).limit(1);
  return stream;
}

const notFound = () => oauthError(404, 'not_found', 'no such stream');
const noStore = { 'Cache-Control': 'no-store' };

export interface SsfContext {
  db: Queryable;
  issuer: string;
  atRestKey: Uint8Array;
  /** Sign a queued event for this audience (lib/deliveries/channels/security-event.ts). */
  sign(payload: SecurityEventPayload, audience: string): Promise<string>;
}

async function readBody(request: Request): Promise<Checked<Record<string, unknown>>> {
  const parsed = await readJsonObject(request, 16 * 1024);
  if (!parsed.ok) return { ok: false, response: oauthError(parsed.status, 'invalid_request', parsed.description) };
  // PostgreSQL text and jsonb hold no NUL character: refused here rather than failing a query.
  if (JSON.stringify(parsed.value).includes('\\u0000')) return bad('the request must not contain NUL characters');
  return { ok: true, value: parsed.value };
}

/** /api/ssf/streams: GET (one by ?stream_id=, or all of the client's), POST (create), PATCH (update), PUT (replace), DELETE. */
export async function handleStreamsRequest(ctx: SsfContext, request: Request): Promise<Response> {
  const receiver = await authenticateReceiver(ctx.db, request);
  if (!receiver) return unauthorized();
  const url = new URL(request.url);
  if (request.method === 'GET') {
    const streamId = url.searchParams.get('stream_id');
    if (streamId !== null) {
      const stream = await streamOf(ctx.db, receiver, streamId);
      return stream ? Response.json(await configurationOf(ctx.issuer, ctx.atRestKey, stream), { headers: noStore }) : notFound();
    }
    const streams = await ctx.db.select().from(ssfStreams).where(eq(ssfStreams.clientId, receiver.clientId)).orderBy(asc(ssfStreams.createdAt));
    return Response.json(await Promise.all(streams.map((stream) => configurationOf(ctx.issuer, ctx.atRestKey, stream))), { headers: noStore });
  }
  if (request.method === 'DELETE') {
    const stream = await streamOf(ctx.db, receiver, url.searchParams.get('stream_id'));
    if (!stream) return notFound();
    await ctx.db.delete(ssfStreams).where(eq(ssfStreams.id, stream.id));
    return new Response(null, { status: 204 });
  }
  if (request.method !== 'POST' && request.method !== 'PATCH' && request.method !== 'PUT') return oauthError(405, 'invalid_request', 'GET, POST, PATCH, PUT or DELETE', { Allow: 'GET, POST, PATCH, PUT, DELETE' });
  const body = await readBody(request);
  if (!body.ok) return body.response;
  if (request.method === 'POST') {
    const fields = checkStreamFields(body.value);
    if (!fields.ok) return fields.response;
    const id = `ssf_${randomBytes(12).toString('base64url')}`;
    const created = await ctx.db.transaction(async (tx) => {
      // Counted and added under a lock of the client's row: two creations at once cannot both pass the limit.
      await tx.execute(sql`select 1 from ${clients} where ${clients.id} = ${receiver.clientId} for update`);
      const [{ count } = { count: 0 }] = await tx.select({ count: sql<number>`count(*)::int` }).from(ssfStreams).where(eq(ssfStreams.clientId, receiver.clientId));
      if (count >= MAX_STREAMS_PER_CLIENT) return undefined;
      const [row] = await tx.insert(ssfStreams).values({ id, clientId: receiver.clientId, appId: receiver.appId, orgId: receiver.orgId, ...(await sealedFields(fields.value, ctx.atRestKey)) }).returning();
      return row;
    });
    if (!created) return oauthError(409, 'too_many_streams', `a client holds at most ${MAX_STREAMS_PER_CLIENT} streams: delete one first`);
    return Response.json(await configurationOf(ctx.issuer, ctx.atRestKey, created), { status: 201, headers: noStore });
  }
  const stream = await streamOf(ctx.db, receiver, body.value.stream_id);
  if (!stream) return notFound();
  // PUT replaces the whole configuration (what it leaves out goes back to its default); PATCH changes what it names.
  const fields = checkStreamFields(body.value, request.method === 'PATCH' ? await currentFields(stream, ctx.atRestKey) : undefined);
  if (!fields.ok) return fields.response;
  const sealed = await sealedFields(fields.value, ctx.atRestKey);
  const updated = await ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .update(ssfStreams)
      .set({ ...sealed, updatedAt: sql`now()` })
      .where(eq(ssfStreams.id, stream.id))
      .returning();
    // Deleted meanwhile by another request: nothing to move.
    if (!row) return undefined;
    // Events already queued for the old delivery method wait in the other channel: move them with the stream.
    await tx
      .update(outboundDeliveries)
      .set({ channel: row.deliveryMethod === 'push' ? 'security_event' : 'security_event_poll', recipient: row.displayEndpointUrl ?? 'poll', nextAttemptAt: dueOf(row) })
      .where(and(eq(outboundDeliveries.streamId, stream.id), isNull(outboundDeliveries.deliveredAt), isNull(outboundDeliveries.failedAt)));
    return row;
  });
  if (!updated) return notFound();
  return Response.json(await configurationOf(ctx.issuer, ctx.atRestKey, updated), { headers: noStore });
}

const STATUSES = ['enabled', 'paused', 'disabled'] as const;

/** /api/ssf/status: GET ?stream_id= reads, POST {stream_id, status, reason} sets (SSF 1.0 §8.1.2). */
export async function handleStatusRequest(ctx: SsfContext, request: Request): Promise<Response> {
  const receiver = await authenticateReceiver(ctx.db, request);
  if (!receiver) return unauthorized();
  if (request.method === 'GET') {
    const stream = await streamOf(ctx.db, receiver, new URL(request.url).searchParams.get('stream_id'));
    if (!stream) return notFound();
    return Response.json({ stream_id: stream.id, status: stream.status, ...(stream.statusReason ? { reason: stream.statusReason } : {}) }, { headers: noStore });
  }
  if (request.method !== 'POST') return oauthError(405, 'invalid_request', 'GET or POST', { Allow: 'GET, POST' });
  const body = await readBody(request);
  if (!body.ok) return body.response;
  const stream = await streamOf(ctx.db, receiver, body.value.stream_id);
  if (!stream) return notFound();
  const status = body.value.status;
  if (typeof status !== 'string' || !(STATUSES as readonly string[]).includes(status)) return bad('status must be enabled, paused or disabled').response;
  const reason = body.value.reason;
  if (reason !== undefined && (typeof reason !== 'string' || reason.length > 200 || /[\u0000-\u001f\u007f]/.test(reason))) return bad('reason must be text of at most 200 characters').response;
  await ctx.db.transaction(async (tx) => {
    const [row] = await tx.update(ssfStreams).set({ status: status as Stream['status'], statusReason: reason ?? null, updatedAt: sql`now()` }).where(eq(ssfStreams.id, stream.id)).returning();
    if (!row) return;
    const waiting = and(eq(outboundDeliveries.streamId, stream.id), isNull(outboundDeliveries.deliveredAt), isNull(outboundDeliveries.failedAt));
    // Disabled: nothing is kept. Paused: held (never due) until enabled, when pushed ones are due at once.
    if (status === 'disabled') await tx.delete(outboundDeliveries).where(waiting);
    else await tx.update(outboundDeliveries).set({ nextAttemptAt: dueOf(row) }).where(waiting);
  });
  return Response.json({ stream_id: stream.id, status, ...(reason ? { reason } : {}) }, { headers: noStore });
}

/** /api/ssf/verify: POST {stream_id, state?} queues a verification event for the stream (SSF 1.0 §8.1.4.2); 204. */
export async function handleVerificationRequest(ctx: SsfContext, request: Request): Promise<Response> {
  const receiver = await authenticateReceiver(ctx.db, request);
  if (!receiver) return unauthorized();
  if (request.method !== 'POST') return oauthError(405, 'invalid_request', 'POST', { Allow: 'POST' });
  const body = await readBody(request);
  if (!body.ok) return body.response;
  const stream = await streamOf(ctx.db, receiver, body.value.stream_id);
  if (!stream) return notFound();
  const state = body.value.state;
  if (state !== undefined && (typeof state !== 'string' || state.length > 200)) return bad('state must be text of at most 200 characters').response;
  if (stream.status !== 'enabled') return oauthError(409, 'stream_not_enabled', `the stream is ${stream.status}`);
  // SSF 1.0 §8.1.4.2: a transmitter may refuse verification requests that come more often than it announced.
  const [recent] = await ctx.db
    .select({ id: outboundDeliveries.id })
    .from(outboundDeliveries)
    .where(and(eq(outboundDeliveries.streamId, stream.id), eq(outboundDeliveries.eventType, VERIFICATION_EVENT), sql`${outboundDeliveries.createdAt} > now() - make_interval(secs => ${MIN_VERIFICATION_INTERVAL_SECONDS})`))
    .limit(1);
  if (recent) return oauthError(429, 'slow_down', `at most one verification every ${MIN_VERIFICATION_INTERVAL_SECONDS} seconds`, { 'Retry-After': String(MIN_VERIFICATION_INTERVAL_SECONDS) });
  const event = state === undefined ? {} : { state };
  await enqueue(ctx.db, [securityEventRow(stream, { subject: { stream: stream.id }, eventType: VERIFICATION_EVENT, event, iat: Math.floor(Date.now() / 1000) })]);
  return new Response(null, { status: 204 });
}

/**
 * /api/ssf/poll/<stream>: RFC 8936 §2. Acknowledged SETs (`ack`) and those the receiver reports as errors (`setErrs`)
 * stop waiting; then up to `maxEvents` waiting ones are answered, oldest first, signed now, with `moreAvailable`.
 * Answers at once (no long polling): `returnImmediately` is accepted and always true.
 */
export async function handlePollRequest(ctx: SsfContext, request: Request, streamId: string): Promise<Response> {
  const receiver = await authenticateReceiver(ctx.db, request);
  if (!receiver) return unauthorized();
  if (request.method !== 'POST') return oauthError(405, 'invalid_request', 'POST', { Allow: 'POST' });
  const stream = await streamOf(ctx.db, receiver, streamId);
  if (!stream) return notFound();
  if (stream.deliveryMethod !== 'poll') return bad('this stream is delivered by push').response;
  const body = await readBody(request);
  if (!body.ok) return body.response;
  const { maxEvents = DEFAULT_POLL_EVENTS, ack = [], setErrs = {}, returnImmediately } = body.value as { maxEvents?: unknown; ack?: unknown; setErrs?: unknown; returnImmediately?: unknown };
  if (typeof maxEvents !== 'number' || !Number.isInteger(maxEvents) || maxEvents < 0 || maxEvents > MAX_POLL_EVENTS) return bad(`maxEvents must be an integer from 0 to ${MAX_POLL_EVENTS}`).response;
  if (!Array.isArray(ack) || ack.length > MAX_POLL_EVENTS || !ack.every((jti) => typeof jti === 'string' && jti.length <= 64)) return bad('ack must be an array of jti values').response;
  if (typeof setErrs !== 'object' || setErrs === null || Array.isArray(setErrs) || Object.keys(setErrs).length > MAX_POLL_EVENTS) return bad('setErrs must be an object of jti → {err, description}').response;
  if (returnImmediately !== undefined && typeof returnImmediately !== 'boolean') return bad('returnImmediately must be a boolean').response;
  const ofStream = and(eq(outboundDeliveries.streamId, stream.id), eq(outboundDeliveries.channel, 'security_event_poll'), isNull(outboundDeliveries.deliveredAt), isNull(outboundDeliveries.failedAt));
  if (ack.length > 0) await ctx.db.update(outboundDeliveries).set({ deliveredAt: sql`now()` }).where(and(ofStream, inArray(outboundDeliveries.messageId, ack as string[])));
  for (const [jti, problem] of Object.entries(setErrs as Record<string, unknown>).slice(0, MAX_POLL_EVENTS)) {
    const err = typeof problem === 'object' && problem !== null ? String((problem as { err?: unknown }).err ?? '') : '';
    await ctx.db
      .update(outboundDeliveries)
      .set({ failedAt: sql`now()`, lastError: `the receiver refused it${/^[a-z_]{1,40}$/.test(err) ? ` (${err})` : ''}` })
      .where(and(ofStream, eq(outboundDeliveries.messageId, jti)));
  }
  // A paused stream holds its events (SSF 1.0 §8.1.2): nothing is answered until it is enabled.
  if (maxEvents === 0 || stream.status !== 'enabled') return Response.json({ sets: {}, moreAvailable: false }, { headers: noStore });
  const waiting = await ctx.db
    .select({ payload: outboundDeliveries.payload })
    .from(outboundDeliveries)
    .where(ofStream)
    .orderBy(asc(outboundDeliveries.createdAt), asc(outboundDeliveries.id))
    .limit(maxEvents + 1);
  const sets: Record<string, string> = {};
  for (const { payload } of waiting.slice(0, maxEvents)) {
    const event = payload as SecurityEventPayload;
    sets[event.jti] = await ctx.sign(event, stream.clientId);
  }
  return Response.json({ sets, moreAvailable: waiting.length > maxEvents }, { headers: noStore });
}

export interface StreamSummary {
  id: string;
  deliveryMethod: 'push' | 'poll';
  endpoint: string | null;
  status: Stream['status'];
  eventsRequested: string[];
  description: string;
  createdAt: Date;
  waiting: number;
  lastDeliveredAt: Date | null;
}

/** The app's streams for its console page: what each receives, how, its state and what waits in it. */
export async function listAppStreams(db: Queryable, clientId: string): Promise<StreamSummary[]> {
  const rows = await db
    .select({
      stream: ssfStreams,
      // Qualified by hand: drizzle leaves a lone table's columns unqualified, and both tables have an id.
      waiting: sql<number>`(select count(*)::int from outbound_deliveries d where d.stream_id = "ssf_streams"."id" and d.delivered_at is null and d.failed_at is null)`,
      lastDeliveredAt: sql<string | null>`(select max(d.delivered_at) from outbound_deliveries d where d.stream_id = "ssf_streams"."id")`,
    })
    .from(ssfStreams)
    .where(eq(ssfStreams.clientId, clientId))
    .orderBy(asc(ssfStreams.createdAt));
  return rows.map(({ stream, waiting, lastDeliveredAt }) => ({
    id: stream.id,
    deliveryMethod: stream.deliveryMethod,
    endpoint: stream.displayEndpointUrl,
    status: stream.status,
    eventsRequested: stream.eventsRequested,
    description: stream.description,
    createdAt: stream.createdAt,
    waiting: Number(waiting),
    lastDeliveredAt: lastDeliveredAt ? new Date(lastDeliveredAt) : null,
  }));
}
