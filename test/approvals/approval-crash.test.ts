// Crash safety of a decision: the process deciding is killed with SIGKILL right after the decision row, or right
// after the grant row, inside the transaction. Afterwards the request is still pending, with no grant and no audit
// event: the whole decision or none. Then a decision that completes writes all three. On the embedded database the
// child works on a data folder of its own, which must also reopen after the kill.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createApprovalRequest } from '../../lib/approvals/broker';
import { drizzleFor, openRawDatabase, type RawDatabase } from '../../lib/db/client';
import { migrateDatabase } from '../../lib/db/migrate';
import { approvalGrants, approvalRequests, auditEvents } from '../../lib/db/schema';
import { openTestDatabase, postgresOptions, type TestDatabase } from '../support/databases';
import { createMember, createOrgWithApp } from '../support/provider-harness';

async function openWhere(location: { url?: string; dir?: string }): Promise<{ raw: RawDatabase; database: TestDatabase }> {
  const raw = await openRawDatabase(location.url ? postgresOptions(location.url, { poolSize: 2 }) : { embeddedLocation: location.dir! });
  await migrateDatabase(raw);
  return { raw, database: { raw, db: drizzleFor(raw), kind: location.url ? 'postgres' : 'pglite', close: () => raw.close() } };
}

describe('a decision killed mid-transaction', () => {
  it('leaves the whole decision or none: never a grant without its decision and audit event', async () => {
    const scratch = await openTestDatabase();
    // PostgreSQL: the scratch database. Embedded: a data folder the child process opens after we close it.
    const location = scratch.url ? { url: scratch.url } : { dir: path.join(mkdtempSync(path.join(tmpdir(), 'portico-crash-')), 'pglite') };
    let { raw, database } = scratch.url ? { raw: scratch.raw, database: scratch } : await openWhere(location);
    const fixture = await createOrgWithApp(database, 'Crash');
    const asker = await createMember(database, fixture.orgId, `crash-${randomBytes(3).toString('hex')}@crash.test`);
    const requests = await Promise.all(
      ['decision', 'grant', 'none'].map(() =>
        createApprovalRequest(database.db, { orgId: fixture.orgId, appId: fixture.app.id, subjectUserId: asker.id, clientId: 'c', kind: 'root_access', durationSeconds: 600, reason: 'crash test' }, { type: 'person', id: asker.id }),
      ),
    );
    if (!scratch.url) await raw.close();

    const outcomes: number[] = [];
    for (const [index, dieAfter] of (['decision', 'grant', 'none'] as const).entries()) {
      const request = requests[index]!;
      const child = spawnSync(process.execPath, ['--import', 'tsx', 'test/support/decide-and-die.ts', JSON.stringify({ database: location, requestId: request.id, fingerprint: request.fingerprint, dieAfter })], { encoding: 'utf8', timeout: 60_000 });
      if (dieAfter === 'none') expect(child.stdout, child.stderr).toContain('decided');
      else expect(child.signal, child.stderr).toBe('SIGKILL');
      outcomes.push(child.status ?? -1);
    }

    // The embedded data folder reopens after the kills.
    if (!scratch.url) ({ raw, database } = await openWhere(location));
    const stateOf = async (id: string) => {
      const [request] = await database.db.select().from(approvalRequests).where(eq(approvalRequests.id, id));
      const grants = await database.db.select().from(approvalGrants).where(eq(approvalGrants.requestId, id));
      const decisions = await database.db.select().from(auditEvents).where(sql`${auditEvents.subjectId} = ${id} and ${auditEvents.action} = 'approval.approved'`);
      return `${request!.state}/${grants.length}/${decisions.length}`;
    };
    expect(await stateOf(requests[0]!.id)).toBe('pending/0/0');
    expect(await stateOf(requests[1]!.id)).toBe('pending/0/0');
    expect(await stateOf(requests[2]!.id)).toBe('approved/1/1');
    if (!scratch.url) await raw.close();
    await scratch.close();
  }, 120_000);
});
