// The permission pickers of the console (team grants, agent grants, connection narrowing): one <select> whose
// options are the apps' catalogs, each option `<app id> <scope>`. Only what an app offers is listed; the command
// refuses anything else all the same (lib/clients/permission-catalog.ts `refuseUnlessOffered`).
import { z } from 'zod';
import type { Queryable } from '@/lib/db/client';
import { listPermissionCatalog } from '@/lib/clients/permission-catalog';
import { SCOPE_TOKEN } from '@/lib/clients/permission-catalog';

export interface PermissionPickerGroup {
  appId: string;
  appName: string;
  permissions: { scope: string; description: string }[];
}

/** Each app's offered permissions (retired ones left out), for a picker. */
export async function permissionPickerGroups(db: Queryable, apps: readonly { id: string; name: string }[]): Promise<PermissionPickerGroup[]> {
  return Promise.all(
    apps.map(async (app) => ({
      appId: app.id,
      appName: app.name,
      permissions: (await listPermissionCatalog(db, app.id)).filter((entry) => !entry.retired).map(({ scope, description }) => ({ scope, description })),
    })),
  );
}

export const permissionChoiceValue = (appId: string, scope: string) => `${appId} ${scope}`;

/** The picker's value, back into the app and the scope. */
export const permissionChoice = z
  .string({ error: 'choose a permission' })
  .regex(/^[0-9a-f-]{36} [A-Za-z0-9:._-]{1,64}$/i, 'choose a permission from the list')
  .transform((value) => {
    const [appId = '', scope = ''] = value.split(' ');
    return { appId, scope };
  })
  .refine((choice) => SCOPE_TOKEN.test(choice.scope), 'choose a permission from the list');
