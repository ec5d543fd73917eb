// The app's approval operators: who decides its access requests in the operator central (the owners when nobody is
// designated).
import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { listMembers } from '@/lib/organizations/memberships';
import { listAppOperators } from '@/lib/approvals/operators';
import { findOrgApp } from '@/lib/clients/apps';
import { db } from '@/lib/runtime';
import { requireOrgAccess } from '../../../../_lib/access';
import { ActionForm } from '../../../../_components/action-form';
import { Select } from '../../../../_components/fields';
import { designateOperatorAction, removeOperatorAction } from '../operators-actions';
import { getT } from '@/app/_lib/i18n/server';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT('console.app.operators'))('pageTitle') };
}

export default async function AppOperatorsPage(props: { params: Promise<{ org: string; app: string }> }) {
  const params = await props.params;
  const access = await requireOrgAccess(params.org);
  const listing = await findOrgApp(db(), access.org.id, params.app);
  if (!listing) notFound();
  const { app } = listing;
  const [operators, members] = await Promise.all([listAppOperators(db(), app.id), listMembers(db(), access.org.id)]);
  const canDesignate = access.can('approvals.decide');
  const org = access.org.slug;
  const t = await getT('console.app.operators');
  return (
    <section className="panel max-w-3xl" aria-labelledby="operators-heading" data-testid="app-operators">
      <h2 id="operators-heading" className="mb-2 font-semibold">
        {t('title')}
      </h2>
      <p className="mb-3 text-sm text-slate-600">{operators.length === 0 ? t('nobody') : t('designated')}</p>
      <ul className="mb-3 grid gap-2">
        {operators.map((operator) => (
          <li key={operator.userId} className="flex items-center justify-between gap-3 rounded-md border border-slate-200 px-3 py-2">
            <span>
              {operator.name} <span className="text-slate-500">{operator.email}</span>
            </span>
            {canDesignate ? (
              <ActionForm action={removeOperatorAction} org={org} submitLabel={t('remove')} variant="secondary" inline testId={`remove-operator-${operator.userId}`}>
                <input type="hidden" name="appId" value={app.id} />
                <input type="hidden" name="userId" value={operator.userId} />
              </ActionForm>
            ) : null}
          </li>
        ))}
      </ul>
      {canDesignate ? (
        <ActionForm action={designateOperatorAction} org={org} submitLabel={t('add')} inline testId="add-operator">
          <input type="hidden" name="appId" value={app.id} />
          <Select label={t('member')} name="userId" options={members.filter((member) => !operators.some((operator) => operator.userId === member.userId)).map((member) => ({ value: member.userId, label: `${member.name} (${member.email})` }))} />
        </ActionForm>
      ) : null}
    </section>
  );
}
