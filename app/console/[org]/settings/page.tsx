import type { Metadata } from 'next';
import { requireOrgAccess } from '../../_lib/access';
import { PageHeader } from '../../_components/page-header';
import { ActionForm } from '../../_components/action-form';
import { Field } from '../../_components/fields';
import { SecondFactorPolicyForm } from './second-factor-policy-form';
import { SECOND_FACTOR_POLICIES, SECOND_FACTOR_POLICY_LABELS } from '@/lib/accounts/second-factor-policy';
import { deleteOrganizationAction, renameOrganizationAction } from './actions';
import { BrandingForm } from './branding-form';
import { DefaultLocaleForm } from './default-locale-form';
import { localeName, supportedLocales } from '@/lib/i18n/catalogs';
import { getT } from '@/lib/i18n/server';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Organization settings' };

export default async function SettingsPage(props: { params: Promise<{ org: string }> }) {
  const access = await requireOrgAccess((await props.params).org);
  if (!access.can('branding.manage')) return <PageHeader title="Settings" description="Only the organization’s owners and admins change its settings." />;
  const { org } = access;
  const t = await getT('console.settings.language');
  return (
    <>
      <PageHeader title="Organization settings" description="Its name and address, whitelabel branding, two-step sign-in." />
      <section className="panel mb-8" aria-labelledby="identity-heading" data-testid="org-identity">
        <h2 id="identity-heading" className="mb-1 font-semibold">
          Name and address
        </h2>
        <p className="mb-3 text-sm text-slate-600">
          Address (slug): <code data-testid="org-slug">{org.slug}</code> — the console is at /console/{org.slug}. It never changes, so links, invitations and
          the CLI keep working.
        </p>
        {access.can('org.rename') ? (
          <ActionForm action={renameOrganizationAction} org={org.slug} submitLabel="Rename" keepValues testId="rename-org">
            <Field label="Name" name="name" defaultValue={org.name} required maxLength={80} />
          </ActionForm>
        ) : (
          <p className="text-sm">
            Name: <strong>{org.name}</strong> (owners rename it).
          </p>
        )}
      </section>
      <BrandingForm
        org={org.slug}
        orgName={org.name}
        initial={{
          displayName: org.brandDisplayName ?? '',
          logoUrl: org.brandLogoUrl ?? '',
          primaryColor: org.brandPrimaryColor ?? '',
          backgroundColor: org.brandBackgroundColor ?? '',
        }}
      />
      <section className="panel mt-8" aria-labelledby="default-locale-heading" data-testid="org-language">
        <h2 id="default-locale-heading" className="mb-1 font-semibold">
          {t('title')}
        </h2>
        <p className="mb-3 text-sm text-slate-600">{t('description')}</p>
        <DefaultLocaleForm org={org.slug} initial={org.defaultLocale} languages={supportedLocales().map((value) => ({ value, label: localeName(value) }))} />
      </section>
      {access.can('security.manage') ? (
        <section className="panel mt-8" aria-labelledby="two-step-policy-heading">
          <h2 id="two-step-policy-heading" className="mb-1 font-semibold">
            Two-step sign-in
          </h2>
          <p className="mb-3 text-sm text-slate-600">
            Who must have a second factor (a passkey or an authenticator app) to sign in to this organization’s apps, the console and the central. Whoever has
            none is taken to set one up right after their password; they are mailed a notice when it is added. Owners only.
          </p>
          <SecondFactorPolicyForm
            org={org.slug}
            initial={org.secondFactorPolicy}
            options={SECOND_FACTOR_POLICIES.map((value) => ({ value, label: SECOND_FACTOR_POLICY_LABELS[value] }))}
          />
        </section>
      ) : null}
      {access.can('org.delete') ? (
        <section className="panel mt-8 border-red-200" aria-labelledby="danger-heading">
          <h2 id="danger-heading" className="mb-1 font-semibold text-red-800">
            Delete this organization
          </h2>
          <p className="mb-3 text-sm text-slate-600">Owners only. Its apps, clients, members and teams are deleted; the audit log is kept.</p>
          <ActionForm
            action={deleteOrganizationAction}
            org={org.slug}
            submitLabel="Delete organization"
            variant="danger"
            confirm={`Delete ${org.name} for good? Every app of it stops working at once: sign-ins are refused and refresh tokens end; access tokens already issued end within 10 minutes.`}
            confirmLabel="Yes, delete it"
            testId="delete-org"
          >
            <Field label={`Type ${org.slug} to confirm`} name="confirmSlug" autoComplete="off" />
          </ActionForm>
        </section>
      ) : null}
    </>
  );
}
