// Settings → Webhooks: the organization's endpoints, what happened to their latest delivery, and a form to add one
// (its signing secret shown once).
import { WebhookSubscriptionName } from '../../../_components/event-name';
import type { Metadata } from 'next';
import Link from 'next/link';
import { requireOrgAccess } from '../../../_lib/access';
import { DataTable, EmptyState, PageHeader, Section } from '../../../_components/page-header';
import { ActionForm } from '../../../_components/action-form';
import { Field, Select } from '../../../_components/fields';
import { When } from '@/app/_components/when';
import { listWebhookEndpoints, MAX_ENDPOINTS_PER_ORG } from '@/lib/webhooks/webhook-commands';
import { db } from '@/lib/runtime';
import { getT } from '@/app/_lib/i18n/server';
import { SettingsTabs } from '../settings-tabs';
import { EventChoice } from './event-choice';
import { createWebhookAction } from './actions';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT('console.webhooks'))('pageTitle') };
}

export default async function WebhooksPage(props: { params: Promise<{ org: string }> }) {
  const access = await requireOrgAccess((await props.params).org);
  const t = await getT('console.webhooks');
  const settings = await getT('console.settings');
  if (!access.can('webhooks.manage')) return <PageHeader title={t('title')} description={t('notAllowed')} />;
  const endpoints = await listWebhookEndpoints(db(), access.org.id);
  const base = `/console/${access.org.slug}/settings/webhooks`;
  const columns = [t('columns.endpoint'), t('columns.events'), t('columns.state'), t('columns.lastDelivery')];
  return (
    <>
      <PageHeader title={settings('title')} description={settings('description')} />
      <SettingsTabs access={access} />
      <p className="mb-4 max-w-3xl text-sm text-slate-600">
        {t.rich('intro', { link: (chunks) => <a href="https://www.standardwebhooks.com/">{chunks}</a> })}
      </p>
      {endpoints.length === 0 ? (
        <EmptyState title={t('empty.title')}>{t('empty.body')}</EmptyState>
      ) : (
        <DataTable testId="webhook-endpoints" columns={columns}>
          {endpoints.map((endpoint) => (
            <tr key={endpoint.id}>
              <td>
                <Link href={`${base}/${endpoint.id}`} className="break-all">
                  {endpoint.displayUrl}
                </Link>
                {endpoint.description ? <span className="block text-xs text-slate-600">{endpoint.description}</span> : null}
                {endpoint.format === 'slack' ? <span className="badge mt-1">{t('formats.slack')}</span> : null}
              </td>
              <td className="text-xs">
                <ul className="grid gap-0.5">
                  {endpoint.events.map((subscription) => (
                    <li key={subscription}>
                      <WebhookSubscriptionName subscription={subscription} />
                    </li>
                  ))}
                </ul>
              </td>
              <td>{endpoint.enabled ? t('state.on') : <span className="badge">{t('state.off')}</span>}</td>
              <td className="text-sm">
                {endpoint.lastDeliveryAt ? <When value={endpoint.lastDeliveryAt} /> : t('never')}
                {endpoint.lastStatus ? <span className="block text-xs text-slate-600">{t('lastStatus', { status: endpoint.lastStatus })}</span> : null}
                {endpoint.waiting > 0 ? <span className="block text-xs text-slate-600">{t('waiting', { count: endpoint.waiting })}</span> : null}
                {endpoint.failed > 0 ? <span className="block text-xs text-red-700">{t('failed', { count: endpoint.failed })}</span> : null}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <Section id="add-webhook" title={t('add.title')} className="mt-8">
        {endpoints.length >= MAX_ENDPOINTS_PER_ORG ? (
          <p className="text-sm text-slate-600">{t('add.full', { max: MAX_ENDPOINTS_PER_ORG })}</p>
        ) : (
          <ActionForm action={createWebhookAction} org={access.org.slug} secretFileName="portico-webhook-secret.txt" submitLabel={t('add.submit')} testId="add-webhook">
            <Field label={t('add.url')} name="url" type="url" required maxLength={2048} placeholder="https://hooks.example.com/portico" hint={t('add.urlHint')} autoComplete="off" />
            <Select label={t('add.format')} name="format" defaultValue="standard" options={[{ value: 'standard', label: t('formats.standard') }, { value: 'slack', label: t('formats.slack') }]} />
            <Field label={t('add.description')} name="description" maxLength={200} hint={t('add.descriptionHint')} />
            <EventChoice selected={['approval.*']} />
          </ActionForm>
        )}
      </Section>
    </>
  );
}
