// The events an endpoint receives, as checkboxes grouped by family: a family's "all" box subscribes to `<family>.*`
// (its future events too); the boxes under it name single events. Uncontrolled, so a refused form keeps the ticks.
import { WEBHOOK_EVENT_FAMILIES, WEBHOOK_EVENT_TYPES } from '@/lib/webhooks/events';
import { getT } from '@/app/_lib/i18n/server';
import { FieldError } from '../../../_components/fields';
import { WebhookSubscriptionName } from '../../../_components/event-name';

export async function EventChoice({ selected }: { selected: readonly string[] }) {
  const t = await getT('console.webhooks.events');
  return (
    <fieldset className="grid min-w-0 gap-3" aria-describedby="webhook-events-hint webhook-events-error">
      <legend className="text-sm font-medium text-slate-800">{t('legend')}</legend>
      <p id="webhook-events-hint" className="text-xs text-slate-500">
        {t('hint')}
      </p>
      <FieldError name="events" id="webhook-events-error" />
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" name="events" value="*" defaultChecked={selected.includes('*')} />
        {t('everything')}
      </label>
      <div className="grid min-w-0 gap-3 sm:grid-cols-2">
        {WEBHOOK_EVENT_FAMILIES.map((family) => (
          <div key={family} className="min-w-0 rounded-md border border-slate-200 p-3" data-testid={`events-${family}`}>
            <label className="flex items-center gap-2 text-sm font-medium">
              <input type="checkbox" name="events" value={`${family}.*`} defaultChecked={selected.includes(`${family}.*`)} />
              {t(`families.${family}`)}
            </label>
            {family === 'app' ? <p className="mt-2 pl-6 text-xs text-slate-600">{t('appHint')}</p> : null}
            <ul className="mt-2 grid gap-1 pl-6">
              {WEBHOOK_EVENT_TYPES.filter((type) => type.startsWith(`${family}.`)).map((type) => (
                <li key={type}>
                  <label className="flex items-center gap-2 text-sm">
                    <input type="checkbox" name="events" value={type} defaultChecked={selected.includes(type)} />
                    <WebhookSubscriptionName subscription={type} />
                  </label>
                </li>
              ))}
            </ul>
          </div>
        ))}
      </div>
    </fieldset>
  );
}
