// POST /central/session/end – logout: the session and its decision nonces end; nothing already decided is undone
// and no grant is revoked (revocation is explicit).
import { endCentralSession } from '@/lib/approvals/central';
import { db } from '@/lib/runtime';
import { centralCookie, centralSessionToken, sameOrigin } from '../../_lib/central';

export const dynamic = 'force-dynamic';

export async function POST(request: Request): Promise<Response> {
  if (!sameOrigin(request)) return new Response('Cross-origin request refused.', { status: 403, headers: { 'Content-Type': 'text/plain' } });
  await endCentralSession(db(), await centralSessionToken());
  return new Response(null, { status: 303, headers: { Location: '/central', 'Cache-Control': 'no-store', 'Set-Cookie': centralCookie(null) } });
}
