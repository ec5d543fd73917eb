// The account page's time zone section (issue 56, item 3): what it changes, and the form.
import { getT } from '@/app/_lib/i18n/server';
import { supportedTimeZone, supportedTimeZones } from '@/lib/i18n/time-zone';
import { Section } from '../_components/page-header';
import { saveTimeZoneAction } from './actions';
import { TimeZoneForm } from './time-zone-form';

export async function TimeZoneSection({ saved }: { saved: string | null }) {
  const t = await getT('account.timeZone');
  return (
    <Section id="time-zone" title={t('section')}>
      <p className="mb-3 text-sm text-slate-600">{t('intro')}</p>
      <TimeZoneForm action={saveTimeZoneAction} zones={supportedTimeZones()} saved={supportedTimeZone(saved) ?? null} />
    </Section>
  );
}
