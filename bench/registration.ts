// Dynamic client registration (RFC 7591) on /oauth/register with the limits raised: absolute figures.
import { load, type ScenarioResult } from './lib/harness';
import type { BenchContext } from './run';

const CONNECTIONS = 16;
const AMOUNT = 3000;

export async function registration(ctx: BenchContext): Promise<ScenarioResult> {
  const portico = await load(
    {
      url: `${ctx.env.portico.url}/oauth/register`,
      method: 'POST',
      connections: CONNECTIONS,
      amount: AMOUNT,
      headers: { 'Content-Type': 'application/json' },
      requestAt: (index) => ({ body: JSON.stringify({ client_name: `bench client ${index}`, redirect_uris: ['http://127.0.0.1:40001/callback'] }) }),
      expectStatus: 201,
    },
    ctx.env.portico.pid,
  );
  return { name: 'dynamic registration', portico, notes: [`${CONNECTIONS} connections, ${AMOUNT} registrations; no baseline (absolute)`] };
}
