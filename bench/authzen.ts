// AuthZEN decisions (issue 60): one evaluation, and a batch of 100, at Portico's decision point beside a baseline that
// answers the same decisions from an in-memory table (bench/baselines/authzen-table.ts), in the same run. The subject
// is the demo's person; the action is a permission of the demo app granted to them (`reports:read`, safe: counted,
// not audited, as most decisions are). Portico reads the person's effective permissions from PostgreSQL at every
// request (nothing a revocation must see is cached); the figures that matter are its server CPU per request and the
// median latency of one request at a time. Goals: ≤ 2 ms of server time for one evaluation, ≤ 20 ms for 100.
import { eq } from 'drizzle-orm';
import { addPermission } from '../lib/clients/permission-catalog';
import { apps, clients, personGrants, users } from '../lib/db/schema';
import { alternate, demoClient, load, startProcess, type ScenarioResult } from './lib/harness';
import type { BenchContext } from './run';

const CONNECTIONS = 16;
const BASELINE_PORT = 3233;

export async function authzenDecisions(ctx: BenchContext): Promise<ScenarioResult[]> {
  // The demo app offers `reports:read`, granted to the demo person directly (what the scenario decides).
  const { db } = ctx.env;
  const [demo] = await db.select({ appId: clients.appId, orgId: apps.orgId }).from(clients).innerJoin(apps, eq(apps.id, clients.appId)).where(eq(clients.id, demoClient.clientId));
  const [person] = await db.select({ id: users.id }).from(users).where(eq(users.email, demoClient.email));
  if (!demo?.appId || !person) throw new Error('the bench database has no demo app or person');
  await addPermission(db, demo.appId, { scope: 'reports:read', description: 'Read reports' });
  await db.insert(personGrants).values({ orgId: demo.orgId, userId: person.id, appId: demo.appId, scope: 'reports:read' }).onConflictDoNothing();
  const baseline = await startProcess(
    ['--import', 'tsx', 'bench/baselines/authzen-table.ts', String(BASELINE_PORT), demoClient.clientId, demoClient.clientSecret, demoClient.email, 'mcp', 'reports:read'],
    {},
    'baseline AuthZEN table ready',
    `http://127.0.0.1:${BASELINE_PORT}`,
  );
  try {
    const headers = { 'Content-Type': 'application/json', Authorization: `Basic ${Buffer.from(`${encodeURIComponent(demoClient.clientId)}:${encodeURIComponent(demoClient.clientSecret)}`).toString('base64')}` };
    const single = JSON.stringify({ subject: { type: 'user', id: demoClient.email }, action: { name: 'reports:read' }, resource: { type: 'report', id: '1' } });
    const batch = JSON.stringify({
      subject: { type: 'user', id: demoClient.email },
      action: { name: 'reports:read' },
      evaluations: Array.from({ length: 100 }, (_, index) => ({ resource: { type: 'report', id: String(index + 1) } })),
    });
    // Both answer the same before anything is measured: true for every item.
    for (const [path, body] of [['/access/v1/evaluation', single], ['/access/v1/evaluations', batch]] as const) {
      for (const url of [`${ctx.env.portico.url}${path}`, `${baseline.url}${path}`]) {
        const answer = (await (await fetch(url, { method: 'POST', headers, body })).json()) as { decision?: boolean; evaluations?: { decision: boolean }[] };
        const decisions = answer.evaluations?.map((item) => item.decision) ?? [answer.decision];
        if (decisions.length === 0 || decisions.some((decision) => decision !== true)) throw new Error(`${url} did not allow the demo person to read reports: ${JSON.stringify(answer).slice(0, 200)}`);
      }
    }
    const run = (url: string, body: string, amount: number, pid: number) => () => load({ url, method: 'POST', connections: CONNECTIONS, amount, headers, body }, pid);
    const results: ScenarioResult[] = [];
    for (const [name, path, body, amount] of [
      ['AuthZEN evaluation', '/access/v1/evaluation', single, 6000],
      ['AuthZEN evaluations (100)', '/access/v1/evaluations', batch, 600],
    ] as const) {
      const measured = await alternate(run(`${ctx.env.portico.url}${path}`, body, amount, ctx.env.portico.pid), run(`${baseline.url}${path}`, body, amount, baseline.pid));
      const oneAtATime = await sequentialMedianUs(`${ctx.env.portico.url}${path}`, headers, body, 300);
      results.push({
        name,
        portico: measured.portico,
        baseline: { ...measured.baseline, label: 'the same decisions from an in-memory table (node:http)' },
        ratio: Math.round((measured.portico.requestsPerSecond / measured.baseline.requestsPerSecond) * 100) / 100,
        notes: [
          `${CONNECTIONS} connections, ${amount} requests a run; Portico reads the person and their effective permissions from PostgreSQL per request`,
          `server CPU per request ${measured.portico.serverCpuUs ?? '?'} µs (goal ≤ ${path.endsWith('evaluations') ? '20 000' : '2 000'} µs); one request at a time: median ${oneAtATime} µs`,
        ],
      });
    }
    return results;
  } finally {
    await baseline.stop();
  }
}

/** The median latency of `count` requests made one after another, in µs (the first 50 warm the connection). */
async function sequentialMedianUs(url: string, headers: Record<string, string>, body: string, count: number): Promise<number> {
  const times: number[] = [];
  for (let index = 0; index < count + 50; index += 1) {
    const started = performance.now();
    const response = await fetch(url, { method: 'POST', headers, body });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`an evaluation answered ${response.status}`);
    if (index >= 50) times.push((performance.now() - started) * 1000);
  }
  times.sort((a, b) => a - b);
  return Math.round(times[Math.floor(times.length / 2)]!);
}
