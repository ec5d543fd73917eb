// The console's list pages cost their own rows, not the organization's size: each statement behind a page of the
// members list or of the audit search reads, in every scan of its plan, at most the page (and the row that says
// there is another). The scale bench found the opposite twice (docs/benchmarks.md): the members page joined and sorted
// all 50,000 members of an organization, and an actor's search read two million events for its two. Measured with
// EXPLAIN ANALYZE on the statements the real functions send, whole reads priced out as on a big table.
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listMembersPage } from '../../lib/organizations/memberships';
import { createOrganization } from '../../lib/organizations/organizations';
import { searchAuditEvents, type AuditFilter } from '../../lib/audit/events';
import { drizzleFor, type Database } from '../../lib/db/client';
import { openTestDatabase, type TestDatabase } from '../support/databases';

const EVENTS = 1200;
const OTHER_EVENTS = 8000;
const EARLY_EVENTS = 2000;
const MEMBERS = 400;
const AUDIT_PAGE = 20;
const MEMBERS_PAGE = 50;

describe('what a page of the console costs', () => {
  let database: TestDatabase;
  let counted: Database;
  const sent: Array<{ query: string; parameters: unknown[] }> = [];
  let orgId: string;
  let earlyOrgId: string;
  const app = '00000000-0000-4000-8000-00000000c0de';

  beforeAll(async () => {
    database = await openTestDatabase();
    counted = drizzleFor(database.raw, { onQuery: (query, parameters) => sent.push({ query, parameters }) });
    const org = await createOrganization(database.db, { slug: `cost-${randomBytes(3).toString('hex')}`, name: 'Cost' });
    orgId = org.id;
    const other = await createOrganization(database.db, { slug: `cost-${randomBytes(3).toString('hex')}`, name: 'Others' });
    const early = await createOrganization(database.db, { slug: `cost-${randomBytes(3).toString('hex')}`, name: 'Early' });
    earlyOrgId = early.id;
    // An organization whose events all came before everyone else's, and are a large share of the log (as the scale
    // bench's demo organization is): its newest page must not be found by walking the whole log's newest events.
    await database.db.execute(sql`
      insert into audit_events (org_id, actor_type, actor_id, actor_label, action, subject_type, subject_id, subject_label)
      select ${earlyOrgId}::uuid, 'person', 'early-' || g, 'early-' || g || '@cost.test', 'member.added', 'person', 'early-' || g, 'Early ' || g
      from generate_series(1, ${EARLY_EVENTS}::int) g`);
    // Forty other organizations' events first (older), then this one's: as on a big installation, an organization is
    // a small share of the events and its actors are its own (the planner's statistics say so). One statement each,
    // through the trigger that chains events (the hashes are not what is measured here). The rare actor acted in
    // this organization's three oldest events only, the busy one in all the others, a fifth of them on the app.
    await database.db.execute(sql`
      insert into audit_events (org_id, actor_type, actor_id, actor_label, action, subject_type, subject_id, subject_label)
      select md5('cost-org-' || (g % 40))::uuid, 'person', 'other-' || g, 'other-' || g || '@cost.test', 'member.added', 'person', 'other-' || g, 'Other ' || g
      from generate_series(1, ${OTHER_EVENTS}::int) g`);
    await database.db.execute(sql`
      insert into audit_events (org_id, actor_type, actor_id, actor_label, action, subject_type, subject_id, subject_label, app_id)
      select ${orgId}::uuid, 'person', case when g <= 3 then 'rare-id' else 'busy-id' end,
        case when g <= 3 then 'Rare@Cost.test' else 'busy@cost.test' end,
        case when g % 5 = 0 then 'app.updated' else 'member.added' end, 'person', 'subject-' || (g % 7), 'Subject ' || (g % 7),
        case when g % 5 = 0 then ${app}::uuid end
      from generate_series(1, ${EVENTS}::int) g`);
    await database.db.execute(sql`
      insert into users (email, name) select 'member-' || lpad(g::text, 4, '0') || '@cost.test', 'Member ' || g from generate_series(1, ${MEMBERS * 2}::int) g`);
    await database.db.execute(sql`
      insert into memberships (org_id, user_id, role)
      select case when u.email < 'member-' || lpad(${MEMBERS + 1}::text, 4, '0') then ${orgId}::uuid else ${other.id}::uuid end, u.id, 'member'
      from users u where u.email like 'member-%@cost.test'`);
    await database.db.execute(sql`analyze audit_events`);
    await database.db.execute(sql`analyze memberships`);
    await database.db.execute(sql`analyze users`);
  });
  afterAll(async () => database?.close());

  /** The statements `work` sent, each with the most rows one scan of its plan read (returned plus filtered out). */
  async function costOf(work: (db: Database) => Promise<unknown>): Promise<Array<{ query: string; rowsPerScan: number; plan: AnalyzedNode }>> {
    sent.length = 0;
    await work(counted);
    const statements = [...sent];
    const costs = [];
    for (const { query, parameters } of statements) {
      const plan = await analyzed(database, query, parameters);
      costs.push({ query, rowsPerScan: Math.max(0, ...scans(plan).map(rowsRead)), plan });
    }
    return costs;
  }

  const auditSearches: Array<[string, AuditFilter]> = [
    ['everything', {}],
    ['a rare actor, by label in another case', { actor: 'rare@cost.TEST' }],
    ['a rare actor, by id', { actor: 'rare-id' }],
    ['a busy actor', { actor: 'busy@cost.test' }],
    ['a subject', { subject: 'subject 3' }],
    ['an action', { action: 'app.updated' }],
    ['an app', { appId: app }],
  ];
  it("reads an early organization's newest page, not the newer events of the others", async () => {
    const costs = await costOf((db) => searchAuditEvents(db, earlyOrgId, {}, { limit: AUDIT_PAGE }));
    expect(costs.length).toBeGreaterThan(0);
    for (const cost of costs) expect(cost.rowsPerScan, `${cost.query}\n${JSON.stringify(cost.plan, null, 1)}`).toBeLessThanOrEqual(AUDIT_PAGE + 1);
  });

  for (const [name, filter] of auditSearches) {
    it(`reads an audit search's page, not the organization's events: ${name}`, async () => {
      const costs = await costOf((db) => searchAuditEvents(db, orgId, filter, { limit: AUDIT_PAGE }));
      expect(costs.length).toBeGreaterThan(0);
      for (const cost of costs) expect(cost.rowsPerScan, `${cost.query}\n${JSON.stringify(cost.plan, null, 1)}`).toBeLessThanOrEqual(AUDIT_PAGE + 1);
    });
  }

  it("reads a members page, not the organization's members, and counts without reading the people", async () => {
    let nextAfter: string | undefined;
    for (const after of [undefined, 'member-0200@cost.test']) {
      const costs = await costOf(async (db) => {
        nextAfter = (await listMembersPage(db, orgId, { after, limit: MEMBERS_PAGE })).nextAfter;
      });
      expect(nextAfter).toBeDefined();
      const [page, total] = costs;
      expect(costs).toHaveLength(2);
      expect(page!.rowsPerScan, `${page!.query}\n${JSON.stringify(page!.plan, null, 1)}`).toBeLessThanOrEqual(MEMBERS_PAGE + 1);
      // The total is the organization's count of keys: it reads memberships only (an index of them), never users.
      expect(total!.query).toMatch(/count\(/);
      expect(scans(total!.plan).map((node) => node['Relation Name'] ?? node['Index Name'])).not.toContainEqual(expect.stringMatching(/^users/));
    }
  });
});

interface AnalyzedNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: AnalyzedNode[];
}

