// Start-up: open the database, migrate, load or create keys, build the provider, seed the demo once.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Env } from './env';
import { drizzleFor, openRawDatabase, type RawDatabase } from './db/client';
import { preparePrivateFolder } from './db/data-folder';
import { migrateDatabase } from './db/migrate';
import { resolveSecretKey } from './security/at-rest';
import { loadOrCreateKeyMaterial, publicJwksOf } from './oidc/keys';
import { createProvider } from './oidc/provider';
import { installRuntime, type PorticoRuntime } from './runtime';
import { parseRiskOverrides, porticoRiskLevels } from './mcp/tools';
import { seedDemo, type DemoSeedResult } from './seed/demo';
import { createOutbox } from './deliveries/dispatcher';
import { createMailSender, mailDelivery } from './deliveries/channels/mail';
import { upstreamRevocationDelivery } from './deliveries/channels/upstream-revocation';
import { webhookDelivery } from './deliveries/channels/webhook';
import { logoutTokenDelivery } from './deliveries/channels/logout-token';
import { securityEventPushDelivery } from './deliveries/channels/security-event';
import { createTicker } from './notifications/ticker';
import { deliveryPolicy } from './http/outbound';

export interface BootResult {
  runtime: PorticoRuntime;
  seed: DemoSeedResult;
  secretKeySource: 'environment' | 'generated' | 'data-folder';
}

/** Where the demo seed leaves the example app's identity variables for `npm run example`. */
export const EXAMPLE_ENV_FILE = 'example-app.env';

/** Owner-only, like secret.key: it holds the example app's client and surface secrets. */
function writeExampleEnvironment(dataDir: string, lines: string[]): void {
  preparePrivateFolder(dataDir);
  writeFileSync(path.join(dataDir, EXAMPLE_ENV_FILE), `# Written once by the demo seed for npm run example. Holds secrets: keep it private.\n${lines.join('\n')}\n`, { mode: 0o600 });
}

export function openConfiguredDatabase(env: Env): Promise<RawDatabase> {
  return openRawDatabase({
    databaseUrl: env.DATABASE_URL,
    embeddedLocation: path.join(env.dataDir, 'pglite'),
    poolSize: env.DATABASE_POOL_SIZE,
    preparedStatements: env.DATABASE_PREPARED_STATEMENTS,
    readCache: env.PORTICO_READ_CACHE,
    listenUrl: env.DATABASE_LISTEN_URL,
  });
}

/**
 * `seedDemo: false` for the server processes a primary forks (PORTICO_WORKERS): the primary booted first, migrated,
 * created the keys and seeded the demo; each worker only loads them.
 */
export async function bootPortico(env: Env, options: { seedDemo?: boolean } = {}): Promise<BootResult> {
  // First, before anything is opened: a risk configuration that would lower a level stops the start here.
  const riskLevels = porticoRiskLevels(parseRiskOverrides(env.PORTICO_RISK_OVERRIDES));
  // Owner-only or refused, on PostgreSQL too: it holds the secret key and the control socket.
  preparePrivateFolder(env.dataDir);
  const secret = resolveSecretKey(env.PORTICO_SECRET_KEY, env.dataDir);
  const raw = await openConfiguredDatabase(env);
  try {
    await migrateDatabase(raw);
    const db = drizzleFor(raw);
    const keys = await loadOrCreateKeyMaterial(db, secret.key);
    const provider = createProvider({
      atRestKey: secret.key,
      pollIntervalSeconds: env.PORTICO_POLL_INTERVAL_SECONDS,
      issuer: env.PORTICO_ISSUER,
      db: () => db,
      keys,
      trustProxy: env.PORTICO_TRUST_PROXY,
      secureCookies: env.issuerIsHttps,
      refreshTokenReuseGraceSeconds: env.PORTICO_REFRESH_REUSE_GRACE_SECONDS,
      outboundAllowLoopback: env.outboundAllowLoopback,
      outboundAllowedNetworks: env.outboundAllowedNetworks,
      cimdHosts: { allowed: env.PORTICO_CIMD_ALLOWED_HOSTS, blocked: env.PORTICO_CIMD_BLOCKED_HOSTS },
    });
    // The outbox's own handle: its rounds' writes (claims, marks) wake nothing.
    const outboxDb = drizzleFor(raw, { wakesOutbox: false });
    const outbox = createOutbox(() => outboxDb, {
      mail: mailDelivery(secret.key, createMailSender({ smtpUrl: env.PORTICO_SMTP_URL, from: env.PORTICO_MAIL_FROM, dataDir: env.dataDir })),
      webhook: webhookDelivery({ db: () => outboxDb, atRestKey: secret.key, outbound: deliveryPolicy(env) }),
      logout_token: logoutTokenDelivery({ db: () => outboxDb, issuer: env.PORTICO_ISSUER, signingKeys: keys.signingKeys, outbound: deliveryPolicy(env) }),
      security_event: securityEventPushDelivery({ db: () => outboxDb, issuer: env.PORTICO_ISSUER, signingKeys: keys.signingKeys, atRestKey: secret.key, outbound: deliveryPolicy(env) }),
      upstream_revocation: upstreamRevocationDelivery({ atRestKey: secret.key, outbound: deliveryPolicy(env) }),
    });
    // Whatever queued a delivery — a door, the ticker, the provider, a CLI command in this server — the commit wakes
    // the channel's dispatcher; nobody kicks it by hand.
    raw.afterCommit.onOutboxWrite((channel) => outbox.kick(channel));
    const ticker = createTicker(() => db, { issuer: env.PORTICO_ISSUER, atRestKey: secret.key }, console.error, { auditArchiveFolder: env.auditArchiveDir });
    const runtime: PorticoRuntime = { env, raw, provider, publicJwks: publicJwksOf(keys), signingKeys: keys.signingKeys, atRestKey: secret.key, riskLevels, outbox, ticker };
    installRuntime(runtime);
    const seed = env.PORTICO_DEMO_SEED && options.seedDemo !== false
      ? await seedDemo(db, {
          email: env.PORTICO_DEMO_EMAIL,
          password: env.PORTICO_DEMO_PASSWORD,
          clientId: env.PORTICO_DEMO_CLIENT_ID,
          clientSecret: env.PORTICO_DEMO_CLIENT_SECRET,
          redirectUri: env.PORTICO_DEMO_REDIRECT_URI,
          example: { origin: env.PORTICO_EXAMPLE_ORIGIN, issuer: env.PORTICO_ISSUER, atRestKey: secret.key },
        })
      : ({ status: 'skipped' } as const);
    if (seed.status === 'created' && seed.exampleEnvironment) writeExampleEnvironment(env.dataDir, seed.exampleEnvironment);
    return { runtime, seed, secretKeySource: secret.source };
  } catch (error) {
    await raw.close().catch(() => {});
    throw error;
  }
}
