import type { Metadata } from 'next';
import Link from 'next/link';
import { requireOrgAccess } from '../../../_lib/access';
import { ActionForm } from '../../../_components/action-form';
import { Field, Select } from '../../../_components/fields';
import { NameAndSlugFields } from '../../../_components/name-and-slug';
import { PageHeader } from '../../../_components/page-header';
import { createAppAction } from '../actions';
import { getT } from '@/app/_lib/i18n/server';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT('console.apps.new'))('pageTitle') };
}

export default async function NewAppPage(props: { params: Promise<{ org: string }> }) {
  const access = await requireOrgAccess((await props.params).org);
  const t = await getT('console.apps.new');
  if (!access.can('apps.manage')) {
    return <PageHeader title={t('title')} description={t('notAllowed')} />;
  }
  return (
    <>
      <PageHeader title={t('title')} description={t('description')} />
      <div className="panel max-w-xl">
        <ActionForm action={createAppAction} org={access.org.slug} submitLabel={t('submit')} testId="create-app">
          {/* The field puts the slug in place of {slug} as the person types. */}
          <NameAndSlugFields
            idPrefix="app"
            nameHint={t('nameHint')}
            preview={t('slugPreview', { org: access.org.slug, slug: '{slug}' })}
            fallback="app"
            placeholder={t('namePlaceholder')}
          />
          <Field label={t('origin')} name="origin" required placeholder="https://billing.example.com" hint={t('originHint')} />
          <Field label={t('redirectUri')} name="redirectUri" required placeholder="https://billing.example.com/auth/callback" hint={t('redirectUriHint')} />
          <Select
            label={t('profile')}
            name="profile"
            defaultValue="web"
            options={[
              { value: 'web', label: t('profileWeb') },
              { value: 'spa', label: t('profileSpa') },
              { value: 'native', label: t('profileNative') },
            ]}
          />
          <p className="-mt-2 text-xs text-slate-600">{t('profileHint')}</p>
          <Select
            label={t('authMethod')}
            name="authMethod"
            defaultValue="client_secret_basic"
            options={[
              { value: 'client_secret_basic', label: t('authBasic') },
              { value: 'client_secret_post', label: t('authPost') },
            ]}
          />
        </ActionForm>
      </div>
      <p className="mt-4 text-sm">
        <Link href={`/console/${access.org.slug}/apps`}>{t('back')}</Link>
      </p>
    </>
  );
}
