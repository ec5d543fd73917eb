'use server';
// Designating an app's approval operators (the people who decide its requests in the central): owners only.
import { z } from 'zod';
import { designateAppOperator, OperatorRefusal, removeAppOperator } from '@/lib/approvals/operators';
import { localized, type Translator } from '@/lib/i18n/catalogs';
import { getT } from '@/lib/i18n/server';
import { ActionRefusal, orgAction } from '../../../_lib/action';
import { orgAppOrRefuse } from '../../../_lib/org-app';

const input = (t: Translator) => z.object({ appId: z.string().uuid(t('console.app.operators.errors.appId')), userId: z.string().uuid(t('console.app.operators.errors.member')) });

export const designateOperatorAction = orgAction({ permission: 'approvals.decide', input }, async ({ tx, input: { appId, userId }, access, audit }) => {
  const listing = await orgAppOrRefuse(tx, access.org.id, appId);
  try {
    if (!(await designateAppOperator(tx, { orgId: access.org.id, appId: listing.app.id, userId }))) throw new ActionRefusal(localized('console.app.operators.refusals.already'));
  } catch (error) {
    if (error instanceof OperatorRefusal) throw new ActionRefusal(localized('console.app.operators.refusals.membersOnly'));
    throw error;
  }
  await audit({ action: 'app.operator_added', subject: { type: 'app', id: listing.app.id, label: listing.app.name }, appId: listing.app.id, details: { userId } });
  return { status: 'ok', message: (await getT('console.app.operators'))('added') };
});

export const removeOperatorAction = orgAction({ permission: 'approvals.decide', input }, async ({ tx, input: { appId, userId }, access, audit }) => {
  const listing = await orgAppOrRefuse(tx, access.org.id, appId);
  if (!(await removeAppOperator(tx, listing.app.id, userId))) throw new ActionRefusal(localized('console.app.operators.refusals.notOperator'));
  await audit({ action: 'app.operator_removed', subject: { type: 'app', id: listing.app.id, label: listing.app.name }, appId: listing.app.id, details: { userId } });
  return { status: 'ok', message: (await getT('console.app.operators'))('removed') };
});
