// The state and answer cells of a row in an outbox delivery log (a webhook endpoint's, an app's logout tokens'):
// one rule for what state a delivery is in and one way to show it.
import { When } from '@/app/_components/when';
import { getT } from '@/app/_lib/i18n/server';

export type DeliveryState = 'delivered' | 'failed' | 'retrying' | 'waiting';

export interface LoggedDelivery {
  deliveredAt: Date | null;
  failedAt: Date | null;
  attempts: number;
  nextAttemptAt: Date;
  lastStatus: number | null;
  lastError: string | null;
}

export function deliveryStateOf(delivery: LoggedDelivery): DeliveryState {
  if (delivery.deliveredAt) return 'delivered';
  if (delivery.failedAt) return 'failed';
  return delivery.attempts > 0 ? 'retrying' : 'waiting';
}

/** Two cells: the state (with attempts and the next one), and the other side's last answer. */
export async function DeliveryStateCells({ delivery }: { delivery: LoggedDelivery }) {
  const t = await getT('console.deliveries');
  const state = deliveryStateOf(delivery);
  return (
    <>
      <td className="text-sm">
        <span className={state === 'failed' ? 'text-red-700' : undefined}>{t(`states.${state}`)}</span>
        <span className="block text-xs text-slate-600">{t('attempts', { count: delivery.attempts })}</span>
        {state === 'retrying' ? (
          <span className="block text-xs text-slate-600">
            {t('next')} <When value={delivery.nextAttemptAt} />
          </span>
        ) : null}
      </td>
      <td className="text-sm">
        {delivery.lastStatus ? <span>{delivery.lastStatus}</span> : null}
        {delivery.lastError && state !== 'delivered' ? (
          // An HTTP status is said in the reader's words; any other reason is the sender's own record, in English
          // (marked so, for screen readers and translation tools).
          delivery.lastStatus && /^the receiver answered \d{3}$/.test(delivery.lastError) ? (
            <span className="block text-xs text-slate-600">{t('receiverAnswered', { status: delivery.lastStatus })}</span>
          ) : (
            <span className="block text-xs text-slate-600" lang="en">
              {delivery.lastError}
            </span>
          )
        ) : null}
      </td>
    </>
  );
}
