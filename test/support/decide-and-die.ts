// A child process for the crash tests: opens the database, starts a decision, and kills itself with SIGKILL right
// after the named write inside the decision's transaction (`none`: lets it finish). Argument: a JSON object
// { database: { url } | { dir }, requestId, fingerprint, dieAfter: 'decision' | 'grant' | 'none' }.
import { decideApprovalRequest } from '../../lib/approvals/broker';
import { drizzleFor, openRawDatabase } from '../../lib/db/client';
import { postgresOptions } from './databases';

const input = JSON.parse(process.argv[2] ?? '{}') as { database: { url?: string; dir?: string }; requestId: string; fingerprint: string; dieAfter: 'decision' | 'grant' | 'none' };
const raw = await openRawDatabase(input.database.url ? postgresOptions(input.database.url, { poolSize: 2 }) : { embeddedLocation: input.database.dir! });
const db = drizzleFor(raw);
await decideApprovalRequest(db, {
  requestId: input.requestId,
  decision: 'approve',
  fingerprint: input.fingerprint,
  channel: 'cli',
  decidedBy: 'cli:crash-test',
  actor: { type: 'operator_cli', label: 'cli:crash-test' },
  afterWrite: async (step) => {
    if (step === input.dieAfter) process.kill(process.pid, 'SIGKILL');
  },
});
await raw.close();
process.stdout.write('decided\n');
