// The protected-resource side of OAuth for an MCP server at `<origin>/api/mcp`: RFC 9728 metadata, RFC 6750
// bearer challenges, and local verification of Portico's RFC 9068 access tokens. Web-standard Request/Response
// only. It belongs to the app kit; Portico's own /api/mcp imports it from here, so both run the same gate.
import { hash } from 'node:crypto';
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';

import { isRevokedToken, type SubjectRevocations } from './revocations';

export interface ProtectedResourceConfig {
  /** The RFC 8707 resource identifier, e.g. `https://app.example/api/mcp`. */
  resource: string;
  /** Portico's issuer: the one authorization server (RFC 9728 §2 `authorization_servers`). */
  issuer: string;
  /** The fixed audience tokens for this resource carry (an app's identity), never read from a token. */
  audience: string;
  scopesSupported: readonly string[];
  resourceName?: string;
  /** Subjects disabled since their tokens were issued (./revocations.ts): their tokens are refused at once. */
  revocations?: SubjectRevocations;
}

/**
 * RFC 9728 §3.1: the metadata URL inserts `/.well-known/oauth-protected-resource` between the origin and the
 * resource's path, so `https://app.example/api/mcp` → `https://app.example/.well-known/oauth-protected-resource/api/mcp`.
 */
export function protectedResourceMetadataUrl(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname;
  return `${url.origin}/.well-known/oauth-protected-resource${path}`;
}

/** RFC 9728 §2. Bearer tokens travel in the Authorization header only (RFC 6750 §2.1). */
export function protectedResourceMetadata(config: ProtectedResourceConfig): Record<string, unknown> {
  return {
    resource: config.resource,
    authorization_servers: [config.issuer],
    scopes_supported: [...config.scopesSupported],
    bearer_methods_supported: ['header'],
    ...(config.resourceName ? { resource_name: config.resourceName } : {}),
  };
}

export type BearerError = { error: 'invalid_request' | 'invalid_token' | 'insufficient_scope'; description: string };

/**
 * RFC 6750 §3 with RFC 9728 §5.1's `resource_metadata`. Quoted values never contain `"` or `\`. Without a required
 * scope the challenge names none, and a client asks for the metadata's `scopes_supported` (MCP authorization,
 * scope selection).
 */
export function bearerChallenge(config: ProtectedResourceConfig, requiredScope: readonly string[], error?: BearerError): string {
  const quote = (value: string) => `"${value.replace(/["\\]/g, '')}"`;
  const parts = [`resource_metadata=${quote(protectedResourceMetadataUrl(config.resource))}`];
  if (requiredScope.length > 0) parts.push(`scope=${quote(requiredScope.join(' '))}`);
  if (error) parts.push(`error=${quote(error.error)}`, `error_description=${quote(error.description)}`);
  return `Bearer ${parts.join(', ')}`;
}

export interface VerifiedAccessToken {
  /** The person (or, for an own-mode agent later, the agent) the token speaks for. */
  subject: string;
  /** RFC 8693 §4.1: the agent acting for the subject, when the consent named one. */
  actor?: string;
  clientId: string;
  /** Recorded for audit only; the audience is the gate. */
  authorizedParty?: string;
  organization?: string;
  scopes: string[];
  expiresAt: number;
  claims: JWTPayload;
}

export type AccessTokenCheck = { ok: true; token: VerifiedAccessToken } | { ok: false; status: 400 | 401 | 403; error: BearerError };

const jwksByIssuer = new Map<string, JWTVerifyGetKey>();

/** A cached JWKS for the issuer (jose refetches on an unknown `kid`, with a cooldown). */
export function remoteKeys(issuer: string, jwksUri = `${issuer}/oidc/jwks`): JWTVerifyGetKey {
  let keys = jwksByIssuer.get(jwksUri);
  if (!keys) jwksByIssuer.set(jwksUri, (keys = createRemoteJWKSet(new URL(jwksUri))));
  return keys;
}

/**
 * Whether a verification failed for want of the keys rather than because of the token: the JWKS could not be fetched
 * in time or was unreadable, or it does not hold the token's key yet (a rotation jose has not refetched, within its
 * cooldown). A receiver answers these "try again later" (503), not "refused" (400), which Portico does not retry.
 */
export function keysUnavailable(error: unknown): boolean {
  if (!(error instanceof joseErrors.JOSEError)) return true;
  return error.code === 'ERR_JWKS_TIMEOUT' || error.code === 'ERR_JWKS_NO_MATCHING_KEY' || error.code === 'ERR_JWKS_INVALID';
}

/**
 * Tokens already verified, by the SHA-256 of the token with the issuer and audience they were checked for, until
 * their `exp`: an agent calls many times with one token, and each call would otherwise pay the ES256 verification
 * again. Bounded in size (the oldest entry leaves first). A token is only ever served from here while unexpired, so
 * the cache changes nothing an attacker could use: a different token (one changed byte) is a different key.
 */
const VERIFIED_LIMIT = 10_000;
const verifiedTokens = new Map<string, VerifiedAccessToken>();

