// Password login: the sign-in card's action (POST /auth/app/<uid>/login: throttle, argon2id verify, the
// interaction's completion), one prepared interaction a request, against the bare KDF cost of the same parameters
// (argon2id verify in process) as the physical limit.
import { verify } from '@node-rs/argon2';
import { calculatePKCECodeChallenge } from 'openid-client';
import { hashPassword } from '../lib/accounts/factors/password';
import { demoClient, ISSUER, load, measureInProcess, type ScenarioResult } from './lib/harness';
import { BENCH_VERIFIER } from './lib/portico-flow';
import type { BenchContext } from './run';

const CONNECTIONS = 8;
const AMOUNT = 300;

/** A sign-in card's interaction on the Portico at `origin` (the issuer's address unless another process's). */
export async function interaction(origin = ISSUER): Promise<{ path: string; cookie: string }> {
  const url = new URL(`${origin}/oidc/auth`);
  url.search = new URLSearchParams({ client_id: demoClient.clientId, redirect_uri: demoClient.redirectUri, response_type: 'code', scope: 'openid', code_challenge: await calculatePKCECodeChallenge(BENCH_VERIFIER), code_challenge_method: 'S256', state: 'bench' }).toString();
  const response = await fetch(url, { redirect: 'manual' });
  const uid = /^\/auth\/app\/([A-Za-z0-9_-]+)$/.exec(response.headers.get('location') ?? '')?.[1];
  if (!uid) throw new Error('no interaction');
  const cookie = response.headers.getSetCookie().map((line) => line.split(';')[0]).join('; ');
  return { path: `/auth/app/${uid}/login`, cookie };
}

export async function passwordLogin(ctx: BenchContext): Promise<ScenarioResult> {
  const interactions: { path: string; cookie: string }[] = [];
  for (let index = 0; index < AMOUNT; index += 1) interactions.push(await interaction());
  const body = new URLSearchParams({ email: demoClient.email, password: demoClient.password }).toString();
  const portico = await load(
    { url: `${ctx.env.portico.url}/auth/app/x/login`, method: 'POST', connections: CONNECTIONS, amount: AMOUNT, headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, requestAt: (index) => ({ path: interactions[index]!.path, body, headers: { cookie: interactions[index]!.cookie } }), expectStatus: 303, accept: (headers) => !String(headers?.location ?? '').includes('error=') },
    ctx.env.portico.pid,
  );
  const hash = await hashPassword(demoClient.password);
  const limit = await measureInProcess(async () => {
    if (!(await verify(hash, demoClient.password))) throw new Error('no match');
  }, AMOUNT, CONNECTIONS);
  return { name: 'password login', portico, limit: { ...limit, label: 'bare argon2id verify (m=19 MiB, t=2, p=1)' }, notes: [`${CONNECTIONS} concurrent, ${AMOUNT} sign-ins, one prepared interaction each`] };
}
