// The plans of statements as PostgreSQL would run them on big tables, and the tables a plan reads whole: shared by
// the statement-count test (every statement of a hot request) and the sweeper's test (every rule's dead rows).
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../lib/db/client';
import type { TestDatabase } from './databases';

/** Each index's table, leading column, and whether it is partial (a partial index walked whole reads only its part). */
export type IndexLeads = Map<string, { table: string; lead: string | null; partial: boolean }>;

export async function indexLeads(database: TestDatabase): Promise<IndexLeads> {
  return new Map(
    rowsOf<{ name: string; table: string; lead: string | null; partial: boolean }>(
      await database.db.execute(sql`
        select c.relname as name, t.relname as table, a.attname as lead, i.indpred is not null as partial
        from pg_index i join pg_class c on c.oid = i.indexrelid join pg_class t on t.oid = i.indrelid
        left join pg_attribute a on a.attrelid = i.indrelid and a.attnum = i.indkey[0]`),
    ).map((row) => [row.name, row]),
  );
}

/**
 * The plan of a statement as PostgreSQL would run it with sequential scans priced out: a table the statement reads
 * whole still shows, as a `Seq Scan` or as an index scan with no index condition (the whole index walked, every row
 * filtered: a person's memberships read through the (org, person) key did that until the scale bench found it).
 * With a handful of rows, PostgreSQL would scan anyway; with a million it must not have to (docs/benchmarks.md).
 */
export async function planOf(database: TestDatabase, query: string, parameters: unknown[]): Promise<PlanNode> {
  const explain = `explain (format json) ${query}`;
  const parse = (value: unknown) => ((typeof value === 'string' ? JSON.parse(value) : value) as { Plan: PlanNode }[])[0]!.Plan;
  if (database.raw.kind === 'postgres') {
    return database.raw.sql.begin(async (tx) => {
      await tx.unsafe('set local enable_seqscan = off');
      const rows = await tx.unsafe(explain, parameters as never[]);
      return parse(Object.values(rows[0]!)[0]);
    });
  }
  const pglite = database.raw.pglite;
  return pglite.transaction(async (tx) => {
    await tx.query('set local enable_seqscan = off');
    const result = await tx.query<Record<string, unknown>>(explain, parameters);
    return parse(Object.values(result.rows[0]!)[0]);
  });
}

export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}

/**
 * The tables a plan reads whole: sequential scans, and scans of a whole (not partial) index whose condition does not
 * bound its leading column (PostgreSQL 15 walks all of it then: a person's memberships through the (org, person) key).
 */
export function wholeReads(node: PlanNode, indexes: IndexLeads): string[] {
  const type = node['Node Type'];
  const index = indexes.get(node['Index Name'] ?? '');
  const cond = node['Index Cond'] ?? '';
  const unbounded = !cond || (index?.lead ? !new RegExp(`\\b${index.lead}\\b`).test(cond) : false);
  const wholeIndex = /^(Index|Index Only|Bitmap Index) Scan$/.test(type) && unbounded && !index?.partial;
  const whole = type === 'Seq Scan' || wholeIndex;
  const table = node['Relation Name'] ?? index?.table;
  return [...(whole && table ? [table] : []), ...(node.Plans ?? []).flatMap((child) => wholeReads(child, indexes))];
}

