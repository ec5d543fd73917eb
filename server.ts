// Portico's HTTP server: oidc-provider's endpoints go straight to the provider (lib/oidc/bridge.ts), Portico's MCP
// endpoint straight to its handler (lib/mcp/node-route.ts), the gateway's and the AuthZEN decision point's
// evaluations likewise (lib/gateway/node-route.ts, lib/authzen/node-route.ts), everything else to Next.js. The hot
// API paths skip Next.js routing, a large share of their cost (docs/benchmarks.md). Run through `npm start` (production) or
// `npm run dev`.
//
// With PORTICO_WORKERS above 1 (PostgreSQL only), this process is the primary of a node:cluster: it boots first
// (migrations, keys, the demo seed), owns the operator CLI's control socket and the banner, and forks that many
// server processes sharing the port; everything they share (sessions, tokens, limits, caches' invalidations) is in
// PostgreSQL. A server process that dies is replaced.
import cluster, { type Worker } from 'node:cluster';
import type { AddressInfo } from 'node:net';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { bootPortico, type BootResult } from './lib/boot';
import { envOrExit, type Env } from './lib/env';
import { startControlSocket } from './lib/cli/control-socket';
import { drizzleFor } from './lib/db/client';
import { describeStartupFailure, printBanner } from './lib/startup-messages';
import { enableMetrics } from './lib/observability/metrics';
import { surviveClosedOutput } from './lib/observability/log';
import { listenForMetrics, observe, offerMetricsToPrimary, serveClusterMetrics } from './lib/observability/http';

const development = process.argv.includes('--dev');
const env = envOrExit();
surviveClosedOutput();

/** What a server process tells its primary once it listens. */
interface ListeningMessage {
  type: 'portico:listening';
  addresses: string[];
}

async function boot(options: { seedDemo: boolean }): Promise<BootResult> {
  try {
    return await bootPortico(env, options);
  } catch (error) {
    console.error(describeStartupFailure(error));
    process.exit(1);
  }
}

/** One server process: Next.js, the provider and the MCP endpoint on the configured port. */
async function runServer(role: 'single' | 'worker'): Promise<void> {
  const booted = await boot({ seedDemo: role === 'single' });
  // Loaded here, not at the top: a cluster's primary serves nothing and needs none of it.
  const [{ default: next }, { CLIENT_IP_HEADER, clientIpOf }, { createProviderHandler, isProviderPath }, { MCP_PATH, serveMcp }, { isGatewayPath, serveGateway }, { isAuthzenHotPath, serveAuthzen }] = await Promise.all([
    import('next'),
    import('./lib/http/client-ip'),
    import('./lib/oidc/bridge'),
    import('./lib/mcp/node-route'),
    import('./lib/gateway/node-route'),
    import('./lib/authzen/node-route'),
  ]);
  const nextApp = next({ dev: development, dir: process.cwd(), hostname: env.listenHosts[0], port: env.listenPort });
  await nextApp.prepare();
  const handleNext = nextApp.getRequestHandler();
  const handleProvider = createProviderHandler(booted.runtime.provider, { https: env.issuerIsHttps });

  startMetrics(booted, role);
  const handle = observe((req: IncomingMessage, res: ServerResponse) => {
    req.headers[CLIENT_IP_HEADER] = clientIpOf(req, env.PORTICO_TRUST_PROXY);
    const pathname = (req.url ?? '/').split('?', 1)[0] ?? '/';
    if (isProviderPath(pathname)) {
      handleProvider(req, res);
      return;
    }
    if (pathname === MCP_PATH) {
      serveMcp(req, res);
      return;
    }
    if (isGatewayPath(pathname)) {
      serveGateway(req, res, pathname);
      return;
    }
    if (isAuthzenHotPath(pathname, req.method)) {
      serveAuthzen(req, res, pathname);
      return;
    }
    void handleNext(req, res);
  }, { trustProxy: env.PORTICO_TRUST_PROXY, metricsToken: env.PORTICO_METRICS_TOKEN });

  const servers = (await Promise.all(env.listenHosts.map((host) => listen(host, handle)))).filter((server): server is Server => server !== undefined);
  const addresses = servers.map((server) => {
    const { address, family, port } = server.address() as AddressInfo;
    return family === 'IPv6' ? `[${address}]:${port}` : `${address}:${port}`;
  });
  const metricsListener = role === 'single' ? await listenForMetricsIfSet() : undefined;
  booted.runtime.outbox.start();
  booted.runtime.ticker.start();

  // CLI commands run here while the server holds the data folder (the embedded database admits one process); in a
  // cluster, the primary answers them.
  const control =
    role === 'single'
      ? await startControlSocket({
          dataDir: env.dataDir,
          context: () => ({ db: drizzleFor(booted.runtime.raw), issuer: env.PORTICO_ISSUER, atRestKey: booted.runtime.atRestKey }),
        })
      : undefined;
  if (role === 'single') printBanner(env, booted, addresses);
  else process.send?.({ type: 'portico:listening', addresses } satisfies ListeningMessage);

  let stopping = false;
  const shutdown = async (reason: string) => {
    if (stopping) return;
    stopping = true;
    if (role === 'single') console.log(`\n${reason}: stopping Portico…`);
    for (const server of [...servers, ...(metricsListener ? [metricsListener] : [])]) {
      server.close();
      server.closeAllConnections();
    }
    await control?.close().catch(() => {});
    await booted.runtime.ticker.stop().catch(() => {});
    await booted.runtime.outbox.stop().catch(() => {});
    await booted.runtime.raw.close().catch(() => {});
    process.exit(0);
  };
  // Ctrl-C reaches every process of the terminal's group: a cluster's server processes leave stopping to their
  // primary (which sends SIGTERM), so that it never takes their exit for a crash to repair.
  process.on('SIGINT', () => void (role === 'single' && shutdown('SIGINT')));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  // A primary that went away (killed) takes its server processes with it.
  if (role === 'worker') process.on('disconnect', () => void shutdown('primary gone'));
}

