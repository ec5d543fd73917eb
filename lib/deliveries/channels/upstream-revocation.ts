// The outbox's upstream_revocation channel: a person's tokens at an OAuth-protected upstream MCP server (the
// gateway, lib/gateway/upstream-oauth.ts), revoked at its authorization server's revocation endpoint (RFC 7009 §2.1)
// once Portico no longer holds them — the person disconnected, left the organization, or the server was removed.
// The payload carries the tokens and Portico's client registration as they were sealed at rest (JWE): the queue
// never holds a bearer secret in clear. Sent through the outbound guard, retried like any delivery; RFC 7009 §2.2
// answers 200 even for a token already invalid, so a repeat does no harm.
import type { Queryable } from '../../db/client';
import { outboundRequest, OutboundRefused, type OutboundPolicy } from '../../http/outbound';
import { decryptAtRest } from '../../security/at-rest';
import { DeliveryFailed, enqueue, type DeliveryHandler } from '../outbox';

export interface UpstreamRevocationPayload {
  /** The authorization server's revocation endpoint. */
  endpoint: string;
  /** Portico's registration there (`client_id`, and `client_secret` when it has one), sealed. */
  clientSealed: string;
  /** The person's tokens (`access_token`, `refresh_token`), sealed. */
  tokensSealed: string;
}

/** Queues the revocations in the caller's transaction. */
export async function enqueueUpstreamRevocations(db: Queryable, orgId: string, revocations: readonly UpstreamRevocationPayload[]): Promise<void> {
  if (revocations.length === 0) return;
  await enqueue(db, revocations.map((payload) => ({ channel: 'upstream_revocation' as const, orgId, recipient: new URL(payload.endpoint).origin, payload })));
}

export function upstreamRevocationDelivery(options: { atRestKey: Uint8Array; outbound: OutboundPolicy }): DeliveryHandler {
  return async (delivery) => {
    const payload = delivery.payload as UpstreamRevocationPayload;
    const client = JSON.parse(await decryptAtRest(payload.clientSealed, options.atRestKey)) as { client_id: string; client_secret?: string };
    const tokens = JSON.parse(await decryptAtRest(payload.tokensSealed, options.atRestKey)) as { access_token?: string; refresh_token?: string };
    // The refresh token first: revoking it ends the grant, and with it (RFC 7009 §2.1) its access tokens.
    const [token, hint] = tokens.refresh_token ? [tokens.refresh_token, 'refresh_token'] : [tokens.access_token ?? '', 'access_token'];
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    const body = new URLSearchParams({ token, token_type_hint: hint });
    // RFC 7009 §2.1: the client authenticates as at the token endpoint (client_secret_basic), or names itself.
    if (client.client_secret) headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`).toString('base64')}`;
    else body.set('client_id', client.client_id);
    let response: Response;
    try {
      response = await outboundRequest(payload.endpoint, { method: 'POST', headers, body: body.toString(), timeoutMs: 10_000, maxBytes: 16_384 }, options.outbound);
    } catch (error) {
      if (error instanceof OutboundRefused) throw new DeliveryFailed(error.message);
      throw new DeliveryFailed('the request failed');
    }
    // 503 (RFC 7009 §2.2.1) and other server errors are retried; another 4xx refuses this request itself.
    if (response.status >= 500 || response.status === 429) throw new DeliveryFailed(`the authorization server answered ${response.status}`, response.status);
    if (response.status < 200 || response.status > 299) throw new DeliveryFailed(`the authorization server answered ${response.status}`, response.status, true);
    return { status: response.status };
  };
}
