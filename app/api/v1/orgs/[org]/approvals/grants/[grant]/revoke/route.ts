// POST /api/v1/orgs/<org>/approvals/grants/<apg_…>/revoke – revokes a grant explicitly (the organization's operators,
// the app's operators: designated people, or its owners when none are). The app's next grant check is refused; nothing already done is undone.
import { revokeGrantIn } from '@/lib/approvals/broker';
import { orgRoute } from '@/app/api/v1/_lib/rest';

export const dynamic = 'force-dynamic';

export const POST = orgRoute('org.read', async ({ tx, org, params, caller, audit }) => {
  const grantId = String(params.grant ?? '');
  const grant = await revokeGrantIn(tx, grantId, caller.user.id, { orgId: org.id, operatorUserId: caller.user.id });
  await audit({ action: 'approval.grant_revoked', subject: { type: 'approval_grant', id: grant.id }, appId: grant.appId, details: { requestId: grant.requestId } });
  return Response.json({ revoked: true, grant_id: grant.id, request_id: grant.requestId });
}, {
  // A grant revoked already, another organization's, or one the caller may not revoke: all the same answer.
  restated: { already_revoked: { status: 404, error: 'not_found', description: 'no active grant with this id that you may revoke (its app’s operators, or the owners when it has none)' } },
});
