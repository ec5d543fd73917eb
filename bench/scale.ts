// npm run bench -- scale [--fraction <0..1>] [--only <words>] [--profile]: what the hot requests cost on a big
// database, against the same requests on an empty one, side by side. Not in CI (tens of minutes, tens of GB).
// --only runs the scenarios whose name holds the words ("console"); --profile runs both Porticos with --cpu-prof
// (bench/results/profiles). A partial run (--only) prints its table and leaves the docs' table as it is.
//
// Two scratch databases on the local PostgreSQL, each with its own Portico (same issuer and secret key, own port):
// one as the demo seed leaves it, one seeded with 1 M people, 10 k organizations, 100 k apps and their clients,
// 10 M provider rows and 20 M audit events (times --fraction). The demo organization, where the measured requests
// act, holds 50 k of the people and 2 M of the events, so that its own pages and indexes are big, not only the
// tables. Each scenario alternates between the two (3 rounds after a warm-up, medians), and the ratio is the big
// database's cost to the empty one's: throughput, p50, p99, CPU per request.
//
// Seeding is set-based SQL (INSERT … SELECT generate_series, which the server generates itself: faster than COPY
// from here) with session_replication_role = replica, so no trigger runs: the seeded audit events carry
// placeholder hashes (the chain is not verifiable on this database) and the foreign keys are not checked. This is
// bench data, never a database to keep.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { envOrExit } from '../lib/env';
import { createScratchPostgres, dropScratchPostgres } from '../test/support/databases';
import { alternate, demoClient, ensureBuild, load, PRODUCTION_NODE_FLAGS, repoPath, startPorticoForBench, ISSUER, type Figures, type ServerProcess } from './lib/harness';
import { porticoApiToken, PorticoSession } from './lib/portico-flow';
import { interaction } from './password-login';
import { porticoRefreshRun } from './refresh-grant';

/** The empty side's contents: one page of members and of events in the demo organization, nothing else of size. */
const PAGE_WORTH = { people: 150, orgs: 2, apps: 1, providerRows: 10, auditEvents: 200, demoMembers: 150, demoEvents: 200 };
const FULL = { people: 1_000_000, orgs: 10_000, apps: 100_000, providerRows: 10_000_000, auditEvents: 20_000_000, demoMembers: 50_000, demoEvents: 2_000_000 };
const BIG_PORT = 3236;
const EMPTY_PORT = 3237;
const CHUNK = 1_000_000;

interface ScaleRow {
  name: string;
  big: Figures;
  empty: Figures;
  /** Big database's cost over the empty one's, per request (by throughput; 1.2 is the goal's bound). */
  costRatio: number;
  p50Ratio: number;
  p99Ratio: number;
}

const round2 = (value: number) => Math.round(value * 100) / 100;

/** The words after --only, if any: the scenarios whose name holds them run, the others do not. */
function onlyOf(argv: string[]): string | undefined {
  const index = argv.indexOf('--only');
  if (index < 0) return undefined;
  const words = argv[index + 1];
  if (!words || words.startsWith('--')) {
    console.error(`--only takes words of a scenario's name. Scenarios: ${SCENARIOS.map((scenario) => scenario.name).join(', ')}`);
    process.exit(2);
  }
  return words;
}

function fractionOf(argv: string[]): number {
  const index = argv.indexOf('--fraction');
  if (index < 0) return 1;
  const value = Number(argv[index + 1]);
  if (!(value > 0 && value <= 1)) {
    console.error('--fraction takes a number above 0, at most 1 (1: the full sizes).');
    process.exit(2);
  }
  return value;
}

