// The app's back-channel logout: where Portico sends logout tokens when a person's session ends (OpenID Connect
// Back-Channel Logout 1.0), whether the app needs the session id in them, and the log of what was sent.
import { When } from '@/app/_components/when';
import { backchannelLogoutOf, listLogoutDeliveries } from '@/lib/clients/backchannel-logout';
import { getT } from '@/app/_lib/i18n/server';
import { db } from '@/lib/runtime';
import { ActionForm, ConfirmedAction } from '../../../_components/action-form';
import { Field } from '../../../_components/fields';
import { DataTable, EmptyState } from '../../../_components/page-header';
import { removeBackchannelLogoutAction, setBackchannelLogoutAction } from '../actions';
import { listAppStreams } from '@/lib/ssf/streams';
import { shownLogoutUri } from '@/lib/deliveries/channels/logout-token';
import { DeliveryStateCells, deliveryStateOf } from '../../../_components/delivery-cells';

export async function BackchannelLogoutSection(props: { org: string; appId: string; appName: string; clientId: string; manage: boolean }) {
  const [setting, deliveries] = await Promise.all([backchannelLogoutOf(db(), props.clientId), listLogoutDeliveries(db(), props.clientId)]);
  const t = await getT('console.app.backchannelLogout');
  return (
    <section className="panel lg:col-span-2" aria-labelledby="backchannel-logout-heading" data-testid="backchannel-logout">
      <h2 id="backchannel-logout-heading" className="mb-1 font-semibold">
        {t('title')}
      </h2>
      <p className="mb-3 max-w-3xl text-sm text-slate-600">{t.rich('description', { code: (chunks) => <code>{chunks}</code> })}</p>
      {setting ? (
        <p className="mb-3 text-sm" data-testid="backchannel-logout-current">
          {t('current')} <code className="break-all">{shownLogoutUri(setting.uri)}</code> · {setting.sessionRequired ? t('withSid') : t('withoutSid')}
        </p>
      ) : (
        <p className="mb-3 text-sm text-slate-600" data-testid="backchannel-logout-current">
          {t('none')}
        </p>
      )}
      {props.manage ? (
        <div className="flex flex-col gap-3">
          <ActionForm action={setBackchannelLogoutAction} org={props.org} submitLabel={t('save')} keepValues testId="set-backchannel-logout">
            <input type="hidden" name="appId" value={props.appId} />
            <Field label={t('uri')} name="backchannelLogoutUri" required defaultValue={setting?.uri ?? ''} placeholder="https://app.example.com/backchannel-logout" hint={t('uriHint')} />
            <label className="flex items-center gap-2 text-sm">
              <input type="checkbox" name="sessionRequired" value="on" defaultChecked={setting?.sessionRequired ?? true} />
              {t('sessionRequired')}
            </label>
          </ActionForm>
          {setting ? (
            <ConfirmedAction
              action={removeBackchannelLogoutAction}
              org={props.org}
              label={t('remove')}
              confirm={t('removeConfirm', { name: props.appName })}
              confirmLabel={t('removeConfirmLabel')}
              fields={{ appId: props.appId }}
            />
          ) : null}
        </div>
      ) : null}
      <h3 className="mb-1 mt-6 font-semibold" id="logout-deliveries-heading">
        {t('deliveries.title')}
      </h3>
      <p className="mb-3 text-sm text-slate-600">{t('deliveries.body')}</p>
      {deliveries.length === 0 ? (
        <EmptyState title={t('deliveries.empty')} />
      ) : (
        <DataTable testId="logout-deliveries" columns={[t('deliveries.columns.when'), t('deliveries.columns.person'), t('deliveries.columns.why'), t('deliveries.columns.state'), t('deliveries.columns.answer')]}>
          {deliveries.map((delivery) => {
            const state = deliveryStateOf(delivery);
            return (
              <tr key={delivery.id} data-state={state} data-reason={delivery.reason}>
                <td className="text-sm">
                  <When value={delivery.createdAt} />
                </td>
                <td className="text-sm">
                  <span className="break-all">{delivery.personEmail ?? t('deliveries.formerPerson')}</span>
                  <span className="block text-xs text-slate-600">{delivery.withSession ? t('deliveries.withSession') : t('deliveries.withoutSession')}</span>
                </td>
                <td className="text-sm">{t(`reasons.${delivery.reason}`)}</td>
                <DeliveryStateCells delivery={delivery} />
              </tr>
            );
          })}
        </DataTable>
      )}
    </section>
  );
}

/** The app's Shared Signals streams (created by the app itself through the SSF API): read-only here. */
export async function SharedSignalsSection(props: { clientId: string }) {
  const streams = await listAppStreams(db(), props.clientId);
  const t = await getT('console.app.sharedSignals');
  return (
    <section className="panel lg:col-span-2" aria-labelledby="shared-signals-heading" data-testid="shared-signals">
      <h2 id="shared-signals-heading" className="mb-1 font-semibold">
        {t('title')}
      </h2>
      <p className="mb-3 max-w-3xl text-sm text-slate-600">{t.rich('description', { code: (chunks) => <code>{chunks}</code> })}</p>
      {streams.length === 0 ? (
        <EmptyState title={t('empty')} />
      ) : (
        <DataTable testId="ssf-streams" columns={[t('columns.stream'), t('columns.delivery'), t('columns.events'), t('columns.state')]}>
          {streams.map((stream) => (
            <tr key={stream.id} data-stream={stream.id}>
              <td className="text-sm">
                <code className="break-all text-xs">{stream.id}</code>
                {stream.description ? <span className="block break-all text-xs text-slate-600">{stream.description}</span> : null}
              </td>
              <td className="text-sm">
                {stream.deliveryMethod === 'push' ? t('push') : t('poll')}
                {stream.endpoint ? <span className="block break-all text-xs text-slate-600">{stream.endpoint}</span> : null}
              </td>
              <td className="text-xs">
                {stream.eventsRequested.length === 0 ? t('noEvents') : stream.eventsRequested.map((type) => <span key={type} className="block break-all">{type.replace(/^https:\/\/schemas\.openid\.net\/secevent\//, '')}</span>)}
              </td>
              <td className="text-sm">
                {t(`states.${stream.status}`)}
                <span className="block text-xs text-slate-600">{t('waiting', { count: stream.waiting })}</span>
                {stream.lastDeliveredAt ? (
                  <span className="block text-xs text-slate-600">
                    {t('lastDelivered')} <When value={stream.lastDeliveredAt} />
                  </span>
                ) : null}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}
