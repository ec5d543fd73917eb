// Add an MCP server: its name and short name (its address), the upstream's URL, the credential Portico sends it, and
// its limits. Portico reads the upstream's tools before anything is recorded: an upstream it cannot read is said next
// to the URL, and the form keeps what was typed.
import type { Metadata } from 'next';
import Link from 'next/link';
import { runtime } from '@/lib/runtime';
import { getT } from '@/app/_lib/i18n/server';
import { requireOrgAccess } from '../../../_lib/access';
import { ActionForm } from '../../../_components/action-form';
import { NameAndSlugFields } from '../../../_components/name-and-slug';
import { PageHeader } from '../../../_components/page-header';
import { Field } from '../../../_components/fields';
import { addServerAction } from '../actions';
import { CredentialChoice } from '../credential-fields';
import { LimitFields } from '../limit-fields';
import { DEFAULT_FORM_LIMITS } from '../limits';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT('console.servers'))('new.pageTitle') };
}

export default async function NewServerPage(props: { params: Promise<{ org: string }> }) {
  const access = await requireOrgAccess((await props.params).org);
  const t = await getT('console.servers');
  if (!access.can('apps.manage')) return <PageHeader title={t('new.title')} description={t('notAllowed')} />;
  const org = access.org.slug;
  return (
    <>
      <PageHeader title={t('new.title')} description={t('new.description')} />
      <div className="panel max-w-xl wrap-anywhere">
        <ActionForm action={addServerAction} org={org} submitLabel={t('new.submit')} testId="add-server">
          {/* The field puts the short name in place of {slug} as the person types. */}
          <NameAndSlugFields
            idPrefix="server"
            nameHint={t('new.nameHint')}
            preview={t('new.slugPreview', { address: `${runtime().env.PORTICO_ISSUER}/mcp/${org}/{slug}` })}
            fallback="server"
            placeholder={t('new.namePlaceholder')}
          />
          <Field label={t('new.url')} name="url" type="url" required maxLength={2048} autoComplete="off" spellCheck={false} placeholder="https://mcp.example.com/mcp" hint={t('new.urlHint')} />
          <CredentialChoice />
          <fieldset className="grid gap-3 rounded-md border border-slate-200 p-3">
            <legend className="px-1 text-sm font-semibold text-slate-800">{t('new.limits')}</legend>
            <LimitFields values={DEFAULT_FORM_LIMITS} />
          </fieldset>
        </ActionForm>
      </div>
      <p className="mt-4 text-sm">
        <Link href={`/console/${org}/servers`}>{t('new.back')}</Link>
      </p>
    </>
  );
}
