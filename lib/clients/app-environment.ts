// The identity variables an app needs to use Portico, as an .env snippet. The app kit reads these names; the
// comments that stand in for a secret not shown are in the reader's language (the console's), English elsewhere.
import { DEFAULT_LOCALE, translator } from '../i18n/catalogs';

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
  /** The language of the comments (the console's reader); English for the CLI and the seed's output. */
  locale?: string;
}

export function appEnvironmentLines(input: AppEnvironmentInput): string[] {
  const t = translator(input.locale ?? DEFAULT_LOCALE, 'appEnvironment');
  return [
    `PORTICO_ISSUER=${input.issuer}`,
    `PORTICO_CLIENT_ID=${input.clientId}`,
    input.publicClient ? `# PORTICO_CLIENT_SECRET: ${t('noClientSecret')}` : input.clientSecret ? `PORTICO_CLIENT_SECRET=${input.clientSecret}` : `# PORTICO_CLIENT_SECRET: ${t('clientSecretShownOnce')}`,
    `PORTICO_APP_IDENTITY=${input.appIdentity}`,
    input.surfaceSecret
      ? `PORTICO_SURFACE_SECRET=${input.surfaceSecret}`
      : input.publicClient
        ? `# PORTICO_SURFACE_SECRET: ${t('surfaceSecretServerOnly')}`
        : `# PORTICO_SURFACE_SECRET: ${t('surfaceSecretShownOnce')}`,
  ];
}
