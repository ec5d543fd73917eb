// Start-up: open the database, migrate, load or create keys, build the provider, seed the demo once.
import path from 'node:path';
import type { Env } from './env';
import { drizzleFor, openRawDatabase, type RawDatabase } from './db/client';
import { migrateDatabase } from './db/migrate';
import { resolveSecretKey } from './security/at-rest';
import { loadOrCreateKeyMaterial, publicJwksOf } from './oidc/keys';
import { createProvider } from './oidc/provider';
import { installRuntime, type PorticoRuntime } from './runtime';
import { seedDemo, type DemoSeedResult } from './seed/demo';

export interface BootResult {
  runtime: PorticoRuntime;
  seed: DemoSeedResult;
  secretKeySource: 'environment' | 'generated' | 'data-folder';
}

export function openConfiguredDatabase(env: Env): Promise<RawDatabase> {
  return openRawDatabase({
    databaseUrl: env.DATABASE_URL,
    embeddedLocation: path.join(env.dataDir, 'pglite'),
    poolSize: env.DATABASE_POOL_SIZE,
  });
}

export async function bootPortico(env: Env): Promise<BootResult> {
  const secret = resolveSecretKey(env.PORTICO_SECRET_KEY, env.dataDir);
  const raw = await openConfiguredDatabase(env);
  try {
    await migrateDatabase(raw);
    const db = drizzleFor(raw);
    const keys = await loadOrCreateKeyMaterial(db, secret.key);
    const provider = createProvider({
      issuer: env.PORTICO_ISSUER,
      db: () => db,
      keys,
      trustProxy: env.PORTICO_TRUST_PROXY,
      secureCookies: env.issuerIsHttps,
      refreshTokenReuseGraceSeconds: env.PORTICO_REFRESH_REUSE_GRACE_SECONDS,
      cimdAllowLoopback: env.PORTICO_CIMD_ALLOW_LOOPBACK,
    });
    const runtime: PorticoRuntime = { env, raw, provider, publicJwks: publicJwksOf(keys), signingKeys: keys.signingKeys, atRestKey: secret.key };
    installRuntime(runtime);
    const seed = env.PORTICO_DEMO_SEED
      ? await seedDemo(db, {
          email: env.PORTICO_DEMO_EMAIL,
          password: env.PORTICO_DEMO_PASSWORD,
          clientId: env.PORTICO_DEMO_CLIENT_ID,
          clientSecret: env.PORTICO_DEMO_CLIENT_SECRET,
          redirectUri: env.PORTICO_DEMO_REDIRECT_URI,
        })
      : ({ status: 'skipped' } as const);
    return { runtime, seed, secretKeySource: secret.source };
  } catch (error) {
    await raw.close().catch(() => {});
    throw error;
  }
}
