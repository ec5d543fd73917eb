// The SSRF guard of client ID metadata document fetches: a Portico that has not been told to allow loopback (the
// production default) refuses to fetch a document from a loopback address, even a well-formed one over TLS it
// trusts. The e2e server allows loopback only so that the other CIMD tests can serve documents locally.
import { createServer as createHttpsServer } from 'node:https';
import { readFileSync } from 'node:fs';
import { expect, test } from './support/test';
import { createStorage, startPortico } from './support/portico-process';
import { pkceAuthorizationRequest } from './support/mcp-oauth';
import { loopbackTlsFiles } from './support/tls';

const PORT = 3216;
const DOC_PORT = 4992;

test('a metadata document on a loopback address is never fetched by a production-configured Portico', async () => {
  const tls = loopbackTlsFiles();
  const clientId = `https://localhost:${DOC_PORT}/client.json`;
  let requests = 0;
  let connections = 0;
  const documents = createHttpsServer({ cert: readFileSync(tls.certPath), key: readFileSync(tls.keyPath) }, (_req, res) => {
    requests++;
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ client_id: clientId, client_name: 'Loopback', redirect_uris: ['http://127.0.0.1:4994/callback'], token_endpoint_auth_method: 'none' }));
  });
  // The guard decides before connecting: not even a TCP connection (or a TLS ClientHello) reaches the listener.
  documents.on('connection', () => connections++);
  await new Promise<void>((resolve) => documents.listen(DOC_PORT, '127.0.0.1', resolve));
  const storage = await createStorage('portico-ssrf');
  // Trusts the test certificate, so only the address rule can stop the fetch.
  const portico = await startPortico(PORT, storage, { NODE_EXTRA_CA_CERTS: tls.certPath, PORTICO_DEMO_SEED: 'false' });
  try {
    const { url } = pkceAuthorizationRequest(`http://localhost:${PORT}`, { clientId, redirectUri: 'http://127.0.0.1:4994/callback', resource: `http://localhost:${PORT}/api/mcp` });
    const response = await fetch(url, { redirect: 'manual' });
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(requests).toBe(0);
    expect(connections).toBe(0);
  } finally {
    portico.process.kill('SIGTERM');
    await portico.exited;
    await storage.dispose();
    await new Promise((resolve) => documents.close(resolve));
  }
});
