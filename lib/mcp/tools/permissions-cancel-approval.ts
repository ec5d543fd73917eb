import { z } from 'zod';
import { cancelApprovalRequest } from '../../approvals/broker';
import { approvalAnswer } from '../approval-answer';
import { brokerStep, type PorticoTool } from '../context';

const shape = { request_id: z.string().min(1).max(64).describe('The apr_… id of your pending request.') };

export const permissionsCancelApproval: PorticoTool<typeof shape> = {
  name: 'permissions.cancel_approval',
  description: 'Ends one of your pending approval requests without granting anything.',
  riskLevel: 'caution',
  inputSchema: shape,
  run: ({ request_id }, extra) =>
    brokerStep(extra, async (actor) => approvalAnswer(await cancelApprovalRequest(extra.db, request_id, extra.caller.user.id, actor), 'cancelled', extra)),
};
