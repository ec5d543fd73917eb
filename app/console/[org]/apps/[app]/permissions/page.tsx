// An app's permission catalog: what may be granted on it — the baseline, the scopes its surface declares, and the
// ones admins added — each with a description people read on consent screens and pickers.
import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { findOrgApp } from '@/lib/clients/apps';
import { explainPermissions } from '@/lib/organizations/effective-permissions';
import { PermissionExplanationList } from '../../../../_components/permission-explanation';
import { describedIn, listPermissionCatalog } from '@/lib/clients/permission-catalog';
import type { Translator } from '@/lib/i18n/catalogs';
import { getT, requestLocale } from '@/app/_lib/i18n/server';
import { db } from '@/lib/runtime';
import { visibleText } from '@/lib/util/visible-text';
import { requireOrgAccess } from '../../../../_lib/access';
import { ActionForm, ConfirmedAction } from '../../../../_components/action-form';
import { Field } from '../../../../_components/fields';
import { DataTable, EmptyState, ReadOnlyNotice, Section } from '../../../../_components/page-header';
import { addPermissionAction, describePermissionAction, restorePermissionAction, retirePermissionAction } from './actions';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT('console.app.permissions'))('pageTitle') };
}

function sourceOf(t: Translator<'console.app.permissions'>, entry: { baseline: boolean; declared: boolean; added: boolean }): string {
  if (entry.baseline) return t('sources.baseline');
  return [entry.declared ? t('sources.declared') : '', entry.added ? t('sources.added') : ''].filter(Boolean).join(', ');
}

export default async function PermissionsPage(props: { params: Promise<{ org: string; app: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await props.params;
  const { subject } = await props.searchParams;
  const access = await requireOrgAccess(params.org);
  const listing = await findOrgApp(db(), access.org.id, params.app);
  if (!listing) notFound();
  const { app } = listing;
  const catalog = await listPermissionCatalog(db(), app.id);
  const asked = typeof subject === 'string' && subject.trim() !== '' && access.can('members.read') ? subject.trim().slice(0, 320) : undefined;
  const explanation = asked ? await explainPermissions(db(), { orgId: access.org.id, appId: app.id, subject: asked }) : undefined;
  const manage = access.can('apps.manage');
  const org = access.org.slug;
  const t = await getT('console.app.permissions');
  const locale = await requestLocale();
  return (
    <>
      <p className="mb-4 max-w-2xl text-sm text-slate-600">{t('intro')}</p>
      {manage ? null : <ReadOnlyNotice />}
      {manage ? (
        <Section id="add-permission" title={t('add.title')}>
          <ActionForm action={addPermissionAction} org={org} submitLabel={t('add.submit')} testId="add-permission">
            <input type="hidden" name="appId" value={app.id} />
            <div className="flex flex-wrap items-end gap-2">
              <Field label={t('add.scope')} name="scope" required maxLength={64} placeholder="invoices:read" />
              <Field label={t('add.description')} name="description" required maxLength={200} placeholder={t('add.descriptionPlaceholder')} />
            </div>
          </ActionForm>
        </Section>
      ) : null}
      <Section id="explain" title={t('explain.title')}>
        <p className="mb-3 text-sm text-slate-600">{t('explain.description')}</p>
        <form method="get" className="flex flex-wrap items-end gap-2" data-testid="explain-form">
          <div className="grid gap-1">
            <label htmlFor="subject" className="text-sm font-medium text-slate-800">
              {t('explain.subject')}
            </label>
            <input id="subject" name="subject" className="input" defaultValue={asked ?? ''} maxLength={320} required />
          </div>
          <button type="submit" className="btn btn-secondary">
            {t('explain.submit')}
          </button>
        </form>
        {asked && !explanation ? (
          <p role="status" className="mt-3 text-sm text-red-800" data-testid="explain-none">
            {t('explain.none', { subject: visibleText(asked) })}
          </p>
        ) : null}
        {explanation ? (
          <div className="mt-3" data-testid="explanation">
            <p className="mb-2 text-sm">
              <strong>{visibleText(explanation.subject.label)}</strong>
              {explanation.subject.kind === 'agent' ? (explanation.subject.mode === 'delegated' ? t('explain.agentDelegated') : t('explain.agentOwn')) : ''}
              {explanation.permissions.length === 0 ? '' : t('explain.holds')}
            </p>
            <PermissionExplanationList permissions={explanation.permissions} emptyText={t('explain.holdsNothing')} catalog={catalog} />
          </div>
        ) : null}
      </Section>
      {catalog.length === 0 ? (
        <EmptyState title={t('empty')} />
      ) : (
        <DataTable testId="permission-catalog" columns={[t('columns.permission'), t('columns.description'), t('columns.source')]} actions={manage}>
          {catalog.map((entry) => (
            <tr key={entry.scope} data-scope={entry.scope} className={entry.retired ? 'opacity-60' : undefined}>
              <td>
                <code>{entry.scope}</code>
                {entry.retired ? <span className="badge">{t('retired')}</span> : null}
              </td>
              <td>
                {visibleText(describedIn(entry, locale))}
                {entry.tools.length > 0 ? <div className="text-xs text-slate-500">{t('tools', { tools: entry.tools.map((tool) => visibleText(tool)).join(', ') })}</div> : null}
              </td>
              <td className="text-sm">{sourceOf(t, entry)}</td>
              {manage ? (
                <td className="grid gap-2">
                  {entry.baseline ? null : entry.retired ? (
                    <ActionForm action={restorePermissionAction} org={org} submitLabel={t('restore')} variant="secondary" inline>
                      <input type="hidden" name="appId" value={app.id} />
                      <input type="hidden" name="scope" value={entry.scope} />
                    </ActionForm>
                  ) : (
                    <>
                      <ActionForm action={describePermissionAction} org={org} submitLabel={t('saveDescription')} variant="secondary" inline>
                        <input type="hidden" name="appId" value={app.id} />
                        <input type="hidden" name="scope" value={entry.scope} />
                        <Field label={t('columns.description')} id={`description-${entry.scope}`} name="description" defaultValue={describedIn(entry, locale)} required maxLength={200} />
                      </ActionForm>
                      <ConfirmedAction
                        action={retirePermissionAction}
                        org={org}
                        label={t('retire')}
                        confirm={t('confirmRetire', { scope: entry.scope })}
                        confirmLabel={t('confirmRetireLabel')}
                        fields={{ appId: app.id, scope: entry.scope }}
                      />
                    </>
                  )}
                </td>
              ) : null}
            </tr>
          ))}
        </DataTable>
      )}
    </>
  );
}