async function seed(databaseUrl: string, sizes: typeof FULL, log: (line: string) => void): Promise<Record<string, number>> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {}, connection: { TimeZone: 'UTC' } });
  const seconds: Record<string, number> = {};
  const timed = async (label: string, work: () => Promise<unknown>) => {
    const started = performance.now();
    await work();
    seconds[label] = round2((performance.now() - started) / 1000);
    log(`  seeded ${label} in ${seconds[label]} s`);
  };
  const inChunks = async (total: number, statement: (from: number, to: number) => Promise<unknown>) => {
    for (let from = 1; from <= total; from += CHUNK) await statement(from, Math.min(total, from + CHUNK - 1));
  };
  try {
    // Bench data only: no triggers (the audit chain's, the read cache's notifications) and no foreign-key checks.
    await sql`set session_replication_role = replica`;
    const [demo] = await sql<{ id: string }[]>`select id from organizations where slug = 'demo'`;
    if (!demo) throw new Error('no demo organization on the big database');
    const others = sizes.orgs - 1;
    // Deterministic ids (md5 of a name) let every table refer to the others without a join.
    await timed('organizations', () => sql`insert into organizations (id, slug, name) select md5('org-' || g)::uuid, 'scale-' || g, 'Scale organization ' || g from generate_series(1, ${others}) g`);
    await timed('people', () =>
      inChunks(sizes.people, (from, to) => sql`
        insert into users (id, email, name, password_hash, email_verified_at)
        select md5('person-' || g)::uuid, 'person-' || g || '@scale.test', 'Person ' || g, null, now() from generate_series(${from}::int, ${to}::int) g`),
    );
    await timed('memberships', () =>
      inChunks(sizes.people, (from, to) => sql`
        insert into memberships (org_id, user_id, role, email)
        select case when g <= ${sizes.demoMembers} then ${demo.id}::uuid else md5('org-' || (1 + g % ${others}))::uuid end,
          md5('person-' || g)::uuid, (case when g % 50 = 0 then 'admin' else 'member' end)::membership_role, 'person-' || g || '@scale.test'
        from generate_series(${from}::int, ${to}::int) g`),
    );
    await timed('apps and their clients', async () => {
      await sql`
        insert into apps (id, org_id, slug, name, publish_origin, identity)
        select md5('app-' || g)::uuid, md5('org-' || (1 + g % ${others}))::uuid, 'app-' || g, 'Scale app ' || g, 'https://app-' || g || '.scale.test', 'https://app-' || g || '.scale.test'
        from generate_series(1, ${sizes.apps}) g`;
      await sql`
        insert into clients (id, kind, type, org_id, app_id, name, token_endpoint_auth_method, secret_generation)
        select 'scale-app-' || g, 'app', 'confidential', md5('org-' || (1 + g % ${others}))::uuid, md5('app-' || g)::uuid, 'Scale app ' || g, 'client_secret_basic', 1
        from generate_series(1, ${sizes.apps}) g`;
    });
    // Live provider rows, as the sweeper leaves them: tokens, grants, sessions, a share of consumed refresh tokens
    // (its tripwires), spread over the people and the apps' clients.
    await timed('provider rows', () =>
      inChunks(sizes.providerRows, (from, to) => sql`
        insert into oidc_payloads (id, kind, payload, grant_id, uid, expires_at, consumed_at, account_id, client_id)
        select md5('payload-' || g), kind, jsonb_build_object('kind', kind, 'jti', md5('payload-' || g), 'iat', 1700000000, 'exp', 1900000000, 'accountId', md5('person-' || (1 + g % ${sizes.people}))::uuid::text, 'clientId', 'scale-app-' || (1 + g % ${sizes.apps})),
          case when kind in ('AccessToken', 'RefreshToken', 'Grant') then 'grant-' || (g / 4) end,
          case when kind in ('Session', 'Interaction') then md5('uid-' || g) end,
          now() + make_interval(days => 1 + g % 30),
          case when kind = 'RefreshToken' and g % 2 = 0 then now() - make_interval(hours => g % 160) end,
          md5('person-' || (1 + g % ${sizes.people}))::uuid::text, 'scale-app-' || (1 + g % ${sizes.apps})
        from (select g, (array['AccessToken', 'AccessToken', 'AccessToken', 'AccessToken', 'RefreshToken', 'RefreshToken', 'RefreshToken', 'Grant', 'Grant', 'Session'])[1 + g % 10] as kind
              from generate_series(${from}::int, ${to}::int) g) generated`),
    );
    // Audit events: the demo organization's chain, then the others' (placeholder hashes: no trigger runs).
    const perOther = Math.floor((sizes.auditEvents - sizes.demoEvents) / others);
    const actions = `array['app.created','member.added','member.removed','member.role_changed','sign_in.succeeded','sign_in.failed','approval.requested','approval.approved','approval.denied','token.revoked','client.registered','app.updated','team.created','webhook.added','domain.verified','consent.granted','consent.revoked','user.disabled','session.ended','grant.revoked']`;
    const eventColumns = (org: string, seq: string, total: string) => sql.unsafe(`
      ${org}, now() - make_interval(secs => (${total} - ${seq})), 'person', md5('person-' || (1 + ${seq} % ${sizes.people}))::uuid::text,
      'person-' || (1 + ${seq} % ${sizes.people}) || '@scale.test', (${actions})[1 + ${seq} % 20], 'person',
      md5('person-' || (1 + (${seq} * 7) % ${sizes.people}))::uuid::text, 'Person ' || (1 + (${seq} * 7) % ${sizes.people}),
      '{}'::jsonb, ${seq}, md5('prev-' || ${org}::text || ${seq}), md5('hash-' || ${org}::text || ${seq})`);
    await timed('audit events', async () => {
      await inChunks(sizes.demoEvents, (from, to) => sql`
        insert into audit_events (org_id, occurred_at, actor_type, actor_id, actor_label, action, subject_type, subject_id, subject_label, details, chain_seq, prev_hash, hash)
        select ${eventColumns(`'${demo.id}'::uuid`, 'g', String(sizes.demoEvents))} from generate_series(${from}::int, ${to}::int) g`);
      // The other organizations' events, a block of organizations per statement (about CHUNK events each).
      const orgsPerStatement = Math.max(1, Math.floor(CHUNK / Math.max(1, perOther)));
      for (let first = 1; first <= others; first += orgsPerStatement) {
        const last = Math.min(others, first + orgsPerStatement - 1);
        await sql`
          insert into audit_events (org_id, occurred_at, actor_type, actor_id, actor_label, action, subject_type, subject_id, subject_label, details, chain_seq, prev_hash, hash)
          select ${eventColumns(`md5('org-' || o)::uuid`, 's', String(perOther))}
          from generate_series(${first}::int, ${last}::int) o, generate_series(1, ${perOther}::int) s`;
      }
      // Each chain's head where its seeded events end, so that new events chain on after them.
      await sql`
        insert into audit_chain_heads (chain, last_seq, last_hash)
        select ${demo.id}::text, ${sizes.demoEvents}::bigint, md5('hash-' || ${demo.id}::text || ${sizes.demoEvents}::text)
        union all
        select md5('org-' || o)::uuid::text, ${perOther}::bigint, md5('hash-' || md5('org-' || o)::uuid::text || ${perOther}::text) from generate_series(1, ${others}::int) o
        on conflict (chain) do update set last_seq = excluded.last_seq, last_hash = excluded.last_hash`;
    });
    await sql`reset session_replication_role`;
    await timed('vacuum analyze', () => sql`vacuum (analyze)`);
    const [size] = await sql<{ size: string }[]>`select pg_size_pretty(pg_database_size(current_database())) as size`;
    log(`  big database: ${size!.size}`);
    return seconds;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** The console session of the demo organization's owner, on one Portico. */
async function consoleCookie(origin: string): Promise<string> {
  const response = await fetch(`${origin}/console/session`, {
    method: 'POST',
    redirect: 'manual',
    headers: { Origin: ISSUER, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email: demoClient.email, password: demoClient.password }).toString(),
  });
  const cookie = response.headers.getSetCookie().map((line) => line.split(';')[0]).join('; ');
  if (response.status !== 303 || !cookie) throw new Error(`console sign-in on ${origin}: ${response.status}`);
  return cookie;
}

