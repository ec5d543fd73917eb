'use server';
// Revoking an approval grant from the console: explicit, by the app's operators only (designated people, or the
// owners when none are), audited.
import { z } from 'zod';
import { revokeGrantIn } from '@/lib/approvals/broker';
import { localized } from '@/lib/i18n/catalogs';
import { getT } from '@/app/_lib/i18n/server';
import { orgAction } from '../../_lib/action';

export const revokeGrantAction = orgAction(
  {
    permission: 'org.read',
    // The broker's refusal (revoked already, or not the person's to revoke) in the console's words.
    refused: (refusal) => (refusal.domain === 'approvals' ? { message: localized('console.approvals.errors.notRevocable') } : undefined),
    input: (t) =>
      z.object({
        grantId: z.string().regex(/^apg_[A-Za-z0-9_-]{24}$/, t('console.approvals.errors.notAGrant')),
        confirmed: z.literal('yes', { error: t('console.action.confirm.step') }),
      }),
  },
  async ({ tx, input, access, audit }) => {
    const grant = await revokeGrantIn(tx, input.grantId, access.user.id, { orgId: access.org.id, operatorUserId: access.user.id });
    await audit({ action: 'approval.grant_revoked', subject: { type: 'approval_grant', id: grant.id }, appId: grant.appId, details: { requestId: grant.requestId, via: 'console' } });
    const t = await getT('console.approvals');
    return { status: 'ok', message: t('revoked') };
  },
);
