// POST /api/v1/orgs/<org>/approvals/grants/<apg_…>/revoke – revokes a grant explicitly (the organization's operators,
// the app's operators: designated people, or its owners when none are). The app's next grant check is refused; nothing already done is undone.
import { ApprovalRefusal, revokeGrantIn } from '@/lib/approvals/broker';
import { ApiError, orgRoute } from '@/app/api/v1/_lib/rest';

export const dynamic = 'force-dynamic';

export const POST = orgRoute('org.read', async ({ tx, org, params, caller, audit }) => {
  const grantId = String(params.grant ?? '');
  try {
    const grant = await revokeGrantIn(tx, grantId, caller.user.id, { orgId: org.id, operatorUserId: caller.user.id });
    await audit({ action: 'approval.grant_revoked', subject: { type: 'approval_grant', id: grant.id }, appId: grant.appId, details: { requestId: grant.requestId } });
    return Response.json({ revoked: true, grant_id: grant.id, request_id: grant.requestId });
  } catch (error) {
    if (error instanceof ApprovalRefusal) throw new ApiError(404, 'not_found', 'no active grant with this id that you may revoke (its app’s operators, or the owners when it has none)');
    throw error;
  }
});
