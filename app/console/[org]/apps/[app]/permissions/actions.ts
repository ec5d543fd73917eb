'use server';
// The permissions page's actions: thin callers of the app commands for the catalog.
import { z } from 'zod';
import { SCOPE_TOKEN } from '@/lib/clients/permission-catalog';
import { addAppPermission, describeAppPermission, restoreAppPermission, retireAppPermission } from '@/lib/clients/app-commands';
import { orgAction } from '../../../../_lib/action';
import { orgAppOrRefuse } from '../../../../_lib/org-app';

const appId = z.string().uuid('is not an app');
const scope = z.string().trim().regex(SCOPE_TOKEN, 'Use 1-64 letters, digits or : . _ - (an OAuth scope), such as invoices:read.');
const description = z.string().trim().min(1, 'Describe it in a few words, such as “Delete invoices”.').max(200, 'Use at most 200 characters.');

export const addPermissionAction = orgAction({ permission: 'apps.manage', input: z.object({ appId, scope, description }) }, async ({ tx, input, access, audit }) => {
  await addAppPermission({ tx, audit }, await orgAppOrRefuse(tx, access.org.id, input.appId), input);
  return { status: 'ok', message: `${input.scope} is in the catalog.` };
});

export const describePermissionAction = orgAction({ permission: 'apps.manage', input: z.object({ appId, scope, description }) }, async ({ tx, input, access, audit }) => {
  await describeAppPermission({ tx, audit }, await orgAppOrRefuse(tx, access.org.id, input.appId), input);
  return { status: 'ok', message: `Description of ${input.scope} saved.` };
});

export const retirePermissionAction = orgAction(
  { permission: 'apps.manage', input: z.object({ appId, scope, confirmed: z.literal('yes', { error: 'confirm the retirement' }) }) },
  async ({ tx, input, access, audit }) => {
    await retireAppPermission({ tx, audit }, await orgAppOrRefuse(tx, access.org.id, input.appId), input.scope);
    return { status: 'ok', message: `${input.scope} is retired: it leaves the catalog.` };
  },
);

export const restorePermissionAction = orgAction({ permission: 'apps.manage', input: z.object({ appId, scope }) }, async ({ tx, input, access, audit }) => {
  await restoreAppPermission({ tx, audit }, await orgAppOrRefuse(tx, access.org.id, input.appId), input.scope);
  return { status: 'ok', message: `${input.scope} is back in the catalog.` };
});
