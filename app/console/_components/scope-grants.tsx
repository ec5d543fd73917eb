// Permissions on apps granted to a holder (a team, an agent): the list with a revoke button each, and the grant
// form, whose picker lists the apps' catalogs (never free text). The holder's id travels as a hidden field named
// `holderField` (teamId, agentId) to the holder's own actions.
import { getT } from '@/app/_lib/i18n/server';
import type { ActionState } from '../_lib/action';
import { permissionChoiceValue, type PermissionPickerGroup } from '../_lib/permission-choice';
import { ActionForm } from './action-form';

type Action = (state: ActionState, formData: FormData) => Promise<ActionState>;

export async function ScopeGrants(props: {
  org: string;
  title: string;
  holder: { field: 'teamId' | 'agentId' | 'userId'; id: string; name: string };
  grants: { appId: string; appName: string; scope: string }[];
  catalogs: PermissionPickerGroup[];
  emptyText: string;
  grantAction: Action;
  revokeAction: Action;
}) {
  const { holder } = props;
  const t = await getT('console.scopeGrants');
  return (
    <div>
      <h3 className="mb-2 text-sm font-semibold text-slate-700">{props.title}</h3>
      <ul className="mb-3 grid gap-2 text-sm">
        {props.grants.length === 0 ? <li className="text-slate-500">{props.emptyText}</li> : null}
        {props.grants.map((grant) => (
          <li key={`${grant.appId}-${grant.scope}`} className="flex items-center justify-between gap-2">
            <span>
              {grant.appName}: <code>{grant.scope}</code>
            </span>
            <ActionForm action={props.revokeAction} org={props.org} submitLabel={t('revoke')} variant="secondary" inline confirm={t('confirmRevoke', { scope: grant.scope, app: grant.appName, holder: holder.name })} confirmLabel={t('confirmRevokeLabel')}>
              <input type="hidden" name={holder.field} value={holder.id} />
              <input type="hidden" name="appId" value={grant.appId} />
              <input type="hidden" name="scope" value={grant.scope} />
            </ActionForm>
          </li>
        ))}
      </ul>
      {props.catalogs.length > 0 ? (
        <ActionForm action={props.grantAction} org={props.org} submitLabel={t('grant')} inline>
          <input type="hidden" name={holder.field} value={holder.id} />
          <PermissionPicker id={`permission-${holder.id}`} name="permission" label={t('permission')} catalogs={props.catalogs} />
        </ActionForm>
      ) : (
        <p className="text-sm text-slate-500">{t('noApps')}</p>
      )}
    </div>
  );
}

/** One select, grouped by app: each option a permission of that app's catalog, by scope and description. */
export async function PermissionPicker(props: { id: string; name: string; label: string; catalogs: PermissionPickerGroup[]; multiple?: boolean; hint?: string }) {
  const t = await getT('console.scopeGrants');
  return (
    <div className="grid gap-1">
      <label htmlFor={props.id} className="text-sm font-medium text-slate-800">
        {props.label}
      </label>
      <select id={props.id} name={props.name} className="input" multiple={props.multiple} required={!props.multiple} defaultValue={props.multiple ? [] : ''} aria-describedby={props.hint ? `${props.id}-hint` : undefined}>
        {props.multiple ? null : (
          <option value="" disabled>
            {t('choose')}
          </option>
        )}
        {props.catalogs.map((catalog) => (
          <optgroup key={catalog.appId} label={catalog.appName}>
            {catalog.permissions.map((permission) => (
              <option key={permission.scope} value={permissionChoiceValue(catalog.appId, permission.scope)}>
                {permission.scope} — {permission.description}
              </option>
            ))}
          </optgroup>
        ))}
      </select>
      {props.hint ? (
        <small id={`${props.id}-hint`} className="text-xs text-slate-500">
          {props.hint}
        </small>
      ) : null}
    </div>
  );
}
