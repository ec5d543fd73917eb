// Portico's HTTP server: oidc-provider's endpoints go straight to the provider (lib/oidc/bridge.ts), Portico's MCP
// endpoint straight to its handler (lib/mcp/node-route.ts), everything else to Next.js. The two hot API paths skip
// Next.js routing, a large share of their cost (docs/benchmarks.md). Run through `npm start` (production) or
// `npm run dev`.
import type { AddressInfo } from 'node:net';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import next from 'next';
import { bootPortico, type BootResult } from './lib/boot';
import { envOrExit } from './lib/env';
import { CLIENT_IP_HEADER, clientIpOf } from './lib/http/client-ip';
import { createProviderHandler, isProviderPath } from './lib/oidc/bridge';
import { MCP_PATH, serveMcp } from './lib/mcp/node-route';
import { startControlSocket } from './lib/cli/control-socket';
import { drizzleFor } from './lib/db/client';
import { describeStartupFailure, printBanner } from './lib/startup-messages';

const development = process.argv.includes('--dev');
const env = envOrExit();

let booted: BootResult;
try {
  booted = await bootPortico(env);
} catch (error) {
  console.error(describeStartupFailure(error));
  process.exit(1);
}

const nextApp = next({ dev: development, dir: process.cwd(), hostname: env.listenHosts[0], port: env.listenPort });
await nextApp.prepare();
const handleNext = nextApp.getRequestHandler();
const handleProvider = createProviderHandler(booted.runtime.provider, { https: env.issuerIsHttps });

function handle(req: IncomingMessage, res: ServerResponse) {
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
  void handleNext(req, res);
}

/** Listens on one address; a loopback family the machine lacks (no IPv6) is skipped, anything else is fatal. */
function listen(host: string): Promise<Server | undefined> {
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

const servers = (await Promise.all(env.listenHosts.map(listen))).filter((server): server is Server => server !== undefined);
booted.runtime.mail.start();
// CLI commands run here while the server holds the data folder (the embedded database admits one process).
const controlDb = drizzleFor(booted.runtime.raw);
const control = await startControlSocket({
  dataDir: env.dataDir,
  context: () => ({ db: controlDb, issuer: env.PORTICO_ISSUER, atRestKey: booted.runtime.atRestKey }),
  afterCommand: () => booted.runtime.mail.kick(),
});
printBanner(
  env,
  booted,
  servers.map((server) => {
    const { address, family, port } = server.address() as AddressInfo;
    return family === 'IPv6' ? `[${address}]:${port}` : `${address}:${port}`;
  }),
);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal}: stopping Portico…`);
  for (const server of servers) {
    server.close();
    server.closeAllConnections();
  }
  await control?.close().catch(() => {});
  await booted.runtime.mail.stop().catch(() => {});
  await booted.runtime.raw.close().catch(() => {});
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
