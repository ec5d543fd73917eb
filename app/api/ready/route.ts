// GET /api/ready – readiness: the database is reachable and fully migrated. 503 otherwise.
import { checkReadiness } from '@/lib/db/readiness';
import { db } from '@/lib/runtime';

export const dynamic = 'force-dynamic';

export async function GET() {
  const readiness = await checkReadiness(db());
  return Response.json(readiness.ready ? { status: 'ready' } : { status: 'not_ready', reason: readiness.reason }, {
    status: readiness.ready ? 200 : 503,
    headers: { 'Cache-Control': 'no-store' },
  });
}
