// The three limits of an upstream, in the forms' units (./limits.ts), each with its range.
import { getT } from '@/app/_lib/i18n/server';
import { Field } from '../../_components/fields';
import { FORM_LIMIT_RANGES, type FormLimits } from './limits';

export async function LimitFields({ values }: { values: FormLimits }) {
  const t = await getT('console.servers');
  const range = FORM_LIMIT_RANGES;
  return (
    <>
      <Field label={t('limits.timeout')} name="timeoutSeconds" type="number" inputMode="numeric" required min={range.timeoutSeconds.min} max={range.timeoutSeconds.max} step={1} defaultValue={values.timeoutSeconds} hint={t('limits.timeoutHint', range.timeoutSeconds)} />
      <Field label={t('limits.maxResponse')} name="maxResponseKb" type="number" inputMode="numeric" required min={range.maxResponseKb.min} max={range.maxResponseKb.max} step={1} defaultValue={values.maxResponseKb} hint={t('limits.maxResponseHint', range.maxResponseKb)} />
      <Field label={t('limits.concurrent')} name="maxConcurrentCalls" type="number" inputMode="numeric" required min={range.maxConcurrentCalls.min} max={range.maxConcurrentCalls.max} step={1} defaultValue={values.maxConcurrentCalls} hint={t('limits.concurrentHint', range.maxConcurrentCalls)} />
    </>
  );
}
