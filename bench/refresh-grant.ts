// Refresh grant: POST /oidc/token grant_type=refresh_token, each connection following its own rotating chain,
// against Portico and against the baseline (bare oidc-provider, same adapter and keys, plain node:http).
import { alternate, load, ratio, type ScenarioResult } from './lib/harness';
import type { BenchContext } from './run';
import { basicAuthorization, PorticoSession } from './lib/portico-flow';

const CONNECTIONS = 32;
// More chains than connections, so that no request waits for a chain head.
const CHAINS = 40;
const AMOUNT = 6000;

export async function refreshGrant(ctx: BenchContext): Promise<ScenarioResult> {
  const session = new PorticoSession();
  const chained = (tokens: string[]) => ({
    initial: tokens.map((token) => new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token }).toString()),
    next: (body: string) => {
      const next = (JSON.parse(body) as { refresh_token?: string }).refresh_token;
      return next ? new URLSearchParams({ grant_type: 'refresh_token', refresh_token: next }).toString() : undefined;
    },
  });
  const headers = { Authorization: basicAuthorization(), 'Content-Type': 'application/x-www-form-urlencoded' };
  const porticoRun = async () => {
    // One after another: a session's interaction cookies are per flow.
    const tokens: string[] = [];
    for (let chain = 0; chain < CHAINS; chain += 1) tokens.push(await session.refreshToken());
    return load({ url: `${ctx.env.portico.url}/oidc/token`, method: 'POST', connections: CONNECTIONS, amount: AMOUNT, headers, chain: chained(tokens) }, ctx.env.portico.pid);
  };
  const baselineRun = async () => {
    const tokens = await ctx.baselineFixtures('refresh', CHAINS);
    return load({ url: `${ctx.oidcBaseline.url}/token`, method: 'POST', connections: CONNECTIONS, amount: AMOUNT, headers, chain: chained(tokens) }, ctx.oidcBaseline.pid);
  };
  const { portico, baseline } = await alternate(porticoRun, baselineRun);
  return { name: 'refresh grant', portico, baseline: { ...baseline, label: 'oidc-provider + same adapter, node:http' }, ratio: ratio(portico, baseline), notes: [`${CONNECTIONS} connections, ${AMOUNT} requests a run`] };
}
