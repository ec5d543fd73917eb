// What an operator's Prometheus scrapes: one registry per process (prom-client), answered at /metrics only with
// PORTICO_METRICS_TOKEN or on the loopback listener PORTICO_METRICS_LISTEN (server.ts, lib/observability/http.ts).
//
// The recording functions here are what the rest of Portico calls; they cost a counter increment, and nothing at all
// for the statement timings until metrics are turned on (`enableMetrics`), so a server nobody scrapes pays nothing
// for them. Labels are few and bounded (a route family, a status class, a rule's name): never a path, a client or a
// person, which would make a series per request.
import { and, count, isNull, sql } from 'drizzle-orm';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Database } from '../db/client';
import { installDatabaseInstruments } from '../db/instruments';
import { approvalRequests, outboundDeliveries } from '../db/schema';

/** Where a request went, as a label: the families an operator tells apart. */
export type RouteFamily = 'token' | 'authorize' | 'oidc' | 'mcp' | 'gateway' | 'console' | 'central' | 'sign_in' | 'account' | 'api' | 'static' | 'page';

export function routeFamilyOf(pathname: string): RouteFamily {
  if (pathname === '/oidc/token') return 'token';
  if (pathname === '/oidc/auth' || pathname.startsWith('/oidc/auth/')) return 'authorize';
  if (pathname.startsWith('/oidc/') || pathname.startsWith('/.well-known/')) return 'oidc';
  if (pathname === '/api/mcp') return 'mcp';
  if (pathname.startsWith('/mcp/')) return 'gateway';
  if (pathname.startsWith('/console')) return 'console';
  if (pathname.startsWith('/central') || pathname.startsWith('/embedded-central')) return 'central';
  if (pathname.startsWith('/auth/')) return 'sign_in';
  if (pathname.startsWith('/account')) return 'account';
  if (pathname.startsWith('/api/') || pathname.startsWith('/access/')) return 'api';
  if (pathname.startsWith('/_next/') || pathname === '/favicon.ico') return 'static';
  return 'page';
}

/**
 * The registry and its metrics, one per process. Next.js bundles its own copy of this module beside server.ts's, so
 * they live on globalThis: a sign-in counted inside a Next route lands in the registry /metrics reads.
 */
interface Shared {
  registry: Registry;
  enabled: boolean;
  requests: Counter<'family' | 'method' | 'status'>;
  requestSeconds: Histogram<'family'>;
  statementSeconds: Histogram;
  connectionsInUse: Gauge;
  poolSize: Gauge;
  readCacheHit: Counter.Internal;
  readCacheMiss: Counter.Internal;
  readCacheInvalidation: Counter.Internal;
  deliveryFailures: Counter<'channel' | 'final'>;
  signInFailures: Counter<'reason'>;
  sweptRows: Counter<'rule'>;
  gatewayCalls: Counter<'server' | 'outcome'>;
  gatewaySeconds: Histogram<'server'>;
  authzenDecisions: Counter<'decision' | 'level'>;
}

const SHARED = Symbol.for('portico.metrics');

