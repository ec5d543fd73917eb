'use server';
// Revoking an approval grant from the console: explicit, the organization's operators (owners) only, audited.
import { z } from 'zod';
import { ApprovalRefusal, revokeGrantIn } from '@/lib/approvals/broker';
import { ActionRefusal, orgAction } from '../../_lib/action';

export const revokeGrantAction = orgAction(
  { permission: 'approvals.decide', input: z.object({ grantId: z.string().regex(/^apg_[A-Za-z0-9_-]{24}$/, 'is not a grant'), confirmed: z.literal('yes', { error: 'confirm this step' }) }) },
  async ({ tx, input, access, audit }) => {
    try {
      const grant = await revokeGrantIn(tx, input.grantId, access.user.id, access.org.id);
      await audit({ action: 'approval.grant_revoked', subject: { type: 'approval_grant', id: grant.id }, appId: grant.appId, details: { requestId: grant.requestId, via: 'console' } });
      return { status: 'ok', message: 'Revoked: the app’s next grant check is refused.' };
    } catch (error) {
      if (error instanceof ApprovalRefusal) throw new ActionRefusal('This grant is not active any more (revoked already, or not of this organization).');
      throw error;
    }
  },
);