const MCP_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-11-25' };
const MCP_CALL = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } });

/** What a scenario needs on one Portico, made before any measurement. */
interface Side {
  server: ServerProcess;
  session: PorticoSession;
  consoleCookie: string;
  mcp: { token: string; sessionId: string };
}

async function prepareSide(server: ServerProcess): Promise<Side> {
  const session = new PorticoSession(server.url);
  const token = await porticoApiToken(session);
  const initialize = await fetch(`${server.url}/api/mcp`, {
    method: 'POST',
    headers: { ...MCP_HEADERS, Authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }),
  });
  const sessionId = initialize.headers.get('mcp-session-id');
  if (!sessionId) throw new Error(`initialize on ${server.url}: ${initialize.status}`);
  return { server, session, consoleCookie: await consoleCookie(server.url), mcp: { token, sessionId } };
}

const SCENARIOS: { name: string; run: (side: Side) => Promise<Figures> }[] = [
  { name: 'refresh grant', run: (side) => porticoRefreshRun(side.session, side.server) },
  {
    name: 'password sign-in',
    run: async (side) => {
      const amount = 200;
      const interactions: { path: string; cookie: string }[] = [];
      for (let index = 0; index < amount; index += 1) interactions.push(await interaction(side.server.url));
      const body = new URLSearchParams({ email: demoClient.email, password: demoClient.password }).toString();
      return load(
        { url: `${side.server.url}/auth/app/x/login`, method: 'POST', connections: 8, amount, headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, requestAt: (index) => ({ path: interactions[index]!.path, body, headers: { cookie: interactions[index]!.cookie } }), expectStatus: 303, accept: (headers) => !String(headers?.location ?? '').includes('error=') },
        side.server.pid,
      );
    },
  },
  {
    name: 'authorized MCP call',
    run: (side) => load({ url: `${side.server.url}/api/mcp`, method: 'POST', connections: 16, amount: 6000, headers: { ...MCP_HEADERS, Authorization: `Bearer ${side.mcp.token}`, 'Mcp-Session-Id': side.mcp.sessionId }, body: MCP_CALL }, side.server.pid),
  },
  { name: 'console: members page (the first 100)', run: (side) => load({ url: `${side.server.url}/console/demo/members`, method: 'GET', connections: 4, amount: 200, maxSeconds: 120, headers: { cookie: side.consoleCookie } }, side.server.pid) },
  { name: 'console: audit page (the newest 50)', run: (side) => load({ url: `${side.server.url}/console/demo/audit`, method: 'GET', connections: 4, amount: 300, maxSeconds: 120, headers: { cookie: side.consoleCookie } }, side.server.pid) },
  {
    name: 'console: audit search (an actor with two events)',
    run: (side) => load({ url: `${side.server.url}/console/demo/audit?actor=person-17%40scale.test`, method: 'GET', connections: 4, amount: 300, maxSeconds: 120, headers: { cookie: side.consoleCookie } }, side.server.pid),
  },
];

