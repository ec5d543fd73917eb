// The identity variables an app needs to use Portico, as an .env snippet. The app kit reads these names.

/** The app kit contract this Portico speaks; the kit carries its own number and a test compares the two. */
export const EXPECTED_APP_KIT_CONTRACT_VERSION = 6;
export interface AppEnvironmentInput {
  issuer: string;
  clientId: string;
  /** Present only at creation (or rotation): the secret is stored hashed and cannot be shown again. */
  clientSecret?: string;
  appIdentity: string;
}

export function appEnvironmentLines(input: AppEnvironmentInput): string[] {
  return [
    `PORTICO_ISSUER=${input.issuer}`,
    `PORTICO_CLIENT_ID=${input.clientId}`,
    input.clientSecret
      ? `PORTICO_CLIENT_SECRET=${input.clientSecret}`
      : '# PORTICO_CLIENT_SECRET: shown only when the app was created; Portico keeps only its hash',
    `PORTICO_APP_IDENTITY=${input.appIdentity}`,
  ];
}
