'use server';
// The permissions page's actions: thin callers of the app commands for the catalog.
import { z } from 'zod';
import { SCOPE_TOKEN } from '@/lib/clients/permission-catalog';
import { addAppPermission, describeAppPermission, restoreAppPermission, retireAppPermission } from '@/lib/clients/app-commands';
import type { Translator } from '@/lib/i18n/catalogs';
import { getT } from '@/app/_lib/i18n/server';
import { orgAction } from '../../../../_lib/action';
import { orgAppOrRefuse } from '../../../../_lib/org-app';

const appId = (t: Translator) => z.string().uuid(t('console.app.permissions.errors.appId'));
const scope = (t: Translator) => z.string().trim().regex(SCOPE_TOKEN, t('console.app.permissions.errors.scope'));
const description = (t: Translator) =>
  z.string().trim().min(1, t('console.app.permissions.errors.descriptionRequired')).max(200, t('console.app.permissions.errors.descriptionLength'));

export const addPermissionAction = orgAction(
  { permission: 'apps.manage', input: (t) => z.object({ appId: appId(t), scope: scope(t), description: description(t) }) },
  async ({ tx, input, access, audit }) => {
    await addAppPermission({ tx, audit }, await orgAppOrRefuse(tx, access.org.id, input.appId), input);
    return { status: 'ok', message: (await getT('console.app.permissions.done'))('added', { scope: input.scope }) };
  },
);

export const describePermissionAction = orgAction(
  { permission: 'apps.manage', input: (t) => z.object({ appId: appId(t), scope: scope(t), description: description(t) }) },
  async ({ tx, input, access, audit }) => {
    await describeAppPermission({ tx, audit }, await orgAppOrRefuse(tx, access.org.id, input.appId), input);
    return { status: 'ok', message: (await getT('console.app.permissions.done'))('described', { scope: input.scope }) };
  },
);

export const retirePermissionAction = orgAction(
  { permission: 'apps.manage', input: (t) => z.object({ appId: appId(t), scope: scope(t), confirmed: z.literal('yes', { error: t('console.action.confirm.retirement') }) }) },
  async ({ tx, input, access, audit }) => {
    await retireAppPermission({ tx, audit }, await orgAppOrRefuse(tx, access.org.id, input.appId), input.scope);
    return { status: 'ok', message: (await getT('console.app.permissions.done'))('retired', { scope: input.scope }) };
  },
);

export const restorePermissionAction = orgAction({ permission: 'apps.manage', input: (t) => z.object({ appId: appId(t), scope: scope(t) }) }, async ({ tx, input, access, audit }) => {
  await restoreAppPermission({ tx, audit }, await orgAppOrRefuse(tx, access.org.id, input.appId), input.scope);
  return { status: 'ok', message: (await getT('console.app.permissions.done'))('restored', { scope: input.scope }) };
});
