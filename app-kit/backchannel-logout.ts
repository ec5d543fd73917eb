// Receiving Portico's back-channel logout tokens (OpenID Connect Back-Channel Logout 1.0): Portico POSTs one to the
// app's registered backchannel_logout_uri whenever a person's session with the app ends there (they signed out, were
// removed, changed their password, the app's access was revoked, …). The receiver verifies it as §2.6 says and
// hands the app the person (`sub`) and Portico's session (`sid`) whose app sessions must end now.
import { readBounded } from './body';
import { jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { keysUnavailable, remoteKeys } from './protected-resource';
import { memoryReplayGuard, type ReplayGuard } from './surface';

/** §2.4: the member of `events` that makes a JWT a logout token. */
export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';
/** A token issued longer ago than this is refused (Portico's live 2 minutes; this allows for clock skew). */
const DEFAULT_MAX_AGE_SECONDS = 5 * 60;
const MAX_TOKEN_LENGTH = 8192;

/** Whose sessions end: every app session of the person (`sub`), or only those tied to Portico's session `sid`. */
export interface BackchannelLogout {
  sub?: string;
  sid?: string;
  /** The token's id: already remembered as used when the app hears of it. */
  jti: string;
}

export interface LogoutReceiverConfig {
  issuer: string;
  /** The app's own client id: the token's audience. */
  clientId: string;
  /**
   * Ends the app's sessions named: with a `sid`, the sessions the app opened from an ID token carrying it; with a
   * `sub` only, every session of that person. Called once per accepted token.
   */
  endSessions(logout: BackchannelLogout): Promise<void> | void;
  /**
   * Remembers token ids until they expire so that a replayed token is refused (§2.6 step 9 allows it; Portico's
   * tokens are single use). The default is this process's memory: an app on several instances gives a shared store.
   */
  replayGuard?: ReplayGuard;
  /** Portico's keys; by default its JWKS, fetched and cached. */
  keys?: JWTVerifyGetKey;
  maxAgeSeconds?: number;
  /** The receiver's clock (tests move it). */
  now?: () => Date;
}

/** Why a logout token was refused: the words go back in the 400 answer (§2.8) and to the app's log. */
export class LogoutTokenRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LogoutTokenRefusal';
  }
}

export interface LogoutReceiver {
  /** Verifies one logout token and ends the sessions it names; throws LogoutTokenRefusal when it must be refused. */
  receive(logoutToken: string): Promise<BackchannelLogout>;
  /** The HTTP side (§2.5, §2.8): a form POST with `logout_token`; 200 when done, 400 with an OAuth error otherwise. */
  handle(request: Request): Promise<Response>;
}

export function createLogoutReceiver(config: LogoutReceiverConfig): LogoutReceiver {
  const keys = config.keys ?? remoteKeys(config.issuer);
  const maxAge = config.maxAgeSeconds ?? DEFAULT_MAX_AGE_SECONDS;
  const now = config.now ?? (() => new Date());
  const replay = config.replayGuard ?? memoryReplayGuard(now);

  async function receive(logoutToken: string): Promise<BackchannelLogout> {
    if (logoutToken.length > MAX_TOKEN_LENGTH) throw new LogoutTokenRefusal('the logout token is too large');
    let claims: JWTPayload;
    try {
      // §2.6 steps 3–4: signature with Portico's keys (asymmetric algorithms only), issuer, audience, and a token
      // that is not expired nor issued too long ago; the explicit type keeps an ID token from passing as one.
      ({ payload: claims } = await jwtVerify(logoutToken, keys, {
        issuer: config.issuer,
        audience: config.clientId,
        algorithms: ['ES256', 'RS256', 'PS256', 'EdDSA'],
        typ: 'logout+jwt',
        requiredClaims: ['iat', 'exp', 'jti'],
        maxTokenAge: maxAge,
        currentDate: now(),
      }));
    } catch (error) {
      // The keys could not be had now: not a refusal (answered 503, so Portico sends the token again).
      if (keysUnavailable(error)) throw error;
      throw new LogoutTokenRefusal(`the logout token is not valid: ${error instanceof Error ? error.message : 'unreadable'}`);
    }
    // Step 5: one of sub and sid, as strings.
    const sub = typeof claims.sub === 'string' && claims.sub !== '' ? claims.sub : undefined;
    const sid = typeof claims.sid === 'string' && claims.sid !== '' ? claims.sid : undefined;
    if (!sub && !sid) throw new LogoutTokenRefusal('the logout token names neither a subject nor a session');
    // Step 6: the backchannel-logout event, as a JSON object.
    const events = claims.events as Record<string, unknown> | undefined;
    const event = events && typeof events === 'object' ? events[BACKCHANNEL_LOGOUT_EVENT] : undefined;
    if (!event || typeof event !== 'object' || Array.isArray(event)) throw new LogoutTokenRefusal('the logout token has no back-channel logout event');
    // Step 7: a nonce would make it replayable as an ID token answer (§2.4: prohibited).
    if ('nonce' in claims) throw new LogoutTokenRefusal('a logout token must not contain a nonce');
    // Step 9: a token is used once.
    const jti = typeof claims.jti === 'string' ? claims.jti : '';
    if (!jti || !(await replay.remember(`logout:${jti}`, new Date((claims.exp as number) * 1000)))) throw new LogoutTokenRefusal('the logout token was already used');
    const logout: BackchannelLogout = { jti, ...(sub ? { sub } : {}), ...(sid ? { sid } : {}) };
    try {
      await config.endSessions(logout);
    } catch (error) {
      // Not ended: Portico sends the same token again later, which must then be accepted.
      await replay.forget?.(`logout:${jti}`);
      throw error;
    }
    return logout;
  }

  return {
    receive,
    async handle(request) {
      const noStore = { 'cache-control': 'no-store' };
      if (request.method !== 'POST') return new Response(null, { status: 405, headers: { allow: 'POST' } });
      const type = request.headers.get('content-type') ?? '';
      // A form of one logout token: anything much longer is not one.
      const body = type.startsWith('application/x-www-form-urlencoded') ? await readBounded(request, 2 * MAX_TOKEN_LENGTH) : undefined;
      const token = body === undefined ? null : new URLSearchParams(body).get('logout_token');
      if (!token) return Response.json({ error: 'invalid_request', error_description: 'a form POST with logout_token is expected' }, { status: 400, headers: noStore });
      try {
        await receive(token);
      } catch (error) {
        if (error instanceof LogoutTokenRefusal) return Response.json({ error: 'invalid_request', error_description: error.message }, { status: 400, headers: noStore });
        // The app could not end its sessions: Portico retries later (§2.8: an error other than a bad token).
        return Response.json({ error: 'temporarily_unavailable', error_description: 'the sessions could not be ended' }, { status: 503, headers: noStore });
      }
      return new Response(null, { status: 200, headers: noStore });
    },
  };
}
