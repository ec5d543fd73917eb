// POST /api/apps/grants/check – an app asks the broker whether an operation is allowed now: {"subject", "actor"?,
// "kind": "sensitive_access"|"root_access", "resource"?, "profile"?}. Signed like the surface declaration (the app's
// surface secret; key id: its client id; 5 minutes; nonce once), so only the app itself can ask about its grants.
import { findActiveGrant, type ApprovalKind, type ApprovalProfile } from '@/lib/approvals/broker';
import { authenticateSignedAppCall } from '@/lib/clients/surface';
import { readCappedText } from '@/lib/http/body';
import { oauthError, parseJsonObject } from '@/lib/http/errors';
import { isUuid } from '@/lib/util/uuid';
import { db, runtime } from '@/lib/runtime';

export const dynamic = 'force-dynamic';

const refuse = oauthError;

export async function POST(request: Request): Promise<Response> {
  const database = db();
  const body = await readCappedText(request, 8 * 1024);
  if (body === undefined) return refuse(413, 'invalid_request', 'the body is larger than 8 KiB');
  const signed = await authenticateSignedAppCall(database, runtime().atRestKey, request, body);
  if (!signed.ok) return refuse(401, 'invalid_signature', signed.description);
  const { app } = signed;
  const query = parseJsonObject(body);
  if (!query.ok) return refuse(400, 'invalid_request', query.description);
  const { subject, actor, kind, resource, profile } = query.value;
  if (typeof subject !== 'string' || !isUuid(subject)) return refuse(400, 'invalid_request', 'subject must be the person’s id (the token’s sub)');
  if (kind !== 'sensitive_access' && kind !== 'root_access') return refuse(400, 'invalid_request', 'kind must be sensitive_access or root_access');
  if (actor !== undefined && actor !== null && typeof actor !== 'string') return refuse(400, 'invalid_request', 'actor must be the agent id (act.sub) or absent');
  if (kind === 'sensitive_access' && (typeof resource !== 'string' || (profile !== 'read' && profile !== 'work' && profile !== 'compose'))) {
    return refuse(400, 'invalid_request', 'sensitive_access needs resource (a path) and profile (read, work or compose)');
  }
  const grant = await findActiveGrant(database, {
    appId: app.appId,
    subjectUserId: subject,
    actor: typeof actor === 'string' ? actor : '',
    kind: kind as ApprovalKind,
    resource: typeof resource === 'string' ? resource : undefined,
    profile: profile as ApprovalProfile | undefined,
  });
  return Response.json(grant ? { granted: true, grant_id: grant.id, expires_at: grant.expiresAt?.toISOString() ?? null } : { granted: false }, { headers: { 'Cache-Control': 'no-store' } });
}
