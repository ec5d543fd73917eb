// Approval decisions through the broker's decision function (decision, grant and audit event in one transaction),
// 32 at a time, on the bench database. Absolute figures; afterwards the grants must equal the approvals made.
import { randomBytes } from 'node:crypto';
import { and, count, eq, inArray } from 'drizzle-orm';
import { addMember } from '../lib/organizations/memberships';
import { findOrganizationBySlug } from '../lib/organizations/organizations';
import { createUser } from '../lib/accounts/users';
import { createApprovalRequest, decideApprovalRequest, type ApprovalRequest } from '../lib/approvals/broker';
import { listApps } from '../lib/clients/apps';
import { approvalGrants } from '../lib/db/schema';
import { measureInProcess, median, type Figures, type ScenarioResult } from './lib/harness';
import type { BenchContext } from './run';

const CONCURRENCY = 32;
const ROUNDS = 4;
// Under the broker's queue limits: 64 pending a subject, 256 an app.
const SUBJECTS = 5;
const PER_SUBJECT = 50;

export async function approvalDecision(ctx: BenchContext): Promise<ScenarioResult> {
  const { db } = ctx.env;
  const org = (await findOrganizationBySlug(db, 'demo'))!;
  const app = (await listApps(db, 'demo'))[0]!.app;
  const subjects = [];
  for (let index = 0; index < SUBJECTS; index += 1) {
    const user = await createUser(db, { email: `bench-${randomBytes(4).toString('hex')}@bench.test`, name: 'Bench', passwordHash: 'x' });
    await addMember(db, { orgId: org.id, userId: user.id, role: 'member' });
    subjects.push(user);
  }
  const runs: Figures[] = [];
  const decided: string[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const requests: ApprovalRequest[] = [];
    for (const subject of subjects) {
      for (let index = 0; index < PER_SUBJECT; index += 1) {
        requests.push(await createApprovalRequest(db, { orgId: org.id, appId: app.id, subjectUserId: subject.id, clientId: 'bench', kind: 'sensitive_access', resource: `/bench/${round}/${index}`, profile: 'read', durationSeconds: 3600, reason: 'bench' }, { type: 'person', id: subject.id }));
      }
    }
    runs.push(
      await measureInProcess(async (index) => {
        const request = requests[index]!;
        await decideApprovalRequest(db, { requestId: request.id, decision: 'approve', fingerprint: request.fingerprint, channel: 'cli', decidedBy: 'cli:bench', actor: { type: 'operator_cli', label: 'cli:bench' } });
      }, requests.length, CONCURRENCY),
    );
    decided.push(...requests.map((request) => request.id));
  }
  const [grants] = await db.select({ n: count() }).from(approvalGrants).where(and(inArray(approvalGrants.requestId, decided), eq(approvalGrants.appId, app.id)));
  const figures = median(runs);
  if (grants!.n !== decided.length - figures.errors) throw new Error(`grants (${grants!.n}) differ from approvals made (${decided.length - figures.errors})`);
  return { name: 'approval decision', portico: figures, notes: [`${CONCURRENCY} concurrent, ${ROUNDS} rounds of ${SUBJECTS * PER_SUBJECT}; checked afterwards: ${grants!.n} grants = ${decided.length - figures.errors} approvals`] };
}
