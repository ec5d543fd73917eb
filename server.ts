// Portico's HTTP server: oidc-provider's endpoints go straight to the provider (lib/oidc/bridge.ts), everything
// else to Next.js. Run through `npm start` (production) or `npm run dev`.
import { createServer } from 'node:http';
import next from 'next';
import { bootPortico, type BootResult } from './lib/boot';
import { envOrExit } from './lib/env';
import { createProviderHandler, isProviderPath } from './lib/oidc/bridge';
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

const nextApp = next({ dev: development, dir: process.cwd(), hostname: env.listenHost, port: env.listenPort });
await nextApp.prepare();
const handleNext = nextApp.getRequestHandler();
const handleProvider = createProviderHandler(booted.runtime.provider, { https: env.issuerIsHttps });

const server = createServer((req, res) => {
  const pathname = (req.url ?? '/').split('?', 1)[0] ?? '/';
  if (isProviderPath(pathname)) {
    handleProvider(req, res);
    return;
  }
  void handleNext(req, res);
});

server.on('error', (error: NodeJS.ErrnoException) => {
  console.error(
    error.code === 'EADDRINUSE'
      ? `Portico cannot listen on ${env.listenHost}:${env.listenPort}: the port is in use. Stop the other program or set PORTICO_PORT.`
      : `Portico's HTTP server failed: ${error.message}`,
  );
  process.exit(1);
});

server.listen(env.listenPort, env.listenHost, () => printBanner(env, booted));

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal}: stopping Portico…`);
  server.close();
  server.closeAllConnections();
  await booted.runtime.raw.close().catch(() => {});
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
