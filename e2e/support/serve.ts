// Playwright's web server: one Portico with the fixed e2e demo data, on scratch storage that is removed when
// Playwright stops it.
import { E2E_PORT, MCP_HOST_PORT } from './constants';
import { seedE2EData } from './fixtures';
import { createStorage, startPortico, withStorageDatabase } from './portico-process';
import { loopbackTlsFiles } from './tls';

const storage = await createStorage('portico-e2e');
await withStorageDatabase(storage, seedE2EData);
// The MCP onboarding tests serve a client ID metadata document on https://localhost: this Portico may fetch from
// loopback (never allowed in production) and trusts the tests' certificate.
const tls = loopbackTlsFiles({ regenerate: true });
// Every spec registers MCP clients from 127.0.0.1: the per-IP limit is raised here; registration-limits.spec.ts
// tests the limits on servers of its own.
const portico = await startPortico(E2E_PORT, storage, {
  PORTICO_CIMD_ALLOW_LOOPBACK: 'true',
  NODE_EXTRA_CA_CERTS: tls.certPath,
  PORTICO_DCR_PER_IP_PER_HOUR: '500',
  // Approvals inside the chat client for clients that advertise it (approval-surfaces.spec.ts), and one test MCP
  // host allowed to frame the embedded central. Clients that advertise nothing still get the link.
  PORTICO_APPROVAL_SURFACE: 'adaptive',
  PORTICO_OPERATOR_FRAME_ANCESTORS: `https://127.0.0.1:${MCP_HOST_PORT}`,
});
process.stdout.write(portico.output());
portico.process.stdout?.pipe(process.stdout);
portico.process.stderr?.pipe(process.stderr);

async function stop() {
  portico.process.kill('SIGTERM');
  await portico.exited;
  await storage.dispose();
  process.exit(0);
}
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
void portico.exited.then(async (code) => {
  await storage.dispose();
  process.exit(code ?? 1);
});
