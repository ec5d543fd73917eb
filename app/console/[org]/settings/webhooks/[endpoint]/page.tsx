// One webhook endpoint: what it receives (editable), its secret (rotated with an overlap, the new one shown once), a
// test event, its delivery log with redelivery, and its removal.
import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { requireOrgAccess } from '../../../../_lib/access';
import { DataTable, EmptyState, Section } from '../../../../_components/page-header';
import { ActionForm, ConfirmedAction } from '../../../../_components/action-form';
import { Field } from '../../../../_components/fields';
import { When } from '@/app/_components/when';
import { DEFAULT_ROTATION_OVERLAP_HOURS, findWebhookEndpoint, listWebhookDeliveries } from '@/lib/webhooks/webhook-commands';
import { db } from '@/lib/runtime';
import { getT } from '@/app/_lib/i18n/server';
import { EventChoice } from '../event-choice';
import { DeliveryStateCells, deliveryStateOf } from '../../../../_components/delivery-cells';
import { deleteWebhookAction, redeliverWebhookAction, rotateWebhookSecretAction, sendWebhookTestAction, updateWebhookAction } from '../actions';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT('console.webhooks'))('endpoint.pageTitle') };
}

export default async function WebhookEndpointPage(props: { params: Promise<{ org: string; endpoint: string }> }) {
  const params = await props.params;
  const access = await requireOrgAccess(params.org);
  if (!access.can('webhooks.manage')) notFound();
  const endpoint = await findWebhookEndpoint(db(), access.org.id, params.endpoint);
  if (!endpoint) notFound();
  const deliveries = await listWebhookDeliveries(db(), access.org.id, endpoint.id);
  const t = await getT('console.webhooks');
  const org = access.org.slug;
  const ids = { endpointId: endpoint.id };
  const previousValid = endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > new Date() ? endpoint.previousSecretExpiresAt : null;
  return (
    <>
      <nav aria-label={t('endpoint.breadcrumb')} className="mb-2 text-sm">
        <ol className="flex flex-wrap items-center gap-1 text-slate-600">
          <li>
            <Link href={`/console/${org}/settings`}>{t('endpoint.settings')}</Link>
          </li>
          <li aria-hidden="true">/</li>
          <li>
            <Link href={`/console/${org}/settings/webhooks`}>{t('title')}</Link>
          </li>
        </ol>
      </nav>
      <div className="mb-6 flex flex-wrap items-baseline gap-x-3 gap-y-1">
        <h1 className="break-all text-2xl font-semibold text-slate-900" data-testid="webhook-url">
          {endpoint.displayUrl}
        </h1>
        {endpoint.enabled ? null : <span className="badge">{t('state.off')}</span>}
        <p className="w-full text-sm text-slate-600">
          {t(`formatDescriptions.${endpoint.format}`)} · {t('endpoint.created')} <When value={endpoint.createdAt} />
        </p>
      </div>

      <Section id="webhook-settings" title={t('endpoint.receives')}>
        <ActionForm action={updateWebhookAction} org={org} submitLabel={t('endpoint.save')} keepValues testId="webhook-settings">
          <input type="hidden" name="endpointId" value={endpoint.id} />
          <Field label={t('add.description')} name="description" maxLength={200} defaultValue={endpoint.description} />
          <EventChoice selected={endpoint.events} />
          <label className="flex items-center gap-2 text-sm">
            <input type="checkbox" name="enabled" value="on" defaultChecked={endpoint.enabled} />
            {t('endpoint.enabled')}
          </label>
        </ActionForm>
      </Section>

      <Section id="webhook-secret" title={t('endpoint.secret.title')}>
        <p className="mb-3 max-w-3xl text-sm text-slate-600">{endpoint.format === 'slack' ? t('endpoint.secret.slack') : t('endpoint.secret.body')}</p>
        {previousValid ? (
          <p className="mb-3 text-sm" data-testid="previous-secret">
            {t('endpoint.secret.previous')} <When value={previousValid} />
          </p>
        ) : null}
        <ActionForm action={rotateWebhookSecretAction} org={org} secretFileName="portico-webhook-secret.txt" submitLabel={t('endpoint.secret.rotate')} testId="rotate-webhook-secret">
          <input type="hidden" name="endpointId" value={endpoint.id} />
          <Field label={t('endpoint.secret.overlap')} name="overlapHours" type="number" min={0} max={168} defaultValue={DEFAULT_ROTATION_OVERLAP_HOURS} hint={t('endpoint.secret.overlapHint')} />
        </ActionForm>
      </Section>

      <Section id="webhook-test" title={t('endpoint.test.title')}>
        <p className="mb-3 text-sm text-slate-600">{t('endpoint.test.body')}</p>
        <ActionForm action={sendWebhookTestAction} org={org} submitLabel={t('endpoint.test.submit')} variant="secondary" testId="send-webhook-test">
          <input type="hidden" name="endpointId" value={endpoint.id} />
        </ActionForm>
      </Section>

      <h2 className="mb-2 mt-8 font-semibold" id="deliveries-heading">
        {t('deliveries.title')}
      </h2>
      <p className="mb-3 text-sm text-slate-600">{t('deliveries.body')}</p>
      {deliveries.length === 0 ? (
        <EmptyState title={t('deliveries.empty')} />
      ) : (
        <DataTable testId="webhook-deliveries" columns={[t('deliveries.columns.when'), t('deliveries.columns.event'), t('deliveries.columns.state'), t('deliveries.columns.answer')]} actions>
          {deliveries.map((delivery) => {
            const state = deliveryStateOf(delivery);
            return (
              <tr key={delivery.id} data-state={state}>
                <td className="text-sm">
                  <When value={delivery.createdAt} />
                  {delivery.redeliveryOf ? <span className="block text-xs text-slate-600">{t('deliveries.redelivery')}</span> : null}
                </td>
                <td>
                  <code className="text-xs">{delivery.eventType}</code>
                  <span className="block break-all text-xs text-slate-600">{delivery.messageId}</span>
                </td>
                <DeliveryStateCells delivery={delivery} />
                <td>
                  {state === 'delivered' || state === 'failed' ? (
                    <ActionForm action={redeliverWebhookAction} org={org} submitLabel={t('deliveries.redeliver')} variant="secondary" inline>
                      <input type="hidden" name="deliveryId" value={delivery.id} />
                    </ActionForm>
                  ) : null}
                </td>
              </tr>
            );
          })}
        </DataTable>
      )}

      <section className="panel mt-8 border-red-200" aria-labelledby="delete-webhook-heading">
        <h2 id="delete-webhook-heading" className="mb-1 font-semibold text-red-800">
          {t('endpoint.delete.title')}
        </h2>
        <p className="mb-3 text-sm text-slate-600">{t('endpoint.delete.body')}</p>
        <ConfirmedAction action={deleteWebhookAction} org={org} label={t('endpoint.delete.submit')} confirm={t('endpoint.delete.confirm', { url: endpoint.displayUrl })} confirmLabel={t('endpoint.delete.confirmLabel')} fields={ids} />
      </section>
    </>
  );
}
