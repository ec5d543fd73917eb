// What an organization's admins do to its webhooks, once for every door (the console's Settings → Webhooks, the
// CLI): add an endpoint (its secret shown once), change what it receives, rotate its secret with an overlap, send a
// test event, redeliver one, remove it. The caller authorized `webhooks.manage` through the organization-operation
// kernel, which gives the transaction and the audit.
import { randomBytes } from 'node:crypto';
import { and, desc, eq, sql } from 'drizzle-orm';
import { type OrgOperationContext } from '../organizations/org-operation';
import type { Queryable } from '../db/client';
import { outboundDeliveries, webhookEndpoints } from '../db/schema';
import { assertAllowedDestination, OutboundRefused, type OutboundPolicy } from '../http/outbound';
import { localized } from '../i18n/catalogs';
import { decryptAtRest, encryptAtRest } from '../security/at-rest';
import { enqueueWebhookMessage } from '../deliveries/channels/webhook';
import { isUuid } from '../util/uuid';
import { hitRateLimit, type RateLimitRule } from '../rate-limit/fixed-window';
import { isWebhookSubscription } from './events';
import { newWebhookSecret } from './signing';
import { commandRefusal } from '../organizations/refusal-codes';

export type WebhookEndpoint = typeof webhookEndpoints.$inferSelect;
export type WebhookFormat = WebhookEndpoint['format'];
export const WEBHOOK_FORMATS = ['standard', 'slack'] as const;
export const MAX_ENDPOINTS_PER_ORG = 20;
export const MAX_URL_LENGTH = 2048;
/** How long the previous secret keeps signing after a rotation, unless the admin says otherwise (hours, 0–168). */
export const DEFAULT_ROTATION_OVERLAP_HOURS = 24;

type Context = Pick<OrgOperationContext, 'tx' | 'audit'> & { orgId: string };

/** Test events and redeliveries an organization may queue by hand: the outbox is shared, and mail must not wait. */
export const MANUAL_DELIVERIES_PER_ORG: RateLimitRule = { name: 'webhooks:manual', limit: 60, windowSeconds: 3600 };

async function countManualDelivery(ctx: Context): Promise<void> {
  const state = await hitRateLimit(ctx.tx, MANUAL_DELIVERIES_PER_ORG, ctx.orgId);
  if (state.limited) throw commandRefusal(409, localized('refusals.webhooks.manualLimit', { max: MANUAL_DELIVERIES_PER_ORG.limit, minutes: Math.ceil(state.retryAfterSeconds / 60) }), 'rate_limited');
}

export interface WebhookDeps {
  atRestKey: Uint8Array;
  outbound: OutboundPolicy;
}

export interface WebhookInput {
  url: string;
  format: WebhookFormat;
  description: string;
  events: string[];
}

/**
 * The URL as the console, the CLI, the audit and the delivery log show it: a path may be a capability (a chat's
 * incoming webhook holds its secret there), so only the origin and the path's first segment, never the query.
 */
export function displayUrlOf(url: URL, format: WebhookFormat): string {
  if (format === 'slack') return `${url.origin}/…`;
  const [first, ...rest] = url.pathname.split('/').filter(Boolean);
  return `${url.origin}/${first ?? ''}${rest.length > 0 ? '/…' : ''}`;
}

