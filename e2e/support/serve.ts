// Playwright's web server for the shared-server specs: prepares the run once (an empty e2e-logs/ for the secret
// scan, the run's loopback TLS certificate), then starts one lane server per Playwright worker (serve-lane.ts, each
// with PORTICO_E2E_LANE) and answers on E2E_READY_PORT once every lane answers. Playwright starts its web servers
// before anything else of the run, so this is where the run's shared preparation belongs; stopping this process
// stops every lane.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import { childProcessEnvironment } from '../../lib/env';
import { E2E_LANES, E2E_READY_PORT, LANE_READY } from './constants';
import { resetServerLogs } from './secret-scan';
import { loopbackTlsFiles } from './tls';

resetServerLogs();
loopbackTlsFiles({ regenerate: true });

const lanes: ChildProcess[] = [];
function startLane(lane: number): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'e2e/support/serve-lane.ts'], {
    env: childProcessEnvironment({ PORTICO_E2E_LANE: String(lane) }),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  lanes.push(child);
  return new Promise((resolve, reject) => {
    let printed = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      printed += chunk.toString();
      if (printed.includes(LANE_READY)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`e2e lane ${lane} exited with ${code} before it was ready:\n${printed}`)));
  });
}

let stopping = false;
async function stop(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  await Promise.all(
    lanes.map((child) => {
      if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      return exited;
    }),
  );
  process.exit(code);
}
process.on('SIGTERM', () => void stop(0));
process.on('SIGINT', () => void stop(0));

try {
  await Promise.all(Array.from({ length: E2E_LANES }, (_, lane) => startLane(lane)));
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  await stop(1);
}
// A lane that dies during the run ends the whole server: its specs would otherwise fail one by one, unexplained.
// (At the end of the run Playwright signals the whole process group: a lane then exits 0, or by that signal.)
for (const [lane, child] of lanes.entries()) {
  child.once('exit', (code, signal) => {
    if (stopping || code === 0 || signal === 'SIGTERM' || signal === 'SIGINT') return;
    console.error(`e2e lane ${lane} exited with ${code ?? signal} during the run.`);
    void stop(1);
  });
}
createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ready')).listen(E2E_READY_PORT, '127.0.0.1');
