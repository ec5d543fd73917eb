// Signing people in to the app through Portico: OpenID Connect authorization code flow with PKCE, `state` and
// `nonce`, done by openid-client (a certified relying party). The kit only fixes the safe choices and keeps the
// discovery cached; where the pending request lives between the two legs (a cookie, a session) is the app's.
import * as oidc from 'openid-client';

export interface SignInConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** One of the redirect URIs registered for the app in Portico. */
  redirectUri: string;
  scope?: string;
}

/** What the app keeps between sending the person to Portico and their return (never sent to the browser in clear). */
export interface PendingSignIn {
  codeVerifier: string;
  state: string;
  nonce: string;
}

export interface SignedInPerson {
  subject: string;
  email?: string;
  name?: string;
  /** The organization the app belongs to (Portico's `org` claim). */
  organization?: string;
  claims: Record<string, unknown>;
}

export interface SignIn {
  start(): Promise<{ url: URL; pending: PendingSignIn }>;
  /** Completes the flow from the URL the browser came back to; throws when anything does not match. */
  finish(callbackUrl: URL, pending: PendingSignIn): Promise<SignedInPerson>;
}

/**
 * Portico's discovery for the app's own confidential client, fetched on first use and kept; a failure is not kept,
 * so a Portico that was down is tried again on the next call.
 */
export function cachedDiscovery(config: { issuer: string; clientId: string; clientSecret: string }): () => Promise<oidc.Configuration> {
  let configuration: Promise<oidc.Configuration> | undefined;
  return () => {
    configuration ??= oidc
      .discovery(new URL(config.issuer), config.clientId, undefined, oidc.ClientSecretBasic(config.clientSecret), {
        // Plain http is accepted only for an issuer on loopback (local development and tests).
        execute: isLoopbackHttp(config.issuer) ? [oidc.allowInsecureRequests] : [],
      })
      .catch((error: unknown) => {
        configuration = undefined;
        throw error;
      });
    return configuration;
  };
}

export function createSignIn(config: SignInConfig): SignIn {
  const discover = cachedDiscovery(config);
  return {
    async start() {
      const pending: PendingSignIn = { codeVerifier: oidc.randomPKCECodeVerifier(), state: oidc.randomState(), nonce: oidc.randomNonce() };
      const url = oidc.buildAuthorizationUrl(await discover(), {
        redirect_uri: config.redirectUri,
        scope: config.scope ?? 'openid email profile',
        code_challenge: await oidc.calculatePKCECodeChallenge(pending.codeVerifier),
        code_challenge_method: 'S256',
        state: pending.state,
        nonce: pending.nonce,
      });
      return { url, pending };
    },
    async finish(callbackUrl, pending) {
      const tokens = await oidc.authorizationCodeGrant(await discover(), callbackUrl, {
        pkceCodeVerifier: pending.codeVerifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
      const idClaims = tokens.claims();
      if (!idClaims) throw new Error('Portico returned no ID token');
      // The profile and email claims come from the UserInfo endpoint (OIDC Core §5.4: requested by scope, they
      // are not put in the ID token); openid-client checks its `sub` is the ID token's.
      const userInfo = await oidc.fetchUserInfo(await discover(), tokens.access_token, idClaims.sub);
      const claims = { ...userInfo, ...idClaims };
      return {
        subject: claims.sub,
        email: typeof claims.email === 'string' ? claims.email : undefined,
        name: typeof claims.name === 'string' ? claims.name : undefined,
        organization: typeof claims.org === 'string' ? claims.org : undefined,
        claims: { ...claims },
      };
    },
  };
}

function isLoopbackHttp(issuer: string): boolean {
  const url = new URL(issuer);
  return url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
}
