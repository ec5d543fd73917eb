// What Portico prints at start: where it listens and how to sign in to the demo, or why it could not start.
import { getHeapStatistics } from 'node:v8';
import type { BootResult } from './boot';
import { DataDirInUseError } from './db/data-dir-lock';
import { DataFolderExposedError } from './db/data-folder';
import { DatabaseUnavailableError } from './db/client';
import { safePostgresLocation } from './util/postgres-url';
import { DEMO_CALLBACK_PATH, type Env } from './env';
import { developmentOutboxFolder } from './deliveries/channels/mail';

/** The SMTP server's address without its credentials. */
function safeSmtpLocation(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}`;
}
import { SecretKeyMismatchError } from './security/at-rest';
import { RiskConfigurationError } from '../app-kit/risk';

/**
 * The demo app's client secret as the banner (and `npm run db:seed`) prints it: only when something will use it. On
 * Portico's own stand-in callback page nothing redeems a code, so a generated secret is not printed at all (a secret
 * shown for nothing only ends up in terminal logs); with another redirect URI a relying party needs it, shown once.
 */
export function demoClientSecretText(seed: { secretGenerated: boolean; clientSecret: string; redirectUri: string }, issuer: string): string {
  if (!seed.secretGenerated) return '(from PORTICO_DEMO_CLIENT_SECRET)';
  if (seed.redirectUri === `${issuer}${DEMO_CALLBACK_PATH}`) {
    return "not printed: Portico's stand-in callback page does not use it (for a relying party of your own, rotate it on the app's Security tab)";
  }
  return `${seed.clientSecret}   (generated; shown only now)`;
}

/** The heap limit this process runs with, and whether it is the configured one (npm start applies PORTICO_HEAP_MB). */
function heapLine(configuredMb: number): string {
  const oldSpaceMb = Math.round(getHeapStatistics().heap_size_limit / 1048576);
  // heap_size_limit adds the young generation (a few MB) to the old-space limit.
  return oldSpaceMb <= configuredMb + 64
    ? `  Memory: V8 heap limit ${oldSpaceMb} MB (PORTICO_HEAP_MB=${configuredMb})`
    : `  Memory: V8 heap limit ${oldSpaceMb} MB: PORTICO_HEAP_MB=${configuredMb} applies through npm start (or node --max-old-space-size)`;
}

export function printBanner(env: Env, booted: BootResult, listening: string[]): void {
  const lines = [
    '',
    `  Portico is running at ${env.PORTICO_ISSUER}  (listening on ${listening.join(', ')})`,
    `  Database: ${env.DATABASE_URL ? `PostgreSQL at ${safePostgresLocation(env.DATABASE_URL)}` : `embedded (PGlite) in ${env.dataDir}`}`,
    `  Console: ${env.PORTICO_ISSUER}/console${env.PORTICO_CENTRAL_ENABLED ? `   Operator central: ${env.PORTICO_ISSUER}/central` : ''}`,
    `  Discovery: ${env.PORTICO_ISSUER}/.well-known/openid-configuration`,
    '  Operator CLI (works while this server runs): npm run portico -- --help',
    ...(env.workers > 1 ? [`  Server processes: ${env.workers} (PORTICO_WORKERS), each with its own heap and database pool; this one supervises them`] : []),
    // The runtime an operator checks against docs/deploy.md#runtime (Node.js 24 LTS, pinned by package.json).
    `  Runtime: Node.js ${process.version}`,
    heapLine(env.PORTICO_HEAP_MB),
    env.PORTICO_SMTP_URL
      ? `  Mail: over SMTP to ${safeSmtpLocation(env.PORTICO_SMTP_URL)}, from ${env.PORTICO_MAIL_FROM}`
      : `  Mail: development outbox (no PORTICO_SMTP_URL): messages are written to ${developmentOutboxFolder(env.dataDir)} and their links printed here`,
  ];
  const seed = booted.seed;
  if (seed.status === 'created') {
    lines.push(
      '',
      '  Demo organization created. Sign-in for the demo owner (demo only: every other account is created by its',
      '  person, through an invitation or a setup link, with a password nobody else knows):',
      `    email:          ${seed.email}`,
      `    password:       ${seed.passwordGenerated ? `${seed.password}   (generated; shown only now)` : '(from PORTICO_DEMO_PASSWORD)'}`,
      '  Demo app (an OIDC client):',
      `    issuer:         ${env.PORTICO_ISSUER}`,
      `    client_id:      ${seed.clientId}`,
      `    client_secret:  ${demoClientSecretText(seed, env.PORTICO_ISSUER)}`,
      `    app identity:   ${seed.appIdentity}`,
      `    redirect_uri:   ${seed.redirectUri}`,
    );
    if (seed.exampleEnvironment) {
      lines.push('  Example app (examples/notes): registered; its identity is in the data folder. Start it with: npm run example');
    }
  } else if (seed.status === 'present') {
    lines.push(
      '',
      `  Demo owner: ${seed.email} (password as printed on first start, or PORTICO_DEMO_PASSWORD)`,
      `  Demo app client_id: ${seed.clientId}, redirect_uri: ${seed.redirectUri}`,
    );
  }
  if (booted.secretKeySource === 'generated') {
    lines.push('', `  A key for encrypting key material at rest was generated into ${env.dataDir}/secret.key.`);
  }
  if (env.DATABASE_URL && booted.secretKeySource !== 'environment') {
    lines.push('  Set PORTICO_SECRET_KEY to that key on every instance that shares this database.');
  }
  lines.push('');
  console.log(lines.join('\n'));
}

/** A start-up failure as one readable message: known causes without a stack trace. */
export function describeStartupFailure(error: unknown): string {
  if (error instanceof DataDirInUseError || error instanceof DataFolderExposedError || error instanceof DatabaseUnavailableError || error instanceof SecretKeyMismatchError || error instanceof RiskConfigurationError) {
    return `Portico cannot start: ${error.message}`;
  }
  // Anything else is a defect: keep the stack, it is what a bug report needs.
  return `Portico cannot start because of an unexpected error:\n${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
}
