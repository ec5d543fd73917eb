// The process-wide state every part of Portico shares: configuration, the database connection and the
// oidc-provider instance. Next.js bundles app code apart from server.ts, so module-level singletons would exist
// twice; this registry lives on globalThis and is filled once by lib/boot.ts before any request is served.
import type Provider from 'oidc-provider';
import type { JWK } from 'jose';
import { drizzleFor, type Database, type RawDatabase } from './db/client';
import type { Env } from './env';
import type { DeliveryDispatcher } from './deliveries/dispatcher';
import type { Ticker } from './notifications/ticker';
import type { RiskLevel } from '../app-kit/risk';

export interface PorticoRuntime {
  env: Env;
  raw: RawDatabase;
  provider: Provider;
  /** The signing keys' public JWKs: Portico verifies its own API's tokens locally, like any resource server. */
  publicJwks: JWK[];
  /**
   * The private signing keys, for Portico's own components that authenticate to its token endpoint as
   * portico-internal (own-mode agent tokens). Never served, never logged.
   */
  signingKeys: JWK[];
  /** The at-rest encryption key (PORTICO_SECRET_KEY or the data folder's): decrypts apps' surface secrets. */
  atRestKey: Uint8Array;
  /** The effective risk level of each of Portico's MCP tools (declarations raised by PORTICO_RISK_OVERRIDES). */
  riskLevels: Readonly<Record<string, RiskLevel>>;
  /** Delivers the outbound outbox (mail, webhooks); started by the server process only (the CLI prints links instead of mailing). */
  outbox: DeliveryDispatcher;
  /** Expiry, escalation, reminders and digests (lib/notifications/ticker.ts); started with the outbox. */
  ticker: Ticker;
}

const REGISTRY = Symbol.for('portico.runtime');
type Registry = { [REGISTRY]?: PorticoRuntime };

export function installRuntime(runtime: PorticoRuntime): void {
  (globalThis as Registry)[REGISTRY] = runtime;
}

export function runtime(): PorticoRuntime {
  const installed = (globalThis as Registry)[REGISTRY];
  if (!installed) throw new Error('Portico is not booted: start it with `npm start` (server.ts), not `next start`.');
  return installed;
}

// One drizzle wrapper per bundle copy around the one shared connection.
const wrappers = new WeakMap<RawDatabase, Database>();

export function db(): Database {
  const { raw } = runtime();
  let wrapped = wrappers.get(raw);
  if (!wrapped) {
    wrapped = drizzleFor(raw);
    wrappers.set(raw, wrapped);
  }
  return wrapped;
}
