// The outbox's logout_token channel (OpenID Connect Back-Channel Logout 1.0): one POST of a signed logout token to
// the client's backchannel_logout_uri, through the outbound guard, without following redirects, answered within 10
// seconds. The token is signed when it is sent, not when it was queued: its lifetime is short (2 minutes) and a
// retry hours later must still be fresh. Its `jti` is the delivery's id, the same on every retry, so a relying party
// that processed an attempt whose answer was lost refuses the repeat as a replay (and is signed out already).
// Who hears of an ending is decided in lib/grants/logout-notices.ts; the tokens are queued here.
import { createHash } from 'node:crypto';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { importJWK, SignJWT, type JWK } from 'jose';
import type { Queryable } from '../../db/client';
import { apps, clients } from '../../db/schema';
import { outboundRequest, OutboundRefused, type OutboundPolicy } from '../../http/outbound';
import { DeliveryFailed, enqueue, type DeliveryHandler, type NewDelivery } from '../outbox';

/** One app session that ended (lib/grants/logout-notices.ts SessionEnding): the client, the person, the `sid`. */
export interface LogoutTokenEnding {
  clientId: string;
  accountId: string;
  sid?: string;
}

/**
 * What a queued logout token delivery holds until it is signed and sent (no secret: stored as is). The URI the
 * client had when it was queued: the client's current one is used when it is sent, this one only when the client is
 * gone (its app was deleted, which is itself an ending to announce) (logoutTokenDelivery below).
 */
export interface LogoutTokenPayload {
  uri: string;
  sub: string;
  sid?: string;
  /** The client's ID token algorithm (Back-Channel Logout 1.0 §2.4: logout tokens are signed like its ID tokens). */
  alg: string;
}

/** The same (client, person, session) always names the same waiting delivery: a second ending of it adds nothing. */
function endingKey(ending: LogoutTokenEnding): string {
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
export async function queueLogoutTokens(db: Queryable, endings: readonly LogoutTokenEnding[], reason: string): Promise<number> {
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
  const rows: NewDelivery[] = [];
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
  return (await enqueue(db, rows, { skipDuplicates: true })).length;
}


const TIMEOUT_MS = 10_000;
const MAX_ANSWER_BYTES = 16 * 1024;
/** Back-Channel Logout 1.0 §2.4: "a short expiration time, preferably at most two minutes in the future". */
export const LOGOUT_TOKEN_TTL_SECONDS = 120;
/** §2.4: the `events` member that makes a JWT a logout token. */
export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

export interface LogoutTokenDeliveryOptions {
  db: () => Queryable;
  issuer: string;
  /** Portico's private signing keys (one per algorithm), the ones ID tokens are signed with. */
  signingKeys: JWK[];
  /**
   * The guard for clients an organization's admins made (apps' clients, external clients): it may include the
   * installation's allowed networks. A client that registered itself (RFC 7591, CIMD) or is gone gets the public
   * internet only: anyone can register one, and its logout URI must not open the company's network to them.
   */
  outbound: OutboundPolicy;
  /** The token's `iat` comes from here (tests move it). */
  now?: () => Date;
}

/** Signs the logout token of one queued ending (§2.4): iss, aud, iat, exp, jti, events, sub and sid; never a nonce. */
export function logoutTokenSigner(options: Pick<LogoutTokenDeliveryOptions, 'issuer' | 'signingKeys'>) {
  const imported = new Map<string, ReturnType<typeof importJWK>>();
  return async (input: { jti: string; clientId: string; payload: LogoutTokenPayload; at: Date }): Promise<string> => {
    const jwk = options.signingKeys.find((key) => key.alg === input.payload.alg) ?? options.signingKeys[0];
    if (!jwk?.alg || !jwk.kid) throw new DeliveryFailed('no signing key');
    let key = imported.get(jwk.kid);
    if (!key) {
      key = importJWK(jwk, jwk.alg);
      imported.set(jwk.kid, key);
    }
    const issuedAt = Math.floor(input.at.getTime() / 1000);
    return new SignJWT({ events: { [BACKCHANNEL_LOGOUT_EVENT]: {} }, ...(input.payload.sid ? { sid: input.payload.sid } : {}) })
      // §2.4: the explicit type keeps a logout token from passing as an ID token, and the other way round.
      .setProtectedHeader({ alg: jwk.alg, kid: jwk.kid, typ: 'logout+jwt' })
      .setIssuer(options.issuer)
      .setAudience(input.clientId)
      .setSubject(input.payload.sub)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + LOGOUT_TOKEN_TTL_SECONDS)
      .setJti(input.jti)
      .sign(await key);
  };
}

export function logoutTokenDelivery(options: LogoutTokenDeliveryOptions): DeliveryHandler {
  const now = options.now ?? (() => new Date());
  const sign = logoutTokenSigner(options);
  return async (delivery) => {
    const payload = delivery.payload as LogoutTokenPayload;
    // The URI the client has now: one changed since the ending was queued gets it there, one removed gets nothing. A
    // client that is gone (its app deleted, an ending to announce) gets it at the URI it had.
    const [client] = await options
      .db()
      .select({ uri: sql<string | null>`${clients.metadata}->>'backchannel_logout_uri'`, orgId: clients.orgId })
      .from(clients)
      .where(eq(clients.id, delivery.clientId!))
      .limit(1);
    const uri = client ? client.uri : payload.uri;
    if (!uri) throw new DeliveryFailed('the client no longer has a back-channel logout URI', undefined, true);
    const token = await sign({ jti: delivery.id, clientId: delivery.clientId!, payload, at: now() });
    let response: Response;
    try {
      response = await outboundRequest(
        uri,
        {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'cache-control': 'no-store' },
          body: new URLSearchParams({ logout_token: token }).toString(),
          timeoutMs: TIMEOUT_MS,
          maxBytes: MAX_ANSWER_BYTES,
          tooLarge: 'truncate',
        },
        client?.orgId ? options.outbound : { ...options.outbound, allowedNetworks: undefined },
      );
    } catch (error) {
      if (error instanceof OutboundRefused) throw new DeliveryFailed(error.message);
      throw new DeliveryFailed('the request failed');
    }
    // §2.8: 200 OK on success (204 is accepted too, as oidc-provider does); 400 when the relying party refused the
    // token itself — the same token would be refused again, so it is not retried. Anything else is retried.
    if (response.status !== 200 && response.status !== 204) throw new DeliveryFailed(`the relying party answered ${response.status}`, response.status, response.status === 400);
    return { status: response.status };
  };
}
