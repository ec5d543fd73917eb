// Receiving Portico's Shared Signals (SSF 1.0, CAEP, RISC) on a push stream (RFC 8935): Portico POSTs each Security
// Event Token (RFC 8417) as application/secevent+jwt to the endpoint the app gave when it created its stream. The
// receiver verifies it (signature against Portico's JWKS, `iss`, `aud` = the app's client id, `typ: secevent+jwt`,
// issued at most a day ago, exactly one event, a `jti` used once), ends the app's sessions for CAEP session-revoked
// and RISC account-disabled and account-purged, and hands every event to the app.
import { readBounded } from './body';
import { jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { keysUnavailable, remoteKeys } from './protected-resource';
import { memoryReplayGuard, type ReplayGuard } from './surface';
import type { BackchannelLogout } from './backchannel-logout';

export const CAEP_SESSION_REVOKED = 'https://schemas.openid.net/secevent/caep/event-type/session-revoked';
export const RISC_ACCOUNT_DISABLED = 'https://schemas.openid.net/secevent/risc/event-type/account-disabled';
export const RISC_ACCOUNT_PURGED = 'https://schemas.openid.net/secevent/risc/event-type/account-purged';
const MAX_TOKEN_LENGTH = 16 * 1024;
/** A pushed event may have waited in Portico's outbox through retries (about a day). */
const DEFAULT_MAX_AGE_SECONDS = 26 * 3600;

export interface SecurityEvent {
  jti: string;
  /** The event type URI. */
  type: string;
  /** The event's own members (reason_admin, credential_type, claims, …). */
  event: Record<string, unknown>;
  /** The person (`sub` of the subject's `iss_sub` identifier), and their Portico session when the event names one. */
  sub?: string;
  sid?: string;
  /** The subject identifier as sent (RFC 9493). */
  subject: Record<string, unknown>;
}

export interface SecurityEventReceiverConfig {
  issuer: string;
  clientId: string;
  /** Ends the app's sessions: the same function the back-channel logout receiver takes. */
  endSessions(logout: BackchannelLogout): Promise<void> | void;
  /** Every accepted event (after the sessions it ends are ended). */
  onEvent?(event: SecurityEvent): Promise<void> | void;
  replayGuard?: ReplayGuard;
  keys?: JWTVerifyGetKey;
  maxAgeSeconds?: number;
  now?: () => Date;
}

/** RFC 8935 §2.3 error codes. */
export class SecurityEventRefusal extends Error {
  constructor(
    readonly err: 'invalid_request' | 'invalid_key' | 'invalid_issuer' | 'invalid_audience' | 'authentication_failed' | 'access_denied',
    message: string,
  ) {
    super(message);
    this.name = 'SecurityEventRefusal';
  }
}

function subjectOf(subId: unknown): { sub?: string; sid?: string } {
  if (typeof subId !== 'object' || subId === null) return {};
  const subject = subId as Record<string, Record<string, unknown> | unknown>;
  const user = (subject.format === 'complex' ? subject.user : subject) as Record<string, unknown> | undefined;
  const session = subject.format === 'complex' ? (subject.session as Record<string, unknown> | undefined) : undefined;
  return {
    ...(user && user.format === 'iss_sub' && typeof user.sub === 'string' ? { sub: user.sub } : {}),
    ...(session && session.format === 'opaque' && typeof session.id === 'string' ? { sid: session.id } : {}),
  };
}

export function createSecurityEventReceiver(config: SecurityEventReceiverConfig) {
  const keys = config.keys ?? remoteKeys(config.issuer);
  const now = config.now ?? (() => new Date());
  const replay = config.replayGuard ?? memoryReplayGuard(now);
  const maxAge = config.maxAgeSeconds ?? DEFAULT_MAX_AGE_SECONDS;

  async function receive(token: string): Promise<SecurityEvent> {
    if (token.length > MAX_TOKEN_LENGTH) throw new SecurityEventRefusal('invalid_request', 'the SET is too large');
    let claims: JWTPayload;
    try {
      ({ payload: claims } = await jwtVerify(token, keys, {
        issuer: config.issuer,
        audience: config.clientId,
        algorithms: ['ES256', 'RS256', 'PS256', 'EdDSA'],
        typ: 'secevent+jwt',
        requiredClaims: ['iat', 'jti'],
        maxTokenAge: maxAge,
        currentDate: now(),
      }));
    } catch (error) {
      // The keys could not be had now: not a refusal (answered 503, so Portico sends the SET again).
      if (keysUnavailable(error)) throw error;
      const message = error instanceof Error ? error.message : 'unreadable';
      const err = /"iss"/.test(message) ? 'invalid_issuer' : /"aud"/.test(message) ? 'invalid_audience' : /signature|key/i.test(message) ? 'invalid_key' : 'invalid_request';
      throw new SecurityEventRefusal(err, `the SET is not valid: ${message}`);
    }
    const events = claims.events as Record<string, unknown> | undefined;
    const entries = events && typeof events === 'object' ? Object.entries(events) : [];
    // SSF 1.0 §4.1.8: exactly one event per SET.
    if (entries.length !== 1 || typeof entries[0]![1] !== 'object' || entries[0]![1] === null) throw new SecurityEventRefusal('invalid_request', 'a SET carries exactly one event');
    const [type, event] = entries[0] as [string, Record<string, unknown>];
    const jti = String(claims.jti);
    if (!(await replay.remember(`set:${jti}`, new Date(((claims.iat as number) + maxAge) * 1000)))) throw new SecurityEventRefusal('invalid_request', 'the SET was already received');
    const subject = (claims.sub_id ?? {}) as Record<string, unknown>;
    const received: SecurityEvent = { jti, type, event, subject, ...subjectOf(subject) };
    try {
      if ((type === CAEP_SESSION_REVOKED || type === RISC_ACCOUNT_DISABLED || type === RISC_ACCOUNT_PURGED) && (received.sub || received.sid)) {
        await config.endSessions({ jti, ...(received.sub ? { sub: received.sub } : {}), ...(type === CAEP_SESSION_REVOKED && received.sid ? { sid: received.sid } : {}) });
      }
      await config.onEvent?.(received);
    } catch (error) {
      await replay.forget?.(`set:${jti}`);
      throw error;
    }
    return received;
  }

  return {
    receive,
    /** RFC 8935 §2: 202 when accepted; 400 {"err", "description"} when refused; 503 when the app could not act on it. */
    async handle(request: Request): Promise<Response> {
      const noStore = { 'cache-control': 'no-store' };
      if (request.method !== 'POST') return new Response(null, { status: 405, headers: { allow: 'POST' } });
      if (!(request.headers.get('content-type') ?? '').startsWith('application/secevent+jwt')) {
        return Response.json({ err: 'invalid_request', description: 'the body must be application/secevent+jwt' }, { status: 400, headers: noStore });
      }
      const body = await readBounded(request, MAX_TOKEN_LENGTH + 16);
      if (body === undefined) return Response.json({ err: 'invalid_request', description: 'the SET is too large' }, { status: 400, headers: noStore });
      try {
        await receive(body.trim());
      } catch (error) {
        if (error instanceof SecurityEventRefusal) return Response.json({ err: error.err, description: error.message }, { status: 400, headers: noStore });
        return Response.json({ err: 'invalid_request', description: 'the event could not be processed now' }, { status: 503, headers: noStore });
      }
      return new Response(null, { status: 202, headers: noStore });
    },
  };
}
