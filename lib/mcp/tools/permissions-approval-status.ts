import { z } from 'zod';
import { approvalStatusFor } from '../../approvals/broker';
import { approvalAnswer } from '../approval-answer';
import { json, type PorticoTool } from '../context';

const shape = { request_id: z.string().min(1).max(64).describe('The apr_… id the request answered with.') };

export const permissionsApprovalStatus: PorticoTool<typeof shape> = {
  name: 'permissions.approval_status',
  description: 'The state of one of your approval requests: pending, approved (grant active), denied, cancelled, request_expired, grant_expired, grant_revoked, or unknown. Only approved means access exists.',
  riskLevel: 'safe',
  inputSchema: shape,
  run: async ({ request_id }, extra) => {
    const found = await approvalStatusFor(extra.db, request_id, extra.caller.user.id);
    // Another subject's request, or none: the same answer, and never an authorization.
    if (!found.request) return json({ approval_contract_version: 1, request_id, status: 'unknown' });
    return approvalAnswer(found.request, found.status, extra, found.status === 'approved' ? { grantExpiresAt: found.grant?.expiresAt ?? null } : {});
  },
};
