// Refresh grant: POST /oidc/token grant_type=refresh_token, each connection following its own rotating chain,
// against Portico and against the baseline (bare oidc-provider, same adapter and keys, plain node:http).
import { alternate, load, ratio, type Figures, type ScenarioResult, type ServerProcess } from './lib/harness';
import type { BenchContext } from './run';
import { basicAuthorization, PorticoSession } from './lib/portico-flow';

const CONNECTIONS = 16;
// More chains than connections, so that no request waits for a chain head.
const CHAINS = 24;
const AMOUNT = 6000;

const chained = (tokens: string[]) => ({
  initial: tokens.map((token) => new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token }).toString()),
  next: (body: string) => {
    const next = (JSON.parse(body) as { refresh_token?: string }).refresh_token;
    return next ? new URLSearchParams({ grant_type: 'refresh_token', refresh_token: next }).toString() : undefined;
  },
});
const headers = { Authorization: basicAuthorization(), 'Content-Type': 'application/x-www-form-urlencoded' };

/** One measured run of refresh chains against a Portico process (tokens minted first, through Portico's screens). */
export async function porticoRefreshRun(session: PorticoSession, portico: ServerProcess): Promise<Figures> {
  // One after another: a session's interaction cookies are per flow.
  const tokens: string[] = [];
  for (let chain = 0; chain < CHAINS; chain += 1) tokens.push(await session.refreshToken());
  return load({ url: `${portico.url}/oidc/token`, method: 'POST', connections: CONNECTIONS, amount: AMOUNT, headers, chain: chained(tokens) }, portico.pid);
}

export async function refreshGrant(ctx: BenchContext): Promise<ScenarioResult> {
  const session = new PorticoSession();
  const porticoRun = () => porticoRefreshRun(session, ctx.env.portico);
  const baselineRun = async () => {
    const tokens = await ctx.baselineFixtures('refresh', CHAINS);
    return load({ url: `${ctx.oidcBaseline.url}/token`, method: 'POST', connections: CONNECTIONS, amount: AMOUNT, headers, chain: chained(tokens) }, ctx.oidcBaseline.pid);
  };
  const { portico, baseline } = await alternate(porticoRun, baselineRun);
  return { name: 'refresh grant', portico, baseline: { ...baseline, label: 'oidc-provider + same adapter, node:http' }, ratio: ratio(portico, baseline), notes: [`${CONNECTIONS} connections, ${AMOUNT} requests a run`] };
}

/** PORTICO_WORKERS=2 against one server process: the same refresh load, alternating between the two. */
export async function refreshWorkers(ctx: BenchContext): Promise<ScenarioResult> {
  const two = await ctx.startPortico({ port: 3233, workers: 2 });
  try {
    const session = new PorticoSession();
    const { portico: withTwo, baseline: withOne } = await alternate(
      () => porticoRefreshRun(session, two),
      () => porticoRefreshRun(session, ctx.env.portico),
    );
    return {
      name: 'refresh grant, PORTICO_WORKERS=2',
      portico: withTwo,
      baseline: { ...withOne, label: 'one server process (PORTICO_WORKERS=1)' },
      ratio: ratio(withTwo, withOne),
      notes: [`${CONNECTIONS} connections, ${AMOUNT} requests a run; the load generator and PostgreSQL share the machine's cores; peak RSS is the primary and its server processes together`],
    };
  } finally {
    await two.stop();
  }
}
