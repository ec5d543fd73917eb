// How long each of oidc-provider's models lives, in seconds: the provider's `ttl` and the sweeper's rules
// (lib/notifications/sweeper.ts) read the same numbers.
import { ACCESS_TOKEN_TTL_SECONDS } from './resource-servers';

export const TOKEN_TTL = {
  AccessToken: ACCESS_TOKEN_TTL_SECONDS,
  AuthorizationCode: 60,
  IdToken: 60 * 60,
  RefreshToken: 30 * 24 * 60 * 60,
  Interaction: 60 * 60,
  Session: 14 * 24 * 60 * 60,
  Grant: 30 * 24 * 60 * 60,
} as const;

/**
 * A single-page or native app's refresh token (a public client's): 7 days instead of 30. OAuth 2.1 §4.3.1 lets a
 * public client hold refresh tokens only rotated with reuse detection (as every client's are here) or sender-
 * constrained; a shorter life bounds what a token copied out of a browser or a device is worth. Each rotation starts
 * a new 7 days, so a person who uses the app weekly stays signed in; the grant's 30 days stay the outer bound.
 */
export const PUBLIC_APP_REFRESH_TOKEN_TTL_SECONDS = 7 * 24 * 60 * 60;
