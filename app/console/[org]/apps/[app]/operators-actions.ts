'use server';
// Designating an app's approval operators (the people who decide its requests in the central): owners only.
import { z } from 'zod';
import { designateAppOperator, removeAppOperator } from '@/lib/approvals/operators';
import { localized, type Translator } from '@/lib/i18n/catalogs';
import { getT } from '@/app/_lib/i18n/server';
import { actionRefusal, orgAction } from '../../../_lib/action';
import { orgAppOrRefuse } from '../../../_lib/org-app';
import type { Refusal } from '@/lib/refusals/refusal';

const input = (t: Translator) => z.object({ appId: z.string().uuid(t('console.app.operators.errors.appId')), userId: z.string().uuid(t('console.app.operators.errors.member')) });

/** Not a member of the organization: said in the console's words. */
const refused = (refusal: Refusal) => (refusal.domain === 'operators' ? { message: localized('console.app.operators.refusals.membersOnly') } : undefined);

export const designateOperatorAction = orgAction({ permission: 'approvals.decide', input, refused }, async ({ tx, input: { appId, userId }, access, audit }) => {
  const listing = await orgAppOrRefuse(tx, access.org.id, appId);
  if (!(await designateAppOperator(tx, { orgId: access.org.id, appId: listing.app.id, userId }))) throw actionRefusal(localized('console.app.operators.refusals.already'));
  await audit({ action: 'app.operator_added', subject: { type: 'app', id: listing.app.id, label: listing.app.name }, appId: listing.app.id, details: { userId } });
  return { status: 'ok', message: (await getT('console.app.operators'))('added') };
});

export const removeOperatorAction = orgAction({ permission: 'approvals.decide', input }, async ({ tx, input: { appId, userId }, access, audit }) => {
  const listing = await orgAppOrRefuse(tx, access.org.id, appId);
  if (!(await removeAppOperator(tx, listing.app.id, userId))) throw actionRefusal(localized('console.app.operators.refusals.notOperator'));
  await audit({ action: 'app.operator_removed', subject: { type: 'app', id: listing.app.id, label: listing.app.name }, appId: listing.app.id, details: { userId } });
  return { status: 'ok', message: (await getT('console.app.operators'))('removed') };
});
