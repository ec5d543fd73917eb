// How long each of oidc-provider's models lives, in seconds: the provider's `ttl` and the sweeper's rules
// (lib/db/sweeper.ts) read the same numbers.
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
