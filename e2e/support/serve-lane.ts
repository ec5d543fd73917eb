// One lane's shared e2e server (PORTICO_E2E_LANE, e2e/support/constants.ts), started by e2e/support/serve.ts: a
// Portico with the fixed e2e demo data, on scratch storage that is removed when it stops, and the lane's mailbox and
// redirect-URI listeners. Prints LANE_READY once all of it answers.
import { createServer } from 'node:http';
import { startMailbox } from '../../test/support/mailbox';
import { DEMO, E2E_PORT, EVERYTHING_PORT, LANE_READY, MAILBOX_HTTP_PORT, MAILBOX_SMTP_PORT, MCP_HOST_PORT, SCRIPTED_CLIENT_REDIRECT_URI } from './constants';
import { ROCKETS, seedE2EData } from './fixtures';
import { ensureCallbackServer } from './relying-party';
import { createStorage, startPortico, withStorageDatabase } from './portico-process';
import { loopbackTlsFiles } from './tls';
import { startEverything } from '../../test/support/upstreams';

// Every server of this run logs to e2e-logs/ (emptied by serve.ts), scanned for secrets after the last test.
const storage = await createStorage('portico-e2e');
await withStorageDatabase(storage, seedE2EData);
// The MCP onboarding tests serve a client ID metadata document on https://localhost: this Portico may fetch from
// loopback (never allowed in production) and trusts the tests' certificate (made once for the run by serve.ts).
const tls = loopbackTlsFiles();
// Real SMTP: the mailbox receives what Portico sends; the tests read it over loopback HTTP (GET /messages).
const mailbox = await startMailbox(MAILBOX_SMTP_PORT);
const mailboxView = createServer((_req, res) => {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
  res.end(JSON.stringify(mailbox.messages));
});
await new Promise<void>((resolve) => mailboxView.listen(MAILBOX_HTTP_PORT, '127.0.0.1', resolve));
// The redirect URIs that this lane's specs land on, served from this process for the whole run (a worker's own
// listener would close with its worker, and a worker restarted after a failure takes the same lane).
await Promise.all([DEMO.redirectUri, ROCKETS.redirectUri, ROCKETS.vault.redirectUri, SCRIPTED_CLIENT_REDIRECT_URI].map((uri) => ensureCallbackServer(uri)));
// An MCP server nobody here wrote, which the gateway's specs put behind Portico (the console's Servers section).
const everything = await startEverything(EVERYTHING_PORT);
// Every spec registers MCP clients from 127.0.0.1: the per-IP limit is raised here; registration-limits.spec.ts
// tests the limits on servers of its own.
const portico = await startPortico(E2E_PORT, storage, {
  PORTICO_OUTBOUND_ALLOW_LOOPBACK: 'true',
  NODE_EXTRA_CA_CERTS: tls.certPath,
  PORTICO_DCR_PER_IP_PER_HOUR: '500',
  // CIBA and the device grant (e2e/ciba.spec.ts, e2e/device-flow.spec.ts): clients may poll every second.
  PORTICO_POLL_INTERVAL_SECONDS: '1',
  // Approvals inside the chat client for clients that advertise it (approval-surfaces.spec.ts), and one test MCP
  // host allowed to frame the embedded central. Clients that advertise nothing still get the link.
  PORTICO_APPROVAL_SURFACE: 'adaptive',
  PORTICO_OPERATOR_FRAME_ANCESTORS: `https://127.0.0.1:${MCP_HOST_PORT}`,
  PORTICO_SMTP_URL: mailbox.url,
  PORTICO_MAIL_FROM: 'Portico e2e <identity@e2e.portico.test>',
});
// The server's whole output is in e2e-logs/; what it writes to stderr is shown in the run's output too.
portico.process.stderr?.pipe(process.stderr);
process.stdout.write(`${LANE_READY}\n`);

async function stop() {
  portico.process.kill('SIGTERM');
  await portico.exited;
  await Promise.all([storage.dispose(), mailbox.close(), everything.close(), new Promise((resolve) => mailboxView.close(resolve))]);
  process.exit(0);
}
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
void portico.exited.then(async (code) => {
  await Promise.all([storage.dispose(), everything.close()]);
  process.exit(code ?? 1);
});
