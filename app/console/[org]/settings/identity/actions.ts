'use server';
// Settings → Identity: each action validates, authorizes `identity.manage` and runs one domain command
// (lib/identity/domains.ts) through the organization-operation kernel; a refusal about the domain stands next to its
// field, and the form keeps what was typed.
import { z } from 'zod';
import { CommandRefusal } from '@/lib/accounts/org-operation';
import { getT } from '@/lib/i18n/server';
import { addDomain, domainCheckDeps, proveDomain, recordDomainCheck, removeDomain } from '@/lib/identity/domains';
import { db, runtime } from '@/lib/runtime';
import { ActionRefusal, orgAction } from '../../../_lib/action';

export const addDomainAction = orgAction({ permission: 'identity.manage', input: z.object({ domain: z.string().max(300) }) }, async ({ tx, input, access, audit }) => {
  try {
    const added = await addDomain({ tx, audit, orgId: access.org.id }, input.domain);
    return { status: 'ok', message: (await getT('console.identity'))('domains.added', { domain: added.domain }) };
  } catch (error) {
    if (error instanceof CommandRefusal && error.code === 'invalid_domain') throw new ActionRefusal(error.text ?? error.message, 'domain');
    throw error;
  }
});

export const checkDomainAction = orgAction(
  {
    permission: 'identity.manage',
    input: z.object({ domainId: z.string().max(64) }),
    // The DNS lookup and the HTTPS request happen before the transaction: they must not hold it open.
    prepare: ({ input, access }) => proveDomain(db(), domainCheckDeps(runtime().env), access.org.id, input.domainId),
  },
  async ({ tx, prepared, access, audit }) => {
  const checked = await recordDomainCheck({ tx, audit, orgId: access.org.id }, prepared);
  const t = await getT('console.identity');
  return checked.verified ? { status: 'ok', message: t('domains.checkedVerified', { domain: checked.domain.domain }) } : { status: 'ok', message: t('domains.checkedNot', { domain: checked.domain.domain }) };
  },
);

export const removeDomainAction = orgAction(
  { permission: 'identity.manage', input: (t) => z.object({ domainId: z.string().max(64), confirmed: z.literal('yes', { error: t('console.action.confirm.deletion') }) }) },
  async ({ tx, input, access, audit }) => {
    const removed = await removeDomain({ tx, audit, orgId: access.org.id }, input.domainId);
    return { status: 'ok', message: (await getT('console.identity'))('domains.removed', { domain: removed.domain }) };
  },
);
