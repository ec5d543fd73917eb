// The outbox's webhook channel: one signed POST per delivery to the endpoint's URL, through the outbound guard (the
// address is checked again before connecting, every time: a name that moved to a private address is refused),
// without following redirects, answered within 10 seconds. A 2xx answer is delivered; anything else is retried by the
// outbox with backoff, and the status and a short reason go to the delivery log. The body is the event as stored; a
// chat ("slack") endpoint gets one line of text instead. An audit event's webhooks are queued by the database's fan-out
// trigger, in the event's own transaction (drizzle/0032_webhook_events.sql); a test event and a redelivery by
// enqueueWebhookMessage.
import { eq } from 'drizzle-orm';
import type { Queryable } from '../../db/client';
import { organizations, webhookEndpoints } from '../../db/schema';
import { DeliveryFailed, enqueue, type DeliveryHandler } from '../outbox';
import { outboundRequest, OutboundRefused, type OutboundPolicy } from '../../http/outbound';
import { decryptAtRest } from '../../security/at-rest';
import { chatMessage, type WebhookEvent } from '../../webhooks/events';
import { webhookSignature } from '../../webhooks/signing';

const TIMEOUT_MS = 10_000;
/** The receiver's answer is read only to be discarded: a little is enough. */
const MAX_ANSWER_BYTES = 64 * 1024;
const USER_AGENT = 'Portico-Webhooks/1';

/** One message for one endpoint (a test event, or a copy of a delivered one); returns the delivery's id. */
export async function enqueueWebhookMessage(
  db: Queryable,
  message: {
    orgId: string;
    endpoint: { id: string; displayUrl: string };
    messageId: string;
    eventType: string | null;
    payload: unknown;
    auditEventId?: number | null;
    redeliveryOf?: string;
  },
): Promise<string> {
  const [id] = await enqueue(db, [
    {
      channel: 'webhook',
      orgId: message.orgId,
      endpointId: message.endpoint.id,
      recipient: message.endpoint.displayUrl,
      messageId: message.messageId,
      eventType: message.eventType,
      payload: message.payload,
      auditEventId: message.auditEventId ?? null,
      ...(message.redeliveryOf ? { redeliveryOf: message.redeliveryOf } : {}),
    },
  ]);
  return id!;
}

export interface WebhookDeliveryOptions {
  db: () => Queryable;
  atRestKey: Uint8Array;
  outbound: OutboundPolicy;
  /** The signature's timestamp comes from here (tests move it). */
  now?: () => Date;
}

export function webhookDelivery(options: WebhookDeliveryOptions): DeliveryHandler {
  const now = options.now ?? (() => new Date());
  return async (delivery) => {
    const [row] = await options
      .db()
      .select({ endpoint: webhookEndpoints, organization: organizations.name })
      .from(webhookEndpoints)
      .innerJoin(organizations, eq(organizations.id, webhookEndpoints.orgId))
      .where(eq(webhookEndpoints.id, delivery.endpointId!));
    if (!row) throw new DeliveryFailed('the endpoint no longer exists');
    const { endpoint } = row;
    // A turned-off endpoint receives nothing; a test event is the exception (the admin asked for it).
    if (!endpoint.enabled && delivery.eventType !== 'webhook.test') throw new DeliveryFailed('the endpoint is turned off');
    const event = delivery.payload as WebhookEvent;
    const body = JSON.stringify(endpoint.format === 'slack' ? chatMessage(event, row.organization) : event);
    const secrets = [await decryptAtRest(endpoint.sealedSecret, options.atRestKey)];
    const at = now();
    if (endpoint.sealedPreviousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > at) {
      secrets.push(await decryptAtRest(endpoint.sealedPreviousSecret, options.atRestKey));
    }
    const timestamp = Math.floor(at.getTime() / 1000);
    let response: Response;
    try {
      response = await outboundRequest(
        await decryptAtRest(endpoint.sealedUrl, options.atRestKey),
        {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'user-agent': USER_AGENT,
            'webhook-id': delivery.messageId!,
            'webhook-timestamp': String(timestamp),
            'webhook-signature': webhookSignature(secrets, delivery.messageId!, timestamp, body),
          },
          body,
          timeoutMs: TIMEOUT_MS,
          maxBytes: MAX_ANSWER_BYTES,
        },
        options.outbound,
      );
    } catch (error) {
      // The guard's words only: which network error happened is not for the log (nor for scanning networks).
      if (error instanceof OutboundRefused) throw new DeliveryFailed(error.message);
      throw new DeliveryFailed('the request failed');
    }
    if (response.status < 200 || response.status > 299) throw new DeliveryFailed(`the receiver answered ${response.status}`, response.status);
    return { status: response.status };
  };
}
