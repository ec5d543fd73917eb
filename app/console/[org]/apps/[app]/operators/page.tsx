// The app's approval operators: who decides its access requests in the operator central (the owners when nobody is
// designated).
import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { listMembers } from '@/lib/accounts/memberships';
import { listAppOperators } from '@/lib/approvals/operators';
import { findOrgApp } from '@/lib/clients/apps';
import { db } from '@/lib/runtime';
import { requireOrgAccess } from '../../../../_lib/access';
import { ActionForm } from '../../../../_components/action-form';
import { Select } from '../../../../_components/fields';
import { designateOperatorAction, removeOperatorAction } from '../operators-actions';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'App operators' };

export default async function AppOperatorsPage(props: { params: Promise<{ org: string; app: string }> }) {
  const params = await props.params;
  const access = await requireOrgAccess(params.org);
  const listing = await findOrgApp(db(), access.org.id, params.app);
  if (!listing) notFound();
  const { app } = listing;
  const [operators, members] = await Promise.all([listAppOperators(db(), app.id), listMembers(db(), access.org.id)]);
  const canDesignate = access.can('approvals.decide');
  const org = access.org.slug;
  return (
    <section className="panel max-w-3xl" aria-labelledby="operators-heading" data-testid="app-operators">
      <h2 id="operators-heading" className="mb-2 font-semibold">
        Approval operators
      </h2>
      <p className="mb-3 text-sm text-slate-600">
        {operators.length === 0
          ? 'Nobody is designated: the organization’s owners decide this app’s access requests in the operator central.'
          : 'These people decide this app’s access requests in the operator central (instead of the owners).'}
      </p>
      <ul className="mb-3 grid gap-2">
        {operators.map((operator) => (
          <li key={operator.userId} className="flex items-center justify-between gap-3 rounded-md border border-slate-200 px-3 py-2">
            <span>
              {operator.name} <span className="text-slate-500">{operator.email}</span>
            </span>
            {canDesignate ? (
              <ActionForm action={removeOperatorAction} org={org} submitLabel="Remove" variant="secondary" inline testId={`remove-operator-${operator.userId}`}>
                <input type="hidden" name="appId" value={app.id} />
                <input type="hidden" name="userId" value={operator.userId} />
              </ActionForm>
            ) : null}
          </li>
        ))}
      </ul>
      {canDesignate ? (
        <ActionForm action={designateOperatorAction} org={org} submitLabel="Add operator" inline testId="add-operator">
          <input type="hidden" name="appId" value={app.id} />
          <Select label="Member" name="userId" options={members.filter((member) => !operators.some((operator) => operator.userId === member.userId)).map((member) => ({ value: member.userId, label: `${member.name} (${member.email})` }))} />
        </ActionForm>
      ) : null}
    </section>
  );
}
