'use client';
// One way to show a moment everywhere: the person's local date and time with their zone named, a relative hint
// ("3 min ago"), the same moment in UTC on hover and the ISO value for machines (<time dateTime>), in the page's
// language. The server renders UTC (it does not
// know the person's zone); the browser then shows local time, so the first paint is right too, only in UTC.
import { useEffect, useState } from 'react';
import { useLocale, useTranslations } from 'use-intl/react';
import { useSavedTimeZone } from './intl-provider';
import { localMoment, utcMoment } from '../_lib/moments';

function relativeTo(format: Intl.RelativeTimeFormat, justNow: string, soon: string, date: Date, now: number): string {
  const seconds = Math.round((date.getTime() - now) / 1000);
  const magnitude = Math.abs(seconds);
  if (magnitude < 45) return seconds <= 0 ? justNow : soon;
  if (magnitude < 45 * 60) return format.format(Math.round(seconds / 60), 'minute');
  if (magnitude < 22 * 3600) return format.format(Math.round(seconds / 3600), 'hour');
  if (magnitude < 26 * 86400) return format.format(Math.round(seconds / 86400), 'day');
  return format.format(Math.round(seconds / (30 * 86400)), 'month');
}


export function When(props: { value: string | Date; relative?: boolean }) {
  const locale = useLocale();
  const t = useTranslations('when');
  const date = new Date(props.value);
  const iso = date.toISOString();
  const [local, setLocal] = useState<{ text: string; relative: string } | undefined>();
  // The zone saved on the account (the console's account page), else the browser's.
  const savedZone = useSavedTimeZone();
  useEffect(() => {
    const relative = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' });
    const show = () =>
      setLocal({
        // The reader's own zone, named; the title holds UTC.
        text: localMoment(locale, date, savedZone),
        relative: relativeTo(relative, t('justNow'), t('inAFewSeconds'), date, Date.now()),
      });
    show();
    const timer = window.setInterval(show, 30_000);
    return () => window.clearInterval(timer);
  }, [iso, locale, savedZone]);
  const inUtc = t('utc', { time: utcMoment(locale, date) });
  return (
    <time dateTime={iso} title={inUtc}>
      {/* The moment never breaks inside; its relative hint may go to the next line (a phone at 320 px). */}
      <span className="whitespace-nowrap">{local ? local.text : inUtc}</span>
      {/* The space outside the hint's span: a line may break there (inside a nowrap span it could not). */}
      {props.relative !== false && local ? (
        <>
          {' '}
          <span className="whitespace-nowrap text-slate-500">({local.relative})</span>
        </>
      ) : null}
    </time>
  );
}

/** A deadline counting down each second ("4 min 12 s left"), then "expired". Quiet for screen readers (no live region). */
export function Countdown(props: { until: string; expiredText?: string }) {
  const locale = useLocale();
  const t = useTranslations('when');
  const end = new Date(props.until).getTime();
  const [now, setNow] = useState<number | undefined>();
  useEffect(() => {
    setNow(Date.now());
    const timer = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(timer);
  }, []);
  if (now === undefined) return <span data-testid="countdown">{t('until', { time: utcMoment(locale, new Date(end)) })}</span>;
  const left = Math.max(0, Math.round((end - now) / 1000));
  if (left === 0) return <span data-testid="countdown" data-expired="true">{props.expiredText ?? t('expired')}</span>;
  const hours = Math.floor(left / 3600);
  const minutes = Math.floor((left % 3600) / 60);
  const seconds = left % 60;
  const text = hours > 0 ? t('leftHours', { hours, minutes }) : minutes > 0 ? t('leftMinutes', { minutes, seconds }) : t('leftSeconds', { seconds });
  return (
    <span data-testid="countdown" title={new Date(end).toISOString()}>
      {text}
    </span>
  );
}
