// People attached to a holder (a team's members, an agent's users): the list with a remove button each, and the
// form that adds a member of the organization. The holder's id travels as the hidden field `holder.field`.
import type { ReactNode } from 'react';
import { getT } from '@/app/_lib/i18n/server';
import type { ActionState } from '../_lib/action';
import { ActionForm } from './action-form';
import { Select } from './fields';

type Action = (state: ActionState, formData: FormData) => Promise<ActionState>;

export async function PeopleList(props: {
  org: string;
  title: string;
  holder: { field: 'teamId' | 'agentId'; id: string };
  people: { userId: string; email: string }[];
  /** Shown first, without a remove button (an agent's owner). */
  fixed?: ReactNode;
  emptyText?: string;
  memberOptions: { value: string; label: string }[];
  addLabel: string;
  removeConsequence: (email: string) => string;
  addAction: Action;
  removeAction: Action;
}) {
  const { holder } = props;
  const t = await getT('console.peopleList');
  return (
    <div>
      <h3 className="mb-2 text-sm font-semibold text-slate-700">{props.title}</h3>
      <ul className="mb-3 grid gap-2 text-sm">
        {props.fixed ? <li className="text-slate-500">{props.fixed}</li> : null}
        {props.people.length === 0 && props.emptyText ? <li className="text-slate-500">{props.emptyText}</li> : null}
        {props.people.map((person) => (
          <li key={person.userId} className="flex items-center justify-between gap-2">
            {person.email}
            <ActionForm action={props.removeAction} org={props.org} submitLabel={t('remove')} variant="secondary" inline confirm={props.removeConsequence(person.email)} confirmLabel={t('confirmRemove')}>
              <input type="hidden" name={holder.field} value={holder.id} />
              <input type="hidden" name="userId" value={person.userId} />
            </ActionForm>
          </li>
        ))}
      </ul>
      <ActionForm action={props.addAction} org={props.org} submitLabel={props.addLabel} inline>
        <input type="hidden" name={holder.field} value={holder.id} />
        <Select label={t('member')} id={`member-${holder.id}`} name="userId" options={props.memberOptions} />
      </ActionForm>
    </div>
  );
}
