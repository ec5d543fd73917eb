// Around every request server.ts answers: a request id (returned in X-Request-Id and written in the request's log
// line), the request's count and latency by route family, and /metrics for the operator's Prometheus.
//
// /metrics answers only a request carrying `Authorization: Bearer <PORTICO_METRICS_TOKEN>` (without the variable,
// /metrics is an ordinary unknown page), or on the loopback listener PORTICO_METRICS_LISTEN, which needs no token
// because nothing off the machine reaches it. In a cluster (PORTICO_WORKERS > 1) every server process keeps its own
// counters: whichever process a scrape reaches asks the primary, which gathers every process's and its own and adds
// them up (prom-client's AggregatorRegistry.aggregate), so a scrape sees the whole server.
import cluster, { type Worker } from 'node:cluster';
import { randomUUID, timingSafeEqual, createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue } from 'prom-client';
import { log, loggablePath } from './log';
import { metricsRegistry, metricsText, recordRequest, routeFamilyOf } from './metrics';

export const METRICS_PATH = '/metrics';
export const REQUEST_ID_HEADER = 'x-request-id';
/** An id a trusted proxy sends along is kept when it is this plain; anything else gets an id of our own. */
const FORWARDED_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface ObservedOptions {
  /** A proxy in front (PORTICO_TRUST_PROXY): its X-Request-Id is kept. */
  trustProxy: boolean;
  /** PORTICO_METRICS_TOKEN: /metrics answers a request bearing it; unset, /metrics is not served here. */
  metricsToken?: string;
}

/** `handle`, with a request id, an access log line and the request's metrics; and /metrics when a token is set. */
export function observe(handle: Handler, options: ObservedOptions): Handler {
  const expected = options.metricsToken ? digest(options.metricsToken) : undefined;
  return (req, res) => {
    const started = performance.now();
    const forwarded = options.trustProxy ? req.headers[REQUEST_ID_HEADER] : undefined;
    const requestId = typeof forwarded === 'string' && FORWARDED_REQUEST_ID.test(forwarded) ? forwarded : randomUUID();
    // Handlers further in (a route that logs) read it from the request.
    req.headers[REQUEST_ID_HEADER] = requestId;
    res.setHeader('X-Request-Id', requestId);
    const pathname = (req.url ?? '/').split('?', 1)[0] ?? '/';
    const family = routeFamilyOf(pathname);
    res.once('close', () => {
      const seconds = (performance.now() - started) / 1000;
      recordRequest(family, req.method ?? 'GET', res.statusCode, seconds);
      log().info({ reqId: requestId, method: req.method, family, path: loggablePath(pathname), status: res.statusCode, ms: Math.round(seconds * 10_000) / 10, aborted: !res.writableFinished || undefined }, 'request');
    });
    if (pathname === METRICS_PATH && expected) {
      void serveMetrics(req, res, expected);
      return;
    }
    handle(req, res);
  };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

async function serveMetrics(req: IncomingMessage, res: ServerResponse, expected: Buffer): Promise<void> {
  const presented = /^Bearer ([^\s]+)$/i.exec(req.headers.authorization ?? '')?.[1];
  // Compared as digests, in constant time: the token's length tells nothing either.
  if (!presented || !timingSafeEqual(digest(presented), expected)) {
    res.writeHead(401, { 'Content-Type': 'text/plain; charset=utf-8', 'WWW-Authenticate': 'Bearer realm="metrics"', 'Cache-Control': 'no-store' });
    res.end('The metrics need the bearer token PORTICO_METRICS_TOKEN sets.\n');
    return;
  }
  await answerWithMetrics(res);
}

async function answerWithMetrics(res: ServerResponse): Promise<void> {
  try {
    const { contentType, body } = cluster.isWorker ? await clusterMetricsFromPrimary() : await localOrClusterMetrics();
    res.writeHead(200, { 'Content-Type': contentType, 'Cache-Control': 'no-store' });
    res.end(body);
  } catch (error) {
    log().error({ err: error instanceof Error ? error.message : String(error) }, 'metrics could not be collected');
    res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
    res.end('The metrics could not be collected; try again.\n');
  }
}

// ---- cluster -----------------------------------------------------------------------------------------------------

type ClusterMessage =
  | { type: 'portico:metrics-request'; id: number }
  | { type: 'portico:metrics-response'; id: number; body?: string; error?: string }
  | { type: 'portico:metrics-json-request'; id: number }
  | { type: 'portico:metrics-json'; id: number; metrics: MetricObjectWithValues<MetricValue<string>>[] };

let isClusterPrimary = false;

/** In a cluster's primary: its own and every server process's metrics, aggregated; otherwise this process's. */
async function localOrClusterMetrics(): Promise<{ contentType: string; body: string }> {
  if (!isClusterPrimary) return metricsText();
  const workers = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined && worker.isConnected());
  const id = nextRequest++;
  const theirs = await Promise.all(
    workers.map(
      (worker) =>
        new Promise<MetricObjectWithValues<MetricValue<string>>[]>((resolve) => {
          // A process that does not answer (it is stopping) is left out rather than failing the scrape.
          const timeout = setTimeout(() => {
            worker.off('message', onMessage);
            resolve([]);
          }, 5000);
          const onMessage = (message: ClusterMessage) => {
            if (message?.type !== 'portico:metrics-json' || message.id !== id) return;
            clearTimeout(timeout);
            worker.off('message', onMessage);
            resolve(message.metrics);
          };
          worker.on('message', onMessage);
          // A process that exits meanwhile cannot be asked: it is left out (the timeout resolves it).
          worker.send({ type: 'portico:metrics-json-request', id } satisfies ClusterMessage, (error) => error && resolve([]));
        }),
    ),
  );
  // Counters and histograms add up; the gauges read from the database say `aggregator: 'max'` (lib/observability/metrics.ts).
  const aggregated = AggregatorRegistry.aggregate([await metricsRegistry().getMetricsAsJSON(), ...theirs] as never);
  return { contentType: metricsRegistry().contentType, body: await aggregated.metrics() };
}