function shared(): Shared {
  const holder = globalThis as { [SHARED]?: Shared };
  if (holder[SHARED]) return holder[SHARED];
  const registry = new Registry();
  const requests = new Counter({
    name: 'portico_http_requests_total',
    help: 'HTTP requests answered, by route family, method and status class.',
    labelNames: ['family', 'method', 'status'] as const,
    registers: [registry],
  });
  const requestSeconds = new Histogram({
    name: 'portico_http_request_duration_seconds',
    help: 'Time from a request’s arrival to the end of its response, by route family.',
    labelNames: ['family'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const statementSeconds = new Histogram({
    name: 'portico_db_statement_duration_seconds',
    help: 'Time from sending a statement to PostgreSQL to its result (the pool’s wait included).',
    buckets: [0.0002, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
    registers: [registry],
  });
  const connectionsInUse = new Gauge({
    name: 'portico_db_pool_connections_in_use',
    help: 'Pool connections busy now: statements running outside a transaction, and open transactions.',
    registers: [registry],
  });
  const poolSize = new Gauge({ name: 'portico_db_pool_size', help: 'Connections the pool may open (DATABASE_POOL_SIZE).', registers: [registry] });
  const readCache = new Counter({
    name: 'portico_read_cache_events_total',
    help: 'The per-process cache of hot rows: hits, misses and invalidations.',
    labelNames: ['event'] as const,
    registers: [registry],
  });
  const deliveryFailures = new Counter({
    name: 'portico_outbox_delivery_failures_total',
    help: 'Outbound delivery attempts that failed, by channel; `final` when the delivery gave up.',
    labelNames: ['channel', 'final'] as const,
    registers: [registry],
  });
  const signInFailures = new Counter({
    name: 'portico_sign_in_failures_total',
    help: 'Password sign-ins refused, by reason (a wrong password, a throttle).',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  const sweptRows = new Counter({
    name: 'portico_sweeper_deleted_rows_total',
    help: 'Rows nobody needed any more, deleted by the sweeper, by rule.',
    labelNames: ['rule'] as const,
    registers: [registry],
  });
  const gatewayCalls = new Counter({
    name: 'portico_gateway_upstream_calls_total',
    help: 'Tool calls the gateway made to an upstream MCP server, by server (org/slug) and outcome (ok, tool_error, or the failure).',
    labelNames: ['server', 'outcome'] as const,
    registers: [registry],
  });
  const gatewaySeconds = new Histogram({
    name: 'portico_gateway_upstream_call_duration_seconds',
    help: 'Time an upstream MCP server took to answer a tool call, by server (org/slug).',
    labelNames: ['server'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const authzenDecisions = new Counter({
    name: 'portico_authzen_decisions_total',
    help: 'Decisions of the AuthZEN decision point, by decision (permit, deny) and the operation\'s risk level (safe ones are counted here, not audited).',
    labelNames: ['decision', 'level'] as const,
    registers: [registry],
  });
  // Hit and miss are counted on every cached read: their label children are made once.
  holder[SHARED] = {
    registry,
    enabled: false,
    requests,
    requestSeconds,
    statementSeconds,
    connectionsInUse,
    poolSize,
    readCacheHit: readCache.labels({ event: 'hit' }),
    readCacheMiss: readCache.labels({ event: 'miss' }),
    readCacheInvalidation: readCache.labels({ event: 'invalidation' }),
    deliveryFailures,
    signInFailures,
    sweptRows,
    gatewayCalls,
    gatewaySeconds,
    authzenDecisions,
  };
  return holder[SHARED];
}

/** The process's registry (the cluster's primary aggregates the server processes' into its own). */
export function metricsRegistry(): Registry {
  return shared().registry;
}

/** Turns the statement timings on and adds the gauges read from the database at each scrape. */
export function enableMetrics(options: { db: () => Database; poolSize?: number }): void {
  const metrics = shared();
  if (metrics.enabled) return;
  metrics.enabled = true;
  const registry = metrics.registry;
  collectDefaultMetrics({ register: registry, prefix: 'portico_' });
  if (options.poolSize) metrics.poolSize.set(options.poolSize);
  // Read at scrape time, each through a partial index: the count of rows waiting, not a scan of the table.
  new Gauge({
    name: 'portico_outbox_depth',
    help: 'Outbound deliveries waiting to be sent or retried.',
    registers: [registry],
    // Every server process of a cluster reads the same number: their aggregate is it, not their sum.
    aggregator: 'max',
    async collect() {
      // The database away: the gauge keeps its last value rather than failing the whole scrape.
      const [row] = await options.db().select({ n: count() }).from(outboundDeliveries).where(and(isNull(outboundDeliveries.deliveredAt), isNull(outboundDeliveries.failedAt))).catch(() => [undefined]);
      if (row) this.set(row.n);
    },
  });
  new Gauge({
    name: 'portico_approvals_pending',
    help: 'Approval requests waiting for a decision.',
    registers: [registry],
    aggregator: 'max',
    async collect() {
      const [row] = await options.db().select({ n: count() }).from(approvalRequests).where(sql`${approvalRequests.state} = 'pending'`).catch(() => [undefined]);
      if (row) this.set(row.n);
    },
  });
}

export function recordRequest(family: RouteFamily, method: string, status: number, seconds: number): void {
  const methodLabel = method === 'GET' || method === 'POST' || method === 'HEAD' || method === 'OPTIONS' || method === 'DELETE' || method === 'PUT' || method === 'PATCH' ? method : 'other';
  const metrics = shared();
  metrics.requests.inc({ family, method: methodLabel, status: `${Math.floor(status / 100)}xx` });
  metrics.requestSeconds.observe({ family }, seconds);
}

/** A statement started (when metrics are on): the returned function is called when it settles. */
export function statementStarted(inTransaction: boolean): (() => void) | undefined {
  const metrics = shared();
  if (!metrics.enabled) return undefined;
  const started = performance.now();
  if (!inTransaction) metrics.connectionsInUse.inc();
  return () => {
    metrics.statementSeconds.observe((performance.now() - started) / 1000);
    if (!inTransaction) metrics.connectionsInUse.dec();
  };
}

/** A transaction opened (when metrics are on): the returned function is called when it ends. */
export function transactionStarted(): (() => void) | undefined {
  const metrics = shared();
  if (!metrics.enabled) return undefined;
  metrics.connectionsInUse.inc();
  return () => metrics.connectionsInUse.dec();
}

export function recordReadCache(event: 'hit' | 'miss' | 'invalidation'): void {
  const metrics = shared();
  (event === 'hit' ? metrics.readCacheHit : event === 'miss' ? metrics.readCacheMiss : metrics.readCacheInvalidation).inc();
}

export function recordDeliveryFailure(channel: string, final: boolean): void {
  shared().deliveryFailures.inc({ channel, final: final ? 'true' : 'false' });
}

export function recordSignInFailure(reason: 'wrong_credentials' | 'throttled'): void {
  shared().signInFailures.inc({ reason });
}

export function recordSweep(deleted: Record<string, number>): void {
  const metrics = shared();
  for (const [rule, rows] of Object.entries(deleted)) metrics.sweptRows.inc({ rule }, rows);
}

/** One call the gateway made to an upstream: its outcome, and how long the upstream took (none when it was never reached). */
export function recordGatewayCall(server: string, outcome: string, seconds: number | undefined): void {
  const metrics = shared();
  metrics.gatewayCalls.inc({ server, outcome });
  if (seconds !== undefined) metrics.gatewaySeconds.observe({ server }, seconds);
}

/** One decision of the AuthZEN decision point (lib/authzen/pdp.ts). */
export function recordAuthzenDecision(allowed: boolean, level: string): void {
  shared().authzenDecisions.inc({ decision: allowed ? 'permit' : 'deny', level });
}

/** The registry in the Prometheus text format. */
export async function metricsText(): Promise<{ contentType: string; body: string }> {
  const registry = shared().registry;
  return { contentType: registry.contentType, body: await registry.metrics() };
}

// The database reports its statements, transactions and read cache here (lib/db/instruments.ts).
installDatabaseInstruments({ statementStarted, transactionStarted, readCache: recordReadCache });
