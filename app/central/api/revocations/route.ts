// POST /central/api/revocations {"grant_id"} – an operator revokes a grant from the central (explicitly: logging out
// never revokes anything).
import { ApprovalRefusal } from '@/lib/approvals/broker';
import { revokeInCentral } from '@/lib/approvals/central';
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { db } from '@/lib/runtime';
import { centralBinding, centralSessionToken, jsonError, readJsonObject, sameOrigin } from '../../_lib/central';

export const dynamic = 'force-dynamic';

export async function POST(request: Request): Promise<Response> {
  if (!sameOrigin(request)) return jsonError(403, 'forbidden', 'cross-origin request refused');
  const body = await readJsonObject(request, 4096);
  if (typeof body?.grant_id !== 'string') return jsonError(400, 'invalid_request', 'send {"grant_id": "apg_…"}');
  try {
    const grant = await revokeInCentral(db(), { sessionToken: await centralSessionToken(), grantId: body.grant_id, ip: clientIpFromHeaders(request.headers) }, centralBinding());
    return Response.json({ revoked: true, grant_id: grant.id, request_id: grant.requestId }, { headers: { 'Cache-Control': 'no-store' } });
  } catch (error) {
    if (error instanceof ApprovalRefusal) return jsonError(error.code === 'session' ? 401 : 404, error.code, error.message);
    throw error;
  }
}