/** A cluster's primary: answers scrapes for the whole cluster, and its server processes' requests for them. */
export function serveClusterMetrics(): void {
  isClusterPrimary = true;
  cluster.on('message', (worker, message: ClusterMessage) => {
    if (message?.type !== 'portico:metrics-request') return;
    // The callback keeps a send to a process that exited meanwhile from becoming an unhandled 'error' event.
    const reply = (answer: ClusterMessage) => worker.send(answer, () => {});
    localOrClusterMetrics()
      .then(({ body }) => reply({ type: 'portico:metrics-response', id: message.id, body }))
      .catch((error: unknown) => reply({ type: 'portico:metrics-response', id: message.id, error: error instanceof Error ? error.message : String(error) }));
  });
}

/** A server process of a cluster: hands its metrics to the primary when it aggregates. */
export function offerMetricsToPrimary(): void {
  process.on('message', (message: ClusterMessage) => {
    if (message?.type !== 'portico:metrics-json-request') return;
    // Never an unhandled rejection (it would end this process): what cannot be collected is sent as nothing.
    metricsRegistry()
      .getMetricsAsJSON()
      .catch(() => [])
      .then((metrics) => process.send?.({ type: 'portico:metrics-json', id: message.id, metrics } satisfies ClusterMessage, () => {}));
  });
}

let nextRequest = 0;
function clusterMetricsFromPrimary(): Promise<{ contentType: string; body: string }> {
  const id = nextRequest++;
  return new Promise((resolve, reject) => {
    const timeout = setTimeout(() => {
      process.off('message', onMessage);
      reject(new Error('the primary did not answer within 10 seconds'));
    }, 10_000);
    const onMessage = (message: ClusterMessage) => {
      if (message?.type !== 'portico:metrics-response' || message.id !== id) return;
      clearTimeout(timeout);
      process.off('message', onMessage);
      if (message.error !== undefined) reject(new Error(message.error));
      else resolve({ contentType: metricsRegistry().contentType, body: message.body ?? '' });
    };
    process.on('message', onMessage);
    // The primary gone (this process stops then): the scrape fails at once instead of an unhandled 'error' event.
    process.send?.({ type: 'portico:metrics-request', id } satisfies ClusterMessage, (error: Error | null) => {
      if (!error) return;
      clearTimeout(timeout);
      process.off('message', onMessage);
      reject(error);
    });
  });
}

/**
 * The loopback listener for metrics (PORTICO_METRICS_LISTEN, host:port): no token, since only this machine reaches
 * it. In a cluster, the primary listens and answers for every process.
 */
export function listenForMetrics(host: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer((req, res) => {
      if ((req.url ?? '/').split('?', 1)[0] !== METRICS_PATH || (req.method !== 'GET' && req.method !== 'HEAD')) {
        res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.end(`Only GET ${METRICS_PATH} is served here.\n`);
        return;
      }
      void answerWithMetrics(res);
    });
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}