/** Metrics are collected when something can read them: a token for /metrics, or the loopback listener. */
function startMetrics(booted: BootResult, role: 'single' | 'worker' | 'primary'): void {
  if (!env.PORTICO_METRICS_TOKEN && !env.PORTICO_METRICS_LISTEN) return;
  const db = drizzleFor(booted.runtime.raw);
  enableMetrics({ db: () => db, poolSize: booted.runtime.raw.kind === 'postgres' ? env.DATABASE_POOL_SIZE : undefined });
  if (role === 'worker') offerMetricsToPrimary();
  if (role === 'primary') serveClusterMetrics();
}

/** The loopback listener PORTICO_METRICS_LISTEN (in a cluster, the primary's). */
async function listenForMetricsIfSet(): Promise<Server | undefined> {
  if (!env.PORTICO_METRICS_LISTEN) return undefined;
  const separator = env.PORTICO_METRICS_LISTEN.lastIndexOf(':');
  const host = env.PORTICO_METRICS_LISTEN.slice(0, separator).replace(/^\[|\]$/g, '');
  try {
    return await listenForMetrics(host, Number(env.PORTICO_METRICS_LISTEN.slice(separator + 1)));
  } catch (error) {
    console.error(`Portico cannot serve metrics on ${env.PORTICO_METRICS_LISTEN}: ${error instanceof Error ? error.message : String(error)}. Stop the other program or change PORTICO_METRICS_LISTEN.`);
    process.exit(1);
  }
}

/** Listens on one address; a loopback family the machine lacks (no IPv6) is skipped, anything else is fatal. */
function listen(host: string, handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<Server | undefined> {
  return new Promise((resolve) => {
    const server = createServer(handle);
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (host === '::1' && (error.code === 'EADDRNOTAVAIL' || error.code === 'EAFNOSUPPORT') && env.listenHosts.length > 1) {
        resolve(undefined);
        return;
      }
      console.error(
        error.code === 'EADDRINUSE'
          ? `Portico cannot listen on ${host} port ${env.listenPort}: the port is in use. Stop the other program or set PORTICO_PORT.`
          : `Portico cannot listen on ${host} port ${env.listenPort}: ${error.message}`,
      );
      process.exit(1);
    });
    server.listen(env.listenPort, host, () => resolve(server));
  });
}