/** Checks an endpoint's address: https, no credentials in it, and a host that resolves to public addresses only. */
async function checkedUrl(raw: string, deps: WebhookDeps): Promise<URL> {
  const trimmed = raw.trim();
  let url: URL;
  try {
    if (trimmed.length > MAX_URL_LENGTH) throw new Error('too long');
    url = new URL(trimmed);
  } catch {
    throw commandRefusal(400, localized('refusals.webhooks.url'), 'invalid_url');
  }
  if (url.protocol !== 'https:') throw commandRefusal(400, localized('refusals.webhooks.https'), 'invalid_url');
  if (url.username || url.password) throw commandRefusal(400, localized('refusals.webhooks.credentials'), 'invalid_url');
  url.hash = '';
  try {
    await assertAllowedDestination(url, deps.outbound);
  } catch (error) {
    if (error instanceof OutboundRefused && error.reason === 'unresolvable') throw commandRefusal(400, localized('refusals.webhooks.unresolvable', { host: url.hostname }), 'invalid_url');
    if (error instanceof OutboundRefused && error.reason === 'private_network') throw commandRefusal(400, localized('refusals.webhooks.privateNetwork', { host: url.hostname }), 'invalid_url');
    if (error instanceof OutboundRefused) throw commandRefusal(400, localized('refusals.webhooks.notPublic', { host: url.hostname }), 'invalid_url');
    throw error;
  }
  return url;
}

function checkedEvents(events: readonly string[]): string[] {
  const unique = [...new Set(events.map((event) => event.trim()).filter(Boolean))];
  if (unique.length === 0) throw commandRefusal(400, localized('refusals.webhooks.noEvents'), 'invalid_events');
  const unknown = unique.find((event) => !isWebhookSubscription(event));
  if (unknown) throw commandRefusal(400, localized('refusals.webhooks.unknownEvent', { event: unknown.slice(0, 80) }), 'invalid_events');
  return unique.sort();
}

function checkedDescription(description: string): string {
  const trimmed = description.trim();
  // A label shown in the console and the CLI: no control characters (a terminal would act on them).
  if (trimmed.length > 200 || /[\u0000-\u001F\u007F-\u009F]/.test(trimmed)) throw commandRefusal(400, localized('refusals.webhooks.description'), 'invalid_description');
  return trimmed;
}

function about(endpoint: Pick<WebhookEndpoint, 'id' | 'displayUrl'>) {
  return { subject: { type: 'webhook_endpoint', id: endpoint.id, label: endpoint.displayUrl } };
}

