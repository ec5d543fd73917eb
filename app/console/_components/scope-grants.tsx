// Scopes on apps granted to a holder (a team, an agent): the list with a revoke button each, and the grant form.
// The holder's id travels as a hidden field named `holderField` (teamId, agentId) to the holder's own actions.
import type { ActionState } from '../_lib/action';
import { ActionForm } from './action-form';
import { Field, Select } from './fields';

type Action = (state: ActionState, formData: FormData) => Promise<ActionState>;

export function ScopeGrants(props: {
  org: string;
  title: string;
  holder: { field: 'teamId' | 'agentId'; id: string; name: string };
  grants: { appId: string; appName: string; scope: string }[];
  appOptions: { value: string; label: string }[];
  emptyText: string;
  scopePlaceholder: string;
  grantAction: Action;
  revokeAction: Action;
}) {
  const { holder } = props;
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
            <ActionForm action={props.revokeAction} org={props.org} submitLabel="Revoke" variant="secondary" inline confirm={`Revoke ${grant.scope} on ${grant.appName} from ${holder.name}?`} confirmLabel="Yes, revoke">
              <input type="hidden" name={holder.field} value={holder.id} />
              <input type="hidden" name="appId" value={grant.appId} />
              <input type="hidden" name="scope" value={grant.scope} />
            </ActionForm>
          </li>
        ))}
      </ul>
      {props.appOptions.length > 0 ? (
        <ActionForm action={props.grantAction} org={props.org} submitLabel="Grant" inline>
          <input type="hidden" name={holder.field} value={holder.id} />
          <Select label="App" id={`grant-app-${holder.id}`} name="appId" options={props.appOptions} />
          <Field label="Scope" id={`scope-${holder.id}`} name="scope" required placeholder={props.scopePlaceholder} />
        </ActionForm>
      ) : (
        <p className="text-sm text-slate-500">Create an app to grant scopes on it.</p>
      )}
    </div>
  );
}
