// GET /central/api/requests – the pending requests this operator may decide (the central polls it: live updates).
import { listCentralRequests } from '@/lib/approvals/central';
import { db } from '@/lib/runtime';
import { currentCentralSession, sessionEndedResponse } from '../../_lib/central';

export const dynamic = 'force-dynamic';

export async function GET(): Promise<Response> {
  const session = await currentCentralSession();
  if (!session) return sessionEndedResponse();
  return Response.json({ requests: await listCentralRequests(db(), session.user) }, { headers: { 'Cache-Control': 'no-store' } });
}
