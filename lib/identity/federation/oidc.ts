// The OpenID Connect side of a federated sign-in (the shared core: core.ts): where the browser is sent, and the
// callback.
//
// Each OpenID Connect connection has a redirect URI of its own (`/auth/federation/oidc/<connection>/callback`,
// RFC 9700 §4.4.2): a response that arrives at one connection's callback is redeemed only at that connection's token
// endpoint, and a state minted for another connection is refused there, so an organization's identity provider
// cannot have another organization's codes redeemed at its own token endpoint (the mix-up attack). Connections made
// before that keep the old shared callback for a stated period (legacyCallbackUntil), where a response is taken only
// when its `iss` (RFC 9207) is the connection's issuer; openid-client requires `iss` wherever the identity provider's
// metadata says it sends it.
//
import { createHmac } from 'node:crypto';
import { and, eq, gt, sql } from 'drizzle-orm';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import * as oidcClient from 'openid-client';
import type { Database } from '../../db/client';
import { federatedSignIns } from '../../db/schema';
import { clientSecretOf, discover, findConnection, identityProviderFetch, type IdentityConnection } from '../connections';
import {
  federationTokenHash as sha256,
  mappedClaims,
  refused,
  sameHash,
  signInWithAssertion,
  type FederatedAssertion,
  type FederationContinuation,
  type FederationDeps,
  type FederationOutcome,
} from './core';

/** The algorithms an identity provider may sign ID tokens with (RFC 8725 §3.1: an allow-list, never `none`). */
export const ID_TOKEN_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

/** The PKCE verifier and the nonce of a sign-in, derived from its cookie's secret: only this installation can compute them. */
function derived(deps: Pick<FederationDeps, 'atRestKey'>, token: string, purpose: 'pkce' | 'nonce'): string {
  return createHmac('sha256', deps.atRestKey).update(`portico:federation:${purpose}:${token}`).digest('base64url');
}

/** The redirect URI of one OpenID Connect connection: the one its identity provider's admin registers. */
export function connectionCallbackUrl(issuer: string, connectionId: string): string {
  return `${issuer}/auth/federation/oidc/${connectionId}/callback`;
}

/** The shared callback every connection used before each had its own: kept for legacy connections only (0050). */
export function legacyCallbackUrl(issuer: string): string {
  return `${issuer}/auth/federation/oidc/callback`;
}

/** Whether a connection still sends its sign-ins through the shared callback (made before 0050, not yet switched). */
export function usesLegacyCallback(connection: Pick<IdentityConnection, 'legacyCallbackUntil'>, now: Date = new Date()): boolean {
  return connection.legacyCallbackUntil !== null && connection.legacyCallbackUntil.getTime() > now.getTime();
}

/** The redirect URI a connection's sign-ins are sent with now. */
export function callbackUrlInUse(issuer: string, connection: Pick<IdentityConnection, 'id' | 'legacyCallbackUntil'>, now?: Date): string {
  return usesLegacyCallback(connection, now) ? legacyCallbackUrl(issuer) : connectionCallbackUrl(issuer, connection.id);
}

/** Where the browser goes to sign in at the connection's identity provider (authorization code, PKCE, nonce). */
export async function oidcAuthorizationUrl(deps: FederationDeps, connection: IdentityConnection, signIn: { token: string; state: string }, loginHint?: string): Promise<string> {
  const configuration = await discover(deps.outbound, connection, await clientSecretOf(connection, deps.atRestKey));
  const location = oidcClient.buildAuthorizationUrl(configuration, {
    redirect_uri: callbackUrlInUse(deps.issuer, connection),
    scope: 'openid email profile',
    response_type: 'code',
    state: signIn.state,
    nonce: derived(deps, signIn.token, 'nonce'),
    code_challenge: await oidcClient.calculatePKCECodeChallenge(derived(deps, signIn.token, 'pkce')),
    code_challenge_method: 'S256',
    ...(loginHint && loginHint.length <= 320 ? { login_hint: loginHint } : {}),
  });
  return location.href;
}

/**
 * The OpenID Connect callback (redirect_uri). `connectionId`: the connection the callback's path names; undefined at
 * the legacy shared callback. The `state` must name an open sign-in of this browser (its cookie's secret) and of this
 * connection; at the shared callback the connection must still be on it and the response must carry `iss` = the
 * connection's issuer. The code is exchanged with PKCE and the client secret at that connection's token endpoint,
 * the ID token is verified with jose against the issuer's keys (its signature, `iss`, `aud`, expiry; openid-client
 * checked `nonce`, `state` and the response's `iss`), then the person is found or made.
 */