/** More restarts than this within RESTART_WINDOW_MS means something is wrong with every start: stop. */
const MAX_RESTARTS = 5;
const RESTART_WINDOW_MS = 60_000;

/** The cluster's primary: boots once, forks the server processes, replaces one that dies, stops them all. */
async function runPrimary(config: Env): Promise<void> {
  const booted = await boot({ seedDemo: true });
  startMetrics(booted, 'primary');
  const metricsListener = await listenForMetricsIfSet();
  booted.runtime.outbox.start();
  booted.runtime.ticker.start();
  const control = await startControlSocket({
    dataDir: config.dataDir,
    context: () => ({ db: drizzleFor(booted.runtime.raw), issuer: config.PORTICO_ISSUER, atRestKey: booted.runtime.atRestKey }),
  });
  let stopping = false;
  const restarts: number[] = [];

  const fork = () =>
    new Promise<ListeningMessage>((resolve, reject) => {
      const worker = cluster.fork();
      const onMessage = (message: unknown) => {
        if ((message as ListeningMessage | undefined)?.type !== 'portico:listening') return;
        worker.off('message', onMessage);
        worker.off('exit', onEarlyExit);
        worker.on('exit', (code, signal) => void replace(worker, code, signal));
        resolve(message as ListeningMessage);
      };
      const onEarlyExit = (code: number | null, signal: string | null) => reject(new Error(`a server process exited while starting (${signal ?? `code ${code}`})`));
      worker.on('message', onMessage);
      worker.once('exit', onEarlyExit);
    });

  const replace = async (worker: Worker, code: number | null, signal: string | null) => {
    console.error(`Portico: server process ${worker.process.pid} exited (${signal ?? `code ${code}`}); starting another.`);
    // A replacement that fails to start (the database briefly away) counts as another exit and is tried again, a
    // second later, until the restart limit stops everything: the cluster never stays short of a process unseen.
    for (;;) {
      if (stopping) return;
      const now = Date.now();
      restarts.push(now);
      while (restarts.length > 0 && restarts[0]! < now - RESTART_WINDOW_MS) restarts.shift();
      if (restarts.length > MAX_RESTARTS) {
        console.error(`Portico: server processes keep exiting (${restarts.length} in a minute); stopping.`);
        await shutdown('restart limit', 1);
        return;
      }
      try {
        await fork();
        return;
      } catch (error) {
        console.error(`Portico: ${error instanceof Error ? error.message : String(error)}; trying again.`);
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  };

  const shutdown = async (reason: string, exitCode = 0) => {
    if (stopping) return;
    stopping = true;
    if (exitCode === 0) console.log(`\n${reason}: stopping Portico…`);
    const workers = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined);
    await Promise.all(
      workers.map(
        (worker) =>
          new Promise<void>((resolve) => {
            if (worker.isDead()) return resolve();
            const force = setTimeout(() => worker.process.kill('SIGKILL'), 10_000);
            worker.once('exit', () => {
              clearTimeout(force);
              resolve();
            });
            worker.process.kill('SIGTERM');
          }),
      ),
    );
    metricsListener?.close();
    await control?.close().catch(() => {});
    await booted.runtime.ticker.stop().catch(() => {});
    await booted.runtime.outbox.stop().catch(() => {});
    await booted.runtime.raw.close().catch(() => {});
    process.exit(exitCode);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  let started: ListeningMessage[];
  try {
    started = await Promise.all(Array.from({ length: config.workers }, fork));
  } catch (error) {
    console.error(`Portico cannot start: ${error instanceof Error ? error.message : String(error)}`);
    await shutdown('start-up failed', 1);
    return;
  }
  printBanner(config, booted, started[0]!.addresses);
}

if (env.workers > 1 && cluster.isPrimary) await runPrimary(env);
else await runServer(cluster.isWorker ? 'worker' : 'single');
