// Code exchange: POST /oidc/token grant_type=authorization_code with PKCE, one prepared code a request (codes live
// 60 s, so each run's codes are made just before it), against Portico and the baseline.
import { alternate, load, ratio, type ScenarioResult } from './lib/harness';
import type { BenchContext } from './run';
import { basicAuthorization, BENCH_VERIFIER, PorticoSession } from './lib/portico-flow';
import { demoClient } from './lib/harness';

const CONNECTIONS = 32;
const AMOUNT = 1500;

/** Codes from several sessions at once (one flow at a time within a session: its interaction cookies are per flow). */
async function codes(sessions: PorticoSession[], count: number): Promise<string[]> {
  const made: string[] = [];
  // Sign-ins one after another: a burst of sign-ins to one account is what the login throttle stops.
  for (const session of sessions) made.push(await session.code('openid'));
  await Promise.all(
    sessions.map(async (session) => {
      while (made.length < count) made.push(await session.code('openid'));
    }),
  );
  return made.slice(0, count);
}

export async function codeExchange(ctx: BenchContext): Promise<ScenarioResult> {
  const sessions = Array.from({ length: 16 }, () => new PorticoSession());
  const headers = { Authorization: basicAuthorization(), 'Content-Type': 'application/x-www-form-urlencoded' };
  const body = (code: string) => new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: demoClient.redirectUri, code_verifier: BENCH_VERIFIER }).toString();
  const porticoRun = async () => {
    const prepared = await codes(sessions, AMOUNT);
    return load({ url: `${ctx.env.portico.url}/oidc/token`, method: 'POST', connections: CONNECTIONS, amount: AMOUNT, headers, requestAt: (index) => ({ body: body(prepared[index % prepared.length]!) }) }, ctx.env.portico.pid);
  };
  const baselineRun = async () => {
    const prepared = await ctx.baselineFixtures('code', AMOUNT);
    return load({ url: `${ctx.oidcBaseline.url}/token`, method: 'POST', connections: CONNECTIONS, amount: AMOUNT, headers, requestAt: (index) => ({ body: body(prepared[index % prepared.length]!) }) }, ctx.oidcBaseline.pid);
  };
  const { portico, baseline } = await alternate(porticoRun, baselineRun);
  return { name: 'code exchange', portico, baseline: { ...baseline, label: 'oidc-provider + same adapter, node:http' }, ratio: ratio(portico, baseline), notes: [`${CONNECTIONS} connections, ${AMOUNT} prepared codes a run`] };
}
