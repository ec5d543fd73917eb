// Starting a federated sign-in, whichever protocol the connection speaks (OpenID Connect: oidc.ts; SAML: saml.ts);
// the state it leaves in PostgreSQL is the shared core's (core.ts).
import { randomBytes } from 'node:crypto';
import type { Queryable } from '../../db/client';
import type { IdentityConnection } from '../connections';
import { insertState, type FederationContinuation, type FederationDeps } from './core';
import { oidcAuthorizationUrl } from './oidc';
import { samlRedirectUrl } from './saml';

/**
 * Starts a sign-in at the connection's identity provider: the state row, then where the browser goes. The caller
 * sets the cookie (federationCookie) on the redirect. `loginHint`: the address the person typed (OIDC `login_hint`).
 */
export async function beginFederatedSignIn(
  db: Queryable,
  deps: FederationDeps,
  connection: IdentityConnection,
  continuation: FederationContinuation,
  loginHint?: string,
): Promise<{ location: string; token: string }> {
  // The cookie's secret (returned, never sent to the identity provider) and the state that names the sign-in.
  const token = randomBytes(32).toString('base64url');
  const state = randomBytes(24).toString('base64url');
  if (connection.kind === 'saml') {
    const { location, requestId } = await samlRedirectUrl(deps, connection, state);
    await insertState(db, { token, state }, connection, continuation, requestId);
    return { location, token };
  }
  const location = await oidcAuthorizationUrl(deps, connection, { token, state }, loginHint);
  await insertState(db, { token, state }, connection, continuation, null);
  return { location, token };
}
