// POST /embedded-central/api/session/end – sign out of the embedded central: its session and decision nonces end;
// nothing already decided is undone.
import { endCentralSession } from '@/lib/approvals/central';
import { db } from '@/lib/runtime';
import { oauthError } from '@/lib/http/errors';
import { centralCookie, centralSessionToken, EMBEDDED_CENTRAL, sameOrigin } from '../../../../central/_lib/central';

export const dynamic = 'force-dynamic';

export async function POST(request: Request): Promise<Response> {
  if (!sameOrigin(request)) return oauthError(403, 'forbidden', 'cross-origin request refused');
  await endCentralSession(db(), await centralSessionToken(EMBEDDED_CENTRAL));
  return Response.json({ signed_in: false }, { headers: { 'Cache-Control': 'no-store', 'Set-Cookie': centralCookie(null, EMBEDDED_CENTRAL) } });
}
