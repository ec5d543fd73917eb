// The identity variables an app needs to use Portico, as an .env snippet. The app kit reads these names.

/**
 * The app kit contracts this Portico accepts, oldest first: an app built on the previous kit (8: MCP 2025-11-25
 * only) keeps working beside one on the current kit (9: MCP 2026-07-28 as well). Nothing Portico checks of a
 * surface changed between them.
 */
export const SUPPORTED_APP_KIT_CONTRACT_VERSIONS: readonly number[] = [8, 9];
/** The newest contract this Portico speaks; the kit carries its own number and a test compares the two. */
export const EXPECTED_APP_KIT_CONTRACT_VERSION = 9;

export function isSupportedAppKitContract(version: number): boolean {
  return SUPPORTED_APP_KIT_CONTRACT_VERSIONS.includes(version);
}
export interface AppEnvironmentInput {
  issuer: string;
  clientId: string;
  /** Present only at creation (or rotation): the secret is stored hashed and cannot be shown again. */
  clientSecret?: string;
  appIdentity: string;
  /** Present only at creation (or when replaced in the security tab); stored encrypted, shown once. */
  surfaceSecret?: string;
  /** A single-page or native app's client: public, so it has no secret at all (it proves itself with PKCE). */
  publicClient?: boolean;
}

export function appEnvironmentLines(input: AppEnvironmentInput): string[] {
  return [
    `PORTICO_ISSUER=${input.issuer}`,
    `PORTICO_CLIENT_ID=${input.clientId}`,
    input.publicClient
      ? '# PORTICO_CLIENT_SECRET: none — a single-page or native app is a public client (PKCE, no secret)'
      : input.clientSecret
        ? `PORTICO_CLIENT_SECRET=${input.clientSecret}`
        : '# PORTICO_CLIENT_SECRET: shown only when the app was created; Portico keeps only its hash',
    `PORTICO_APP_IDENTITY=${input.appIdentity}`,
    input.surfaceSecret
      ? `PORTICO_SURFACE_SECRET=${input.surfaceSecret}`
      : input.publicClient
        ? '# PORTICO_SURFACE_SECRET: for the app\'s own server (its API or MCP server) only, made on the security tab; never in a browser bundle or an app binary'
        : '# PORTICO_SURFACE_SECRET: shown only when created; replace it from the app\'s security tab if it is lost',
  ];
}