/** Adds an endpoint; its signing secret is returned once and stored only sealed. */
export async function createWebhookEndpoint(ctx: Context, deps: WebhookDeps, input: WebhookInput): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const url = await checkedUrl(input.url, deps);
  const events = checkedEvents(input.events);
  const description = checkedDescription(input.description);
  if (!(WEBHOOK_FORMATS as readonly string[]).includes(input.format)) throw commandRefusal(400, localized('refusals.webhooks.format'), 'invalid_format');
  // Counted under a lock on the organization, so concurrent additions cannot pass the limit together.
  await ctx.tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`webhooks:${ctx.orgId}`}, 0))`);
  const [{ n } = { n: 0 }] = await ctx.tx.select({ n: sql<number>`count(*)::int` }).from(webhookEndpoints).where(eq(webhookEndpoints.orgId, ctx.orgId));
  if (n >= MAX_ENDPOINTS_PER_ORG) throw commandRefusal(409, localized('refusals.webhooks.tooMany', { max: MAX_ENDPOINTS_PER_ORG }), 'too_many');
  const secret = newWebhookSecret();
  const [endpoint] = await ctx.tx
    .insert(webhookEndpoints)
    .values({
      orgId: ctx.orgId,
      sealedUrl: await encryptAtRest(url.toString(), deps.atRestKey),
      displayUrl: displayUrlOf(url, input.format),
      format: input.format,
      description,
      events,
      sealedSecret: await encryptAtRest(secret, deps.atRestKey),
    })
    .returning();
  await ctx.audit({ action: 'webhook.created', ...about(endpoint!), details: { format: input.format, events, description } });
  return { endpoint: endpoint!, secret };
}

async function endpointOf(ctx: Context, id: string): Promise<WebhookEndpoint> {
  const [endpoint] = isUuid(id)
    ? await ctx.tx.select().from(webhookEndpoints).where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.orgId, ctx.orgId))).for('update')
    : [];
  if (!endpoint) throw commandRefusal(404, localized('refusals.webhooks.notFound'), 'not_found');
  return endpoint;
}

/** Changes what an endpoint receives, its description, or turns it off and on. */
export async function updateWebhookEndpoint(ctx: Context, id: string, input: { events?: string[]; description?: string; enabled?: boolean }): Promise<WebhookEndpoint> {
  const endpoint = await endpointOf(ctx, id);
  const changes = {
    ...(input.events ? { events: checkedEvents(input.events) } : {}),
    ...(input.description !== undefined ? { description: checkedDescription(input.description) } : {}),
    ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
  };
  const [updated] = await ctx.tx.update(webhookEndpoints).set({ ...changes, updatedAt: sql`now()` }).where(eq(webhookEndpoints.id, endpoint.id)).returning();
  await ctx.audit({ action: 'webhook.updated', ...about(endpoint), details: changes });
  return updated!;
}

/**
 * A new signing secret, returned once. The previous one keeps signing beside it for `overlapHours` (0: not at
 * all), so receivers can switch without losing an event; a rotation during an overlap drops the oldest secret.
 */
export async function rotateWebhookSecret(ctx: Context, deps: WebhookDeps, id: string, overlapHours = DEFAULT_ROTATION_OVERLAP_HOURS): Promise<{ secret: string; previousValidUntil: Date | null }> {
  if (!Number.isInteger(overlapHours) || overlapHours < 0 || overlapHours > 168) throw commandRefusal(400, localized('refusals.webhooks.overlap'), 'invalid_overlap');
  const endpoint = await endpointOf(ctx, id);
  const secret = newWebhookSecret();
  const [rotated] = await ctx.tx
    .update(webhookEndpoints)
    .set({
      sealedSecret: await encryptAtRest(secret, deps.atRestKey),
      sealedPreviousSecret: overlapHours > 0 ? endpoint.sealedSecret : null,
      previousSecretExpiresAt: overlapHours > 0 ? sql`now() + make_interval(hours => ${overlapHours})` : null,
      updatedAt: sql`now()`,
    })
    .where(eq(webhookEndpoints.id, endpoint.id))
    .returning();
  await ctx.audit({ action: 'webhook.secret_rotated', ...about(endpoint), details: { overlapHours, previousValidUntil: rotated!.previousSecretExpiresAt?.toISOString() ?? null } });
  return { secret, previousValidUntil: rotated!.previousSecretExpiresAt };
}

/** Removes an endpoint with its delivery log; nothing more is sent to it. */
export async function deleteWebhookEndpoint(ctx: Context, id: string): Promise<void> {
  const endpoint = await endpointOf(ctx, id);
  await ctx.tx.delete(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id));
  await ctx.audit({ action: 'webhook.deleted', ...about(endpoint) });
}

/** Queues a `webhook.test` event for one endpoint (enabled or not), to check the receiver and its verification. */
export async function sendWebhookTest(ctx: Context, id: string): Promise<string> {
  const endpoint = await endpointOf(ctx, id);
  await countManualDelivery(ctx);
  const messageId = `msg_test_${randomBytes(12).toString('hex')}`;
  await enqueueWebhookMessage(ctx.tx, {
    orgId: ctx.orgId,
    endpoint,
    messageId,
    eventType: 'webhook.test',
    payload: { type: 'webhook.test', timestamp: new Date().toISOString(), data: { organization_id: ctx.orgId, endpoint_id: endpoint.id } },
  });
  await ctx.audit({ action: 'webhook.test_sent', ...about(endpoint), details: { messageId } });
  return messageId;
}

/**
 * Sends one delivered or given-up message again, as it was (the same `webhook-id`, so a receiver that has it already
 * can tell), signed anew. A delivery still waiting is not doubled.
 */
export async function redeliverWebhook(ctx: Context, deliveryId: string): Promise<string> {
  const [delivery] = isUuid(deliveryId)
    ? await ctx.tx
        .select()
        .from(outboundDeliveries)
        .where(and(eq(outboundDeliveries.id, deliveryId), eq(outboundDeliveries.orgId, ctx.orgId), eq(outboundDeliveries.channel, 'webhook')))
    : [];
  if (!delivery?.endpointId) throw commandRefusal(404, localized('refusals.webhooks.deliveryNotFound'), 'not_found');
  if (!delivery.deliveredAt && !delivery.failedAt) throw commandRefusal(409, localized('refusals.webhooks.stillWaiting'), 'still_waiting');
  const endpoint = await endpointOf(ctx, delivery.endpointId);
  await countManualDelivery(ctx);
  const copy = await enqueueWebhookMessage(ctx.tx, {
    orgId: ctx.orgId,
    endpoint,
    messageId: delivery.messageId!,
    eventType: delivery.eventType,
    payload: delivery.payload,
    auditEventId: delivery.auditEventId,
    redeliveryOf: delivery.id,
  });
  await ctx.audit({ action: 'webhook.redelivered', ...about(endpoint), details: { deliveryId: delivery.id, messageId: delivery.messageId, eventType: delivery.eventType } });
  return copy;
}

export interface WebhookEndpointListing extends WebhookEndpoint {
  lastDeliveryAt: Date | null;
  lastStatus: number | null;
  lastError: string | null;
  waiting: number;
  failed: number;
}

/** An organization's endpoints with what happened to their latest delivery, and how many wait or gave up. */
export async function listWebhookEndpoints(db: Queryable, orgId: string): Promise<WebhookEndpointListing[]> {
  const rows = await db
    .select({
      endpoint: webhookEndpoints,
      lastDeliveryAt: sql<Date | null>`(select max(coalesce(d.delivered_at, d.failed_at)) from ${outboundDeliveries} d where d.endpoint_id = ${webhookEndpoints.id})`.mapWith((value) => (value ? new Date(value) : null)),
      lastStatus: sql<number | null>`(select d.last_status from ${outboundDeliveries} d where d.endpoint_id = ${webhookEndpoints.id} and d.attempts > 0 order by d.created_at desc limit 1)`,
      lastError: sql<string | null>`(select d.last_error from ${outboundDeliveries} d where d.endpoint_id = ${webhookEndpoints.id} and d.attempts > 0 order by d.created_at desc limit 1)`,
      waiting: sql<number>`(select count(*)::int from ${outboundDeliveries} d where d.endpoint_id = ${webhookEndpoints.id} and d.delivered_at is null and d.failed_at is null)`,
      failed: sql<number>`(select count(*)::int from ${outboundDeliveries} d where d.endpoint_id = ${webhookEndpoints.id} and d.failed_at is not null)`,
    })
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.orgId, orgId))
    .orderBy(webhookEndpoints.createdAt);
  return rows.map(({ endpoint, ...rest }) => ({ ...endpoint, ...rest }));
}

export async function findWebhookEndpoint(db: Queryable, orgId: string, id: string): Promise<WebhookEndpoint | undefined> {
  if (!isUuid(id)) return undefined;
  const [endpoint] = await db.select().from(webhookEndpoints).where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.orgId, orgId)));
  return endpoint;
}

export type WebhookDelivery = typeof outboundDeliveries.$inferSelect;

/** An endpoint's latest deliveries, newest first. */
export async function listWebhookDeliveries(db: Queryable, orgId: string, endpointId: string, limit = 50): Promise<WebhookDelivery[]> {
  if (!isUuid(endpointId)) return [];
  return db
    .select()
    .from(outboundDeliveries)
    .where(and(eq(outboundDeliveries.orgId, orgId), eq(outboundDeliveries.endpointId, endpointId)))
    .orderBy(desc(outboundDeliveries.createdAt))
    .limit(limit);
}

/** The endpoint's URL, opened (only the delivery needs it). */
export async function endpointUrl(endpoint: Pick<WebhookEndpoint, 'sealedUrl'>, atRestKey: Uint8Array): Promise<string> {
  return decryptAtRest(endpoint.sealedUrl, atRestKey);
}
