// The permission pickers of the console (team grants, agent grants, connection narrowing): one <select> whose
// options are the apps' catalogs, each option `<app id> <scope>`. Only what an app offers is listed; the command
// refuses anything else all the same (lib/clients/permission-catalog.ts `refuseUnlessOffered`).
import { z } from 'zod';
import type { Queryable } from '@/lib/db/client';
import { describedIn, listPermissionCatalog, SCOPE_TOKEN } from '@/lib/clients/permission-catalog';
import type { Translator } from '@/lib/i18n/catalogs';
import { requestLocale } from '@/app/_lib/i18n/server';

export interface PermissionPickerGroup {
  appId: string;
  appName: string;
  permissions: { scope: string; description: string }[];
}

/** Each app's offered permissions (retired ones left out), for a picker: Portico's descriptions in the person's language. */
export async function permissionPickerGroups(db: Queryable, apps: readonly { id: string; name: string }[]): Promise<PermissionPickerGroup[]> {
  const locale = await requestLocale();
  return Promise.all(
    apps.map(async (app) => ({
      appId: app.id,
      appName: app.name,
      permissions: (await listPermissionCatalog(db, app.id)).filter((entry) => !entry.retired).map((entry) => ({ scope: entry.scope, description: describedIn(entry, locale) })),
    })),
  );
}

export const permissionChoiceValue = (appId: string, scope: string) => `${appId} ${scope}`;

const CHOICE = /^[0-9a-f-]{36} [A-Za-z0-9:._-]{1,64}$/i;

function choiceOf(value: string) {
  const [appId = '', scope = ''] = value.split(' ');
  return { appId, scope };
}

/** A picker's value, back into the app and the scope (or undefined when it is not one). */
export function parsePermissionChoice(value: string): { appId: string; scope: string } | undefined {
  if (!CHOICE.test(value)) return undefined;
  const choice = choiceOf(value);
  return SCOPE_TOKEN.test(choice.scope) ? choice : undefined;
}

/** The picker's field (`permission`) in a form schema, its messages in the person's language. */
export const permissionChoice = (t: Translator) =>
  z
    .string({ error: t('console.permissionChoice.missing') })
    .regex(CHOICE, t('console.permissionChoice.notInList'))
    .transform(choiceOf)
    .refine((choice) => SCOPE_TOKEN.test(choice.scope), t('console.permissionChoice.notInList'));