function scans(node: AnalyzedNode): AnalyzedNode[] {
  return [...(/Scan$/.test(node['Node Type']) ? [node] : []), ...(node.Plans ?? []).flatMap(scans)];
}

/** What a scan read: the rows it returned over all its loops, and those its filter threw away. */
function rowsRead(node: AnalyzedNode): number {
  return (node['Actual Rows'] ?? 0) * (node['Actual Loops'] ?? 1) + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0);
}

/**
 * On tables this small PostgreSQL rightly prefers to read every match and sort them; on a table of millions it must
 * not have to. Pricing out sequential scans, bitmap scans (which gather every match before anything is returned) and
 * sorts leaves the plan that reads a page in order from an index, when there is one: when there is none (an `or` of
 * two columns, a substring), the plan still reads everything, and the test sees it.
 */
const WHOLE_READS_PRICED_OUT = ['enable_seqscan', 'enable_bitmapscan', 'enable_sort'];

async function analyzed(database: TestDatabase, query: string, parameters: unknown[]): Promise<AnalyzedNode> {
  const explain = `explain (analyze, format json) ${query}`;
  const parse = (value: unknown) => ((typeof value === 'string' ? JSON.parse(value) : value) as { Plan: AnalyzedNode }[])[0]!.Plan;
  if (database.raw.kind === 'postgres') {
    return database.raw.sql.begin(async (tx) => {
      for (const setting of WHOLE_READS_PRICED_OUT) await tx.unsafe(`set local ${setting} = off`);
      const rows = await tx.unsafe(explain, parameters as never[]);
      return parse(Object.values(rows[0]!)[0]);
    });
  }
  return database.raw.pglite.transaction(async (tx) => {
    for (const setting of WHOLE_READS_PRICED_OUT) await tx.query(`set local ${setting} = off`);
    const result = await tx.query<Record<string, unknown>>(explain, parameters);
    return parse(Object.values(result.rows[0]!)[0]);
  });
}
