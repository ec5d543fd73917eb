// The registration limits hold across instances: two Portico processes on one PostgreSQL database share the
// per-IP limit and the global cap (on the embedded database, which one process owns, the same with one process).
import { expect, test, type APIRequestContext } from './support/test';
import { env } from '../lib/env';
import { createStorage, startPortico, type RunningPortico } from './support/portico-process';

const PORTS = [3214, 3215] as const;

async function register(request: APIRequestContext, port: number, ip: string) {
  return request.post(`http://127.0.0.1:${port}/oauth/register`, {
    headers: { 'X-Forwarded-For': ip },
    data: { client_name: `limits ${ip}`, redirect_uris: ['http://127.0.0.1:40001/callback'] },
  });
}

test('the per-IP limit and the global cap answer 429 with Retry-After, across processes', async ({ request }) => {
  const storage = await createStorage('portico-limits');
  const limits = { PORTICO_DCR_PER_IP_PER_HOUR: '3', PORTICO_DCR_GLOBAL_PER_HOUR: '5', PORTICO_TRUST_PROXY: 'true', PORTICO_DEMO_SEED: 'false' };
  const running: RunningPortico[] = [];
  try {
    // PGlite is owned by one process; on PostgreSQL the requests alternate between two.
    const ports = env().DATABASE_URL ? PORTS : ([PORTS[0], PORTS[0]] as const);
    running.push(await startPortico(ports[0], storage, limits));
    if (ports[1] !== ports[0]) running.push(await startPortico(ports[1], storage, limits));
    const at = (n: number) => ports[n % 2]!;

    // One address: three registrations, alternating processes, then the fourth is refused.
    for (let n = 0; n < 3; n++) expect((await register(request, at(n), '203.0.113.7')).status()).toBe(201);
    const perIp = await register(request, at(3), '203.0.113.7');
    expect(perIp.status()).toBe(429);
    expect(Number(perIp.headers()['retry-after'])).toBeGreaterThan(0);
    expect((await perIp.json()).error).toBe('temporarily_unavailable');

    // Other addresses: two more fill the global cap of five; the next one is refused although its address is new.
    expect((await register(request, at(0), '198.51.100.1')).status()).toBe(201);
    expect((await register(request, at(1), '198.51.100.2')).status()).toBe(201);
    const global = await register(request, at(0), '198.51.100.3');
    expect(global.status()).toBe(429);
    expect(Number(global.headers()['retry-after'])).toBeGreaterThan(0);
  } finally {
    for (const portico of running) {
      portico.process.kill('SIGTERM');
      await portico.exited;
    }
    await storage.dispose();
  }
});