export async function runScaleBench(argv: string[]): Promise<void> {
  const env = envOrExit();
  if (!env.DATABASE_URL) {
    console.error('The scale bench runs on PostgreSQL: set DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/postgres).');
    process.exit(2);
  }
  ensureBuild();
  const fraction = fractionOf(argv);
  const only = onlyOf(argv);
  const scenarios = only ? SCENARIOS.filter((scenario) => scenario.name.includes(only)) : SCENARIOS;
  if (scenarios.length === 0) {
    console.error(`No scenario's name holds "${only}". Scenarios: ${SCENARIOS.map((scenario) => scenario.name).join(', ')}`);
    process.exit(2);
  }
  const profile = argv.includes('--profile') ? ['--cpu-prof', `--cpu-prof-dir=${repoPath('bench', 'results', 'profiles')}`] : [];
  const sizes = Object.fromEntries(Object.entries(FULL).map(([key, value]) => [key, Math.max(key === 'orgs' ? 2 : 1, Math.round(value * fraction))])) as typeof FULL;
  const baseUrl = env.DATABASE_URL;
  const secretKey = randomBytes(32).toString('base64url');
  const urls: string[] = [];
  const servers: ServerProcess[] = [];
  const log = (line: string) => console.log(line);
  try {
    const bigUrl = await createScratchPostgres(baseUrl, 'portico_scale_big');
    urls.push(bigUrl);
    const emptyUrl = await createScratchPostgres(baseUrl, 'portico_scale_empty');
    urls.push(emptyUrl);
    const admin = postgres(baseUrl, { max: 1, onnotice: () => {} });
    // As the other benches: CPU, not this machine's disk, is measured (docs/benchmarks.md).
    for (const url of urls) await admin.unsafe(`alter database "${new URL(url).pathname.slice(1)}" set synchronous_commit = off`);
    await admin.end({ timeout: 5 });
    const start = (url: string, port: number) => startPorticoForBench(url, mkdtempSync(path.join(tmpdir(), 'portico-scale-')), { secretKey, nodeOptions: [...PRODUCTION_NODE_FLAGS, ...profile], port });

    // The schema and the demo seed first (Portico's own start), then the bulk, with no Portico running.
    log(`Seeding the big database (fraction ${fraction}: ${JSON.stringify(sizes)})…`);
    await (await start(bigUrl, BIG_PORT)).stop();
    const seedSeconds = await seed(bigUrl, sizes, log);
    // The empty database holds a page's worth in the demo organization (150 members, 200 events, two of them the
    // searched actor's), so both sides render the same pages and the ratio is what the big database's size costs.
    await (await start(emptyUrl, EMPTY_PORT)).stop();
    await seed(emptyUrl, PAGE_WORTH, () => {});
    const big = await start(bigUrl, BIG_PORT);
    servers.push(big);
    const empty = await start(emptyUrl, EMPTY_PORT);
    servers.push(empty);
    const sides = { big: await prepareSide(big), empty: await prepareSide(empty) };

    const rows: ScaleRow[] = [];
    for (const scenario of scenarios) {
      log(`\n▶ ${scenario.name}`);
      // A warm-up run on each side, not counted (JIT, caches, the first page render).
      await scenario.run(sides.big);
      await scenario.run(sides.empty);
      const { portico: onBig, baseline: onEmpty } = await alternate(() => scenario.run(sides.big), () => scenario.run(sides.empty));
      const row: ScaleRow = {
        name: scenario.name,
        big: onBig,
        empty: onEmpty,
        costRatio: round2(onEmpty.requestsPerSecond / Math.max(0.01, onBig.requestsPerSecond)),
        p50Ratio: round2(onBig.p50Ms / Math.max(0.01, onEmpty.p50Ms)),
        p99Ratio: round2(onBig.p99Ms / Math.max(0.01, onEmpty.p99Ms)),
      };
      rows.push(row);
      for (const [label, figures] of [['big database', onBig], ['empty database', onEmpty]] as const) {
        log(`  ${label.padEnd(16)} ${String(figures.requestsPerSecond).padStart(7)}/s  p50 ${figures.p50Ms} ms  p99 ${figures.p99Ms} ms  errors ${figures.errors}  CPU/req: server ${figures.serverCpuUs ?? '?'} µs, PostgreSQL ${figures.postgresCpuUs ?? '?'} µs  writes/req: ${figures.writeTransactions ?? '?'} transactions, ${figures.walBytes ?? '?'} B of WAL  peak RSS ${figures.peakRssMb ?? '?'} MB`);
      }
      log(`  cost on the big database: ${row.costRatio}× (p50 ${row.p50Ratio}×, p99 ${row.p99Ratio}×)`);
    }

    const machine = { cores: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', memoryGb: Math.round(totalmem() / 1024 ** 3), node: process.version };
    const date = new Date().toISOString().slice(0, 10);
    writeFileSync(repoPath('bench', 'results', `${date}-scale${fraction === 1 ? '' : `-${fraction}`}${only ? '-partial' : ''}.json`), `${JSON.stringify({ date, machine, fraction, only, sizes, seedSeconds, rows }, null, 2)}\n`);
    writeTable(date, machine, fraction, sizes, seedSeconds, rows, only === undefined);
  } finally {
    for (const server of servers.reverse()) await server.stop().catch(() => {});
    for (const url of urls) await dropScratchPostgres(baseUrl, url).catch(() => {});
  }
}

const cpuCell = (figures: Figures) => (figures.serverCpuUs !== undefined ? `${figures.serverCpuUs} / ${figures.postgresCpuUs}` : '—');

/** The table between the scale markers of docs/benchmarks.md. */
function writeTable(date: string, machine: { cores: number; cpu: string; memoryGb: number; node: string }, fraction: number, sizes: typeof FULL, seedSeconds: Record<string, number>, rows: ScaleRow[], whole: boolean) {
  const seeded = Object.values(seedSeconds).reduce((sum, value) => sum + value, 0);
  const lines = [
    `Measured ${date} on ${machine.cores} cores (${machine.cpu}), ${machine.memoryGb} GB, Node ${machine.node}, PostgreSQL on the same machine (synchronous_commit off).`,
    `Big database: ${sizes.people.toLocaleString('en')} people, ${sizes.orgs.toLocaleString('en')} organizations, ${sizes.apps.toLocaleString('en')} apps and clients, ${sizes.providerRows.toLocaleString('en')} provider rows, ${sizes.auditEvents.toLocaleString('en')} audit events (the demo organization: ${sizes.demoMembers.toLocaleString('en')} members, ${sizes.demoEvents.toLocaleString('en')} events)${fraction === 1 ? '' : ` — fraction ${fraction} of the full sizes`}; seeded in ${Math.round(seeded / 60)} min. The empty database holds a page's worth in the demo organization (${PAGE_WORTH.demoMembers} members, ${PAGE_WORTH.demoEvents} events), so that both render the same pages. Medians of 3 alternating rounds after a warm-up; CPU per request in µs: server / PostgreSQL.`,
    '',
    '| request | big database | empty database | cost on the big one | CPU/req big | CPU/req empty |',
    '|---|---|---|---|---|---|',
    ...rows.map((row) => `| ${row.name} | ${row.big.requestsPerSecond}/s · p50 ${row.big.p50Ms} · p99 ${row.big.p99Ms} ms | ${row.empty.requestsPerSecond}/s · p50 ${row.empty.p50Ms} · p99 ${row.empty.p99Ms} ms | ${row.costRatio}× (p50 ${row.p50Ratio}×, p99 ${row.p99Ratio}×) | ${cpuCell(row.big)} | ${cpuCell(row.empty)} |`),
  ];
  if (!whole) {
    console.log(`\n(a partial run: the table is printed only)\n${lines.join('\n')}`);
    return;
  }
  const file = repoPath('docs', 'benchmarks.md');
  const text = readFileSync(file, 'utf8');
  const begin = '<!-- scale:begin -->';
  const end = '<!-- scale:end -->';
  const start = text.indexOf(begin);
  const stop = text.indexOf(end);
  if (start < 0 || stop < start) {
    console.log(`\n(docs/benchmarks.md has no ${begin} … ${end} markers: the table is printed only)\n${lines.join('\n')}`);
    return;
  }
  writeFileSync(file, `${text.slice(0, start + begin.length)}\n${lines.join('\n')}\n${text.slice(stop)}`);
  console.log('\ndocs/benchmarks.md: scale table rewritten.');
}
