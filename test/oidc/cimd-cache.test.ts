// Client ID metadata documents are cached by their HTTP cache headers, within bounds (at least a minute, at most a
// day), and fetched again once stale. The document is served over HTTPS on loopback with the run's test certificate;
// time moves by the clock the cache reads (Date only), never by waiting.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { loopbackTlsFiles } from '../../e2e/support/tls';
import { useProviderHarness } from '../support/provider-harness';

describe('client ID metadata documents: caching', () => {
  const suite = useProviderHarness({ outboundAllowLoopback: true });
  let server: Server;
  let origin: string;
  const fetched = new Map<string, number>();
  /** Cache-Control per document path. */
  const cacheControl: Record<string, string> = { '/short.json': 'max-age=120', '/forever.json': 'max-age=31536000', '/none.json': 'no-cache' };

  beforeAll(async () => {
    const tls = loopbackTlsFiles({ dir: inject('tlsDir') });
    server = createServer({ cert: readFileSync(tls.certPath), key: readFileSync(tls.keyPath) }, (request, response) => {
      const path = request.url ?? '';
      fetched.set(path, (fetched.get(path) ?? 0) + 1);
      const clientId = `${origin}${path}`;
      response.writeHead(200, { 'content-type': 'application/json', 'cache-control': cacheControl[path] ?? 'no-store' });
      response.end(JSON.stringify({ client_id: clientId, client_name: 'Cached client', redirect_uris: ['http://127.0.0.1:45713/callback'], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `https://localhost:${(server.address() as AddressInfo).port}`;
  });
  afterEach(() => vi.useRealTimers());
  afterAll(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  /** Any request that reads the client: a refresh with a token that does not exist (the client is looked up first). */
  const lookUp = async (path: string) => {
    const response = await fetch(`${suite.harness.issuer}/oidc/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'none', client_id: `${origin}${path}` }) });
    return ((await response.json()) as { error: string }).error;
  };
  const at = (start: number, seconds: number) => vi.setSystemTime(start + seconds * 1000);

  it('keeps a document for its max-age, fetches it again when stale, and bounds max-age to a minute and a day', async () => {
    const start = Date.now();
    vi.useFakeTimers({ toFake: ['Date'], now: start });
    // The client is found (the refresh token is not): the document was read and accepted.
    expect(await lookUp('/short.json')).toBe('invalid_grant');
    expect(await lookUp('/forever.json')).toBe('invalid_grant');
    expect(await lookUp('/none.json')).toBe('invalid_grant');
    expect([fetched.get('/short.json'), fetched.get('/forever.json'), fetched.get('/none.json')]).toEqual([1, 1, 1]);

    // 50 s on: everything is still cached, even no-cache (the least is a minute).
    at(start, 50);
    for (const path of ['/short.json', '/forever.json', '/none.json']) await lookUp(path);
    expect([fetched.get('/short.json'), fetched.get('/forever.json'), fetched.get('/none.json')]).toEqual([1, 1, 1]);

    // 100 s on: the no-cache document is stale; the two-minute one is not.
    at(start, 100);
    for (const path of ['/short.json', '/forever.json', '/none.json']) await lookUp(path);
    expect([fetched.get('/short.json'), fetched.get('/forever.json'), fetched.get('/none.json')]).toEqual([1, 1, 2]);

    // 130 s on: the two-minute one is fetched again.
    at(start, 130);
    await lookUp('/short.json');
    expect(fetched.get('/short.json')).toBe(2);

    // A year's max-age is kept a day at most.
    at(start, 23 * 3600);
    await lookUp('/forever.json');
    expect(fetched.get('/forever.json')).toBe(1);
    at(start, 24 * 3600 + 60);
    await lookUp('/forever.json');
    expect(fetched.get('/forever.json')).toBe(2);
  });
});
