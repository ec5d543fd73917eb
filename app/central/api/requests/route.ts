// GET /central/api/requests – the pending requests this operator may decide (the central polls it: live updates).
import { listCentralRequests } from '@/lib/approvals/central';
import { db } from '@/lib/runtime';
import { currentCentralSession } from '../../_lib/central';
import { oauthError } from '@/lib/http/errors';

export const dynamic = 'force-dynamic';

export async function GET(): Promise<Response> {
  const session = await currentCentralSession();
  if (!session) return oauthError(401, 'session', 'your central session has ended: sign in again');
  return Response.json({ requests: await listCentralRequests(db(), session.user) }, { headers: { 'Cache-Control': 'no-store' } });
}