/** Verifies an access token: ES256 signature, `typ` at+jwt (RFC 9068 §2.1), `iss`, `exp`, and `aud` fixed. */
export async function verifyAccessToken(jwt: string, config: ProtectedResourceConfig, keys: JWTVerifyGetKey): Promise<AccessTokenCheck> {
  const invalid = (description: string): AccessTokenCheck => ({ ok: false, status: 401, error: { error: 'invalid_token', description } });
  if (jwt.length > 8192) return invalid('the access token is too large');
  const cacheKey = `${config.issuer}\n${config.audience}\n${hash('sha256', jwt, 'base64url')}`;
  const cached = verifiedTokens.get(cacheKey);
  if (cached) {
    if (cached.expiresAt * 1000 > Date.now()) return { ok: true, token: cached };
    verifiedTokens.delete(cacheKey);
  }
  try {
    const { payload } = await jwtVerify(jwt, keys, {
      issuer: config.issuer,
      audience: config.audience,
      algorithms: ['ES256'],
      typ: 'at+jwt',
      requiredClaims: ['sub', 'exp', 'client_id'],
    });
    const act = payload.act as { sub?: unknown } | undefined;
    const token: VerifiedAccessToken = {
      subject: String(payload.sub),
      actor: typeof act?.sub === 'string' ? act.sub : undefined,
      clientId: String(payload.client_id),
      authorizedParty: typeof payload.azp === 'string' ? payload.azp : undefined,
      organization: typeof payload.org === 'string' ? payload.org : undefined,
      scopes: typeof payload.scope === 'string' ? payload.scope.split(' ').filter(Boolean) : [],
      expiresAt: payload.exp as number,
      claims: payload,
    };
    if (verifiedTokens.size >= VERIFIED_LIMIT) verifiedTokens.delete(verifiedTokens.keys().next().value!);
    verifiedTokens.set(cacheKey, token);
    return { ok: true, token };
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired) return invalid('the access token has expired');
    if (error instanceof joseErrors.JWTClaimValidationFailed) return invalid(`the access token's ${error.claim} claim is not valid here`);
    return invalid('the access token is not valid');
  }
}

/** The bearer token of the Authorization header (RFC 6750 §2.1), or why there is none. */
export function bearerTokenOf(request: Request): { token?: string; malformed?: true } {
  const header = request.headers.get('authorization');
  if (!header) return {};
  const match = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/.exec(header);
  return match?.[1] ? { token: match[1] } : { malformed: true };
}

export type ResourceAuthorization = { ok: true; token: VerifiedAccessToken } | { ok: false; response: Response };

/**
 * The gate in front of a protected resource. No token: 401 with the challenge only (RFC 6750 §3.1: no error code).
 * Bad token: 401 invalid_token. Missing scope: 403 insufficient_scope naming the scope needed. A 401 names
 * `challengeScope` (by default the scope required): the minimal scope a client should ask for (MCP authorization,
 * scope selection), even where the gate itself lets any valid token through and decides per operation.
 */
export async function authorizeBearer(
  request: Request,
  config: ProtectedResourceConfig,
  keys: JWTVerifyGetKey,
  requiredScope: readonly string[],
  challengeScope: readonly string[] = requiredScope,
): Promise<ResourceAuthorization> {
  const deny = (status: number, error?: BearerError): ResourceAuthorization => ({
    ok: false,
    response: new Response(JSON.stringify(error ? { error: error.error, error_description: error.description } : { error: 'unauthorized', error_description: 'a bearer access token is required' }), {
      status,
      headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', 'WWW-Authenticate': bearerChallenge(config, challengeScope, error) },
    }),
  });
  const bearer = bearerTokenOf(request);
  if (bearer.malformed) return deny(400, { error: 'invalid_request', description: 'the Authorization header is not a Bearer token' });
  if (!bearer.token) return deny(401);
  const check = await verifyAccessToken(bearer.token, config, keys);
  if (!check.ok) return deny(check.status, check.error);
  // A token a person gave through CIBA approves one described action (its authorization_details), spent once by
  // verifyApprovedAction: it never serves as a session token for the app's API.
  if (check.token.claims.authorization_details !== undefined) {
    return deny(401, { error: 'invalid_token', description: 'this token approves one action (authorization_details): it serves only that action, not this resource' });
  }
  // Portico said the person or agent was disabled after this token was issued (RISC account-disabled).
  if (config.revocations && (await isRevokedToken(config.revocations, check.token))) {
    return deny(401, { error: 'invalid_token', description: 'the person or agent of this token was disabled after it was issued' });
  }
  const missing = requiredScope.filter((scope) => !check.token.scopes.includes(scope));
  if (missing.length > 0) return { ok: false, response: insufficientScope(config, check.token, requiredScope, 'this resource') };
  return { ok: true, token: check.token };
}

/**
 * RFC 6750 §3.1 `insufficient_scope`, 403. The challenge's `scope` names only what this operation needs (MCP
 * authorization 2026-07-28, runtime insufficient scope; SEP-2350): a client authorizing again asks for the union of
 * what it already requested and this, so the server never has to echo back what the token holds.
 */
export function insufficientScope(config: ProtectedResourceConfig, token: VerifiedAccessToken, needed: readonly string[], what: string): Response {
  const missing = needed.filter((scope) => !token.scopes.includes(scope));
  const error: BearerError = { error: 'insufficient_scope', description: `${what} needs the scope ${missing.join(' ')}` };
  return new Response(JSON.stringify({ error: error.error, error_description: error.description }), {
    status: 403,
    headers: {
      'Content-Type': 'application/json',
      'Cache-Control': 'no-store',
      'WWW-Authenticate': bearerChallenge(config, [...new Set(needed)], error),
    },
  });
}
