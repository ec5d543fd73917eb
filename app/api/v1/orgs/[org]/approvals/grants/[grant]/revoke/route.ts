// POST /api/v1/orgs/<org>/approvals/grants/<apg_…>/revoke – revokes a grant explicitly (the organization's operators,
// its owners). The app's next grant check is refused; nothing already done is undone.
import { ApprovalRefusal, revokeGrantIn } from '@/lib/approvals/broker';
import { ApiError, orgRoute } from '@/app/api/v1/_lib/rest';

export const dynamic = 'force-dynamic';

export const POST = orgRoute('approvals.decide', async ({ tx, org, params, caller, audit }) => {
  const grantId = String(params.grant ?? '');
  try {
    const grant = await revokeGrantIn(tx, grantId, caller.user.id, org.id);
    await audit({ action: 'approval.grant_revoked', subject: { type: 'approval_grant', id: grant.id }, appId: grant.appId, details: { requestId: grant.requestId } });
    return Response.json({ revoked: true, grant_id: grant.id, request_id: grant.requestId });
  } catch (error) {
    if (error instanceof ApprovalRefusal) throw new ApiError(404, 'not_found', 'no active grant with this id in this organization');
    throw error;
  }
});
