// GET /api/ready – readiness: the database is reachable and fully migrated. 503 otherwise. Either way `database` says
// what this process's connection went through: the outage going on, and the last one that ended (docs/deploy.md).
import { checkReadiness } from '@/lib/db/readiness';
import { db, runtime } from '@/lib/runtime';

export const dynamic = 'force-dynamic';

export async function GET() {
  const readiness = await checkReadiness(db());
  const { raw } = runtime();
  const database = raw.kind === 'postgres' ? raw.outages.snapshot() : { outage: null, lastOutage: null };
  return Response.json(readiness.ready ? { status: 'ready', database } : { status: 'not_ready', reason: readiness.reason, database }, {
    status: readiness.ready ? 200 : 503,
    headers: { 'Cache-Control': 'no-store' },
  });
}