export async function completeOidcCallback(
  db: Database,
  deps: FederationDeps,
  input: { cookieToken: string | undefined; url: URL; ip: string; connectionId: string | undefined; now?: Date },
): Promise<FederationOutcome> {
  const state = input.url.searchParams.get('state');
  if (!state || !input.cookieToken || state.length > 100) return { kind: 'refused', reason: 'expired' };
  const [found] = await db
    .select({ tokenHash: federatedSignIns.tokenHash, connectionId: federatedSignIns.connectionId })
    .from(federatedSignIns)
    .where(eq(federatedSignIns.stateHash, sha256(state)))
    .limit(1);
  if (!found) return { kind: 'refused', reason: 'expired' };
  // Another browser's sign-in, or a state minted for another connection than the callback's (mix-up): refused
  // before anything is claimed or redeemed.
  if (!sameHash(found.tokenHash, sha256(input.cookieToken))) return { kind: 'refused', reason: 'state_mismatch' };
  if (input.connectionId !== undefined && found.connectionId !== input.connectionId) return { kind: 'refused', reason: 'state_mismatch' };
  const connection = await findConnection(db, found.connectionId);
  if (!connection || connection.kind !== 'oidc') return { kind: 'refused', reason: 'expired' };
  if (input.connectionId === undefined && (!usesLegacyCallback(connection, input.now) || input.url.searchParams.get('iss') !== connection.oidcIssuer)) {
    return { kind: 'refused', reason: 'state_mismatch' };
  }
  // Claimed once: the identity provider's answer is accepted once.
  const [row] = await db
    .update(federatedSignIns)
    .set({ attempts: sql`${federatedSignIns.attempts} + 1` })
    .where(and(eq(federatedSignIns.tokenHash, found.tokenHash), eq(federatedSignIns.stage, 'started'), eq(federatedSignIns.attempts, 0), gt(federatedSignIns.expiresAt, sql`now()`)))
    .returning();
  if (!row) return { kind: 'refused', reason: 'expired' };
  const continuation = row.continuation as unknown as FederationContinuation;
  // A connection that is off signs nobody in; an owner may still test it (that is how it is tried before it is on).
  if (!connection.enabled && continuation.surface !== 'test') return { kind: 'refused', reason: 'connection_disabled', continuation };
  // The person cancelled, or the identity provider refused (RFC 6749 §4.1.2.1): said as such, nothing echoed.
  if (input.url.searchParams.has('error')) return refused(db, connection, 'idp_error', continuation, input.ip);
  let assertion: FederatedAssertion;
  try {
    const redirectUri = input.connectionId === undefined ? legacyCallbackUrl(deps.issuer) : connectionCallbackUrl(deps.issuer, connection.id);
    assertion = await oidcAssertion(deps, connection, { token: input.cookieToken, state, redirectUri }, input.url);
  } catch {
    return refused(db, connection, 'invalid_response', continuation, input.ip);
  }
  return signInWithAssertion(db, row, connection, assertion, input.ip);
}

async function oidcAssertion(deps: FederationDeps, connection: IdentityConnection, signIn: { token: string; state: string; redirectUri: string }, callbackUrl: URL): Promise<FederatedAssertion> {
  const configuration = await discover(deps.outbound, connection, await clientSecretOf(connection, deps.atRestKey));
  // The callback URL as the identity provider was told it (behind a proxy the request's own URL may differ).
  const currentUrl = new URL(signIn.redirectUri);
  currentUrl.search = callbackUrl.search;
  const tokens = await oidcClient.authorizationCodeGrant(configuration, currentUrl, {
    pkceCodeVerifier: derived(deps, signIn.token, 'pkce'),
    expectedNonce: derived(deps, signIn.token, 'nonce'),
    expectedState: signIn.state,
    idTokenExpected: true,
  });
  const metadata = configuration.serverMetadata();
  if (!tokens.id_token || !metadata.jwks_uri) throw new Error('no ID token');
  // The ID token's signature, verified here against the issuer's published keys (OIDC Core §3.1.3.7).
  const keys = await identityProviderFetch(deps.outbound)(metadata.jwks_uri, { headers: { accept: 'application/json' } });
  if (keys.status !== 200) throw new Error('JWKS unavailable');
  const { payload } = await jwtVerify(tokens.id_token, createLocalJWKSet((await keys.json()) as JSONWebKeySet), {
    issuer: metadata.issuer,
    audience: connection.oidcClientId!,
    algorithms: ID_TOKEN_ALGORITHMS,
    requiredClaims: ['sub', 'exp', 'iat'],
  });
  let claims: Record<string, unknown> = payload;
  // Address, name or groups missing from the ID token: the UserInfo endpoint, for the same subject (§5.3.2).
  if (claims[connection.emailClaim] === undefined && metadata.userinfo_endpoint) {
    const userInfo = await oidcClient.fetchUserInfo(configuration, tokens.access_token, String(payload.sub));
    claims = { ...userInfo, ...payload };
  }
  return mappedClaims(connection, String(payload.iss), String(payload.sub), claims);
}
