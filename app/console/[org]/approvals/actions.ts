'use server';
// Revoking an approval grant from the console: explicit, by the app's operators only (designated people, or the
// owners when none are), audited.
import { z } from 'zod';
import { ApprovalRefusal, revokeGrantIn } from '@/lib/approvals/broker';
import { ActionRefusal, orgAction } from '../../_lib/action';

export const revokeGrantAction = orgAction(
  { permission: 'org.read', input: z.object({ grantId: z.string().regex(/^apg_[A-Za-z0-9_-]{24}$/, 'is not a grant'), confirmed: z.literal('yes', { error: 'confirm this step' }) }) },
  async ({ tx, input, access, audit }) => {
    try {
      const grant = await revokeGrantIn(tx, input.grantId, access.user.id, { orgId: access.org.id, operatorUserId: access.user.id });
      await audit({ action: 'approval.grant_revoked', subject: { type: 'approval_grant', id: grant.id }, appId: grant.appId, details: { requestId: grant.requestId, via: 'console' } });
      return { status: 'ok', message: 'Revoked: the app’s next grant check is refused.' };
    } catch (error) {
      if (error instanceof ApprovalRefusal) throw new ActionRefusal('This grant is not active any more, or not one you may revoke (its app’s operators do).');
      throw error;
    }
  },
);
