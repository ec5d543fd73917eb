import type { Metadata } from 'next';
import { requireOrgAccess } from '../../_lib/access';
import { PageHeader } from '../../_components/page-header';
import { ActionForm } from '../../_components/action-form';
import { Field } from '../../_components/fields';
import { SecondFactorPolicyForm } from './second-factor-policy-form';
import { SECOND_FACTOR_POLICIES } from '@/lib/accounts/factors/second-factor-policy';
import { deleteOrganizationAction, renameOrganizationAction } from './actions';
import { BrandingForm } from './branding-form';
import { DefaultLocaleForm } from './default-locale-form';
import { DefaultTimeZoneForm } from './default-time-zone-form';
import { supportedTimeZone, supportedTimeZones } from '@/lib/i18n/time-zone';
import { localeName, supportedLocales } from '@/lib/i18n/catalogs';
import { getT } from '@/app/_lib/i18n/server';
import { SettingsTabs } from './settings-tabs';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT('console.settings'))('pageTitle') };
}

export default async function SettingsPage(props: { params: Promise<{ org: string }> }) {
  const access = await requireOrgAccess((await props.params).org);
  const t = await getT('console.settings');
  if (!access.can('branding.manage')) return <PageHeader title={t('shortTitle')} description={t('notAllowed')} />;
  const { org } = access;
  return (
    <>
      <PageHeader title={t('title')} description={t('description')} />
      <SettingsTabs access={access} />
      <section className="panel mb-8" aria-labelledby="identity-heading" data-testid="org-identity">
        <h2 id="identity-heading" className="mb-1 font-semibold">
          {t('identity.title')}
        </h2>
        <p className="mb-3 text-sm text-slate-600">
          {t.rich('identity.slug', { slug: org.slug, code: (chunks) => <code data-testid="org-slug">{chunks}</code> })}
        </p>
        {access.can('org.rename') ? (
          <ActionForm action={renameOrganizationAction} org={org.slug} submitLabel={t('identity.rename')} keepValues testId="rename-org">
            <Field label={t('identity.name')} name="name" defaultValue={org.name} required maxLength={80} />
          </ActionForm>
        ) : (
          <p className="text-sm">{t.rich('identity.nameReadOnly', { name: org.name, strong: (chunks) => <strong>{chunks}</strong> })}</p>
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
          {t('language.title')}
        </h2>
        <p className="mb-3 text-sm text-slate-600">{t('language.description')}</p>
        <DefaultLocaleForm org={org.slug} initial={org.defaultLocale} languages={supportedLocales().map((value) => ({ value, label: localeName(value) }))} />
      </section>
      <section className="panel mt-8" aria-labelledby="default-time-zone-heading" data-testid="org-time-zone">
        <h2 id="default-time-zone-heading" className="mb-1 font-semibold">
          {t('timeZone.title')}
        </h2>
        <p className="mb-3 text-sm text-slate-600">{t('timeZone.description')}</p>
        <DefaultTimeZoneForm org={org.slug} initial={supportedTimeZone(org.defaultTimeZone) ?? null} zones={supportedTimeZones()} />
      </section>
      {access.can('security.manage') ? (
        <section className="panel mt-8" aria-labelledby="two-step-policy-heading">
          <h2 id="two-step-policy-heading" className="mb-1 font-semibold">
            {t('twoStep.title')}
          </h2>
          <p className="mb-3 text-sm text-slate-600">{t('twoStep.description')}</p>
          <SecondFactorPolicyForm org={org.slug} initial={org.secondFactorPolicy} options={SECOND_FACTOR_POLICIES.map((value) => ({ value, label: t(`twoStep.policies.${value}`) }))} />
        </section>
      ) : null}
      {access.can('org.delete') ? (
        <section className="panel mt-8 border-red-200" aria-labelledby="danger-heading">
          <h2 id="danger-heading" className="mb-1 font-semibold text-red-800">
            {t('delete.title')}
          </h2>
          <p className="mb-3 text-sm text-slate-600">{t('delete.description')}</p>
          <ActionForm
            action={deleteOrganizationAction}
            org={org.slug}
            submitLabel={t('delete.submit')}
            variant="danger"
            confirm={t('delete.confirm', { name: org.name })}
            confirmLabel={t('delete.confirmLabel')}
            testId="delete-org"
          >
            <Field label={t('delete.typeSlug', { slug: org.slug })} name="confirmSlug" autoComplete="off" />
          </ActionForm>
        </section>
      ) : null}
    </>
  );
}
