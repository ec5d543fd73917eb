// POST /central/api/revocations {"grant_id"} – an operator revokes a grant from the central (explicitly: logging out
// never revokes anything).
import { revokeInCentral } from '@/lib/approvals/central';
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { db } from '@/lib/runtime';
import { oauthError, readJsonObject } from '@/lib/http/errors';
import { centralBinding, centralSessionToken, refusalResponse, sameOrigin } from '../../_lib/central';

export const dynamic = 'force-dynamic';

export async function POST(request: Request): Promise<Response> {
  if (!sameOrigin(request)) return oauthError(403, 'forbidden', 'cross-origin request refused');
  const read = await readJsonObject(request, 4096);
  const body = read.ok ? read.value : undefined;
  if (typeof body?.grant_id !== 'string') return oauthError(400, 'invalid_request', 'send {"grant_id": "apg_…"}');
  try {
    const grant = await revokeInCentral(db(), { sessionToken: await centralSessionToken(), grantId: body.grant_id, ip: clientIpFromHeaders(request.headers) }, centralBinding());
    return Response.json({ revoked: true, grant_id: grant.id, request_id: grant.requestId }, { headers: { 'Cache-Control': 'no-store' } });
  } catch (error) {
    const answer = await refusalResponse(error);
    if (answer) return answer;
    throw error;
  }
}
