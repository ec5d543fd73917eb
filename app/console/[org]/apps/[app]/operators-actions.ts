'use server';
// Designating an app's approval operators (the people who decide its requests in the central): owners only.
import { z } from 'zod';
import { designateAppOperator, OperatorRefusal, removeAppOperator } from '@/lib/approvals/operators';
import { ActionRefusal, orgAction } from '../../../_lib/action';
import { orgAppOrRefuse } from '../../../_lib/org-app';

const input = z.object({ appId: z.string().uuid('is not an app'), userId: z.string().uuid('choose a member') });

export const designateOperatorAction = orgAction({ permission: 'approvals.decide', input }, async ({ tx, input: { appId, userId }, access, audit }) => {
  const listing = await orgAppOrRefuse(tx, access.org.id, appId);
  try {
    if (!(await designateAppOperator(tx, { orgId: access.org.id, appId: listing.app.id, userId }))) throw new ActionRefusal('This person is an operator of this app already.');
  } catch (error) {
    if (error instanceof OperatorRefusal) throw new ActionRefusal('Only a member of the organization can be an operator.');
    throw error;
  }
  await audit({ action: 'app.operator_added', subject: { type: 'app', id: listing.app.id, label: listing.app.name }, appId: listing.app.id, details: { userId } });
  return { status: 'ok', message: 'Operator added: this app’s requests are now decided by its operators (not by the owners as such).' };
});

export const removeOperatorAction = orgAction({ permission: 'approvals.decide', input }, async ({ tx, input: { appId, userId }, access, audit }) => {
  const listing = await orgAppOrRefuse(tx, access.org.id, appId);
  if (!(await removeAppOperator(tx, listing.app.id, userId))) throw new ActionRefusal('This person is not an operator of this app.');
  await audit({ action: 'app.operator_removed', subject: { type: 'app', id: listing.app.id, label: listing.app.name }, appId: listing.app.id, details: { userId } });
  return { status: 'ok', message: 'Operator removed.' };
});
