'use client';
// One way to show a moment everywhere: the person's local date and time, a relative hint ("3 min ago"), and the ISO
// value on hover and for machines (<time dateTime>). The server renders UTC (it does not know the person's zone); the
// browser then shows local time, so the first paint is right too, only in UTC.
import { useEffect, useState } from 'react';

const RELATIVE = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });

function relativeTo(date: Date, now: number): string {
  const seconds = Math.round((date.getTime() - now) / 1000);
  const magnitude = Math.abs(seconds);
  if (magnitude < 45) return seconds <= 0 ? 'just now' : 'in a few seconds';
  if (magnitude < 45 * 60) return RELATIVE.format(Math.round(seconds / 60), 'minute');
  if (magnitude < 22 * 3600) return RELATIVE.format(Math.round(seconds / 3600), 'hour');
  if (magnitude < 26 * 86400) return RELATIVE.format(Math.round(seconds / 86400), 'day');
  return RELATIVE.format(Math.round(seconds / (30 * 86400)), 'month');
}

const utc = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });

export function When(props: { value: string | Date; relative?: boolean }) {
  const date = new Date(props.value);
  const iso = date.toISOString();
  const [local, setLocal] = useState<{ text: string; relative: string } | undefined>();
  useEffect(() => {
    const show = () => setLocal({ text: new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(date), relative: relativeTo(date, Date.now()) });
    show();
    const timer = window.setInterval(show, 30_000);
    return () => window.clearInterval(timer);
  }, [iso]);
  return (
    <time dateTime={iso} title={iso} className="whitespace-nowrap">
      {local ? local.text : `${utc.format(date)} UTC`}
      {props.relative !== false && local ? <span className="text-slate-500"> ({local.relative})</span> : null}
    </time>
  );
}

/** A deadline counting down each second ("4 min 12 s left"), then "expired". Quiet for screen readers (no live region). */
export function Countdown(props: { until: string; expiredText?: string }) {
  const end = new Date(props.until).getTime();
  const [now, setNow] = useState<number | undefined>();
  useEffect(() => {
    setNow(Date.now());
    const timer = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(timer);
  }, []);
  if (now === undefined) return <span data-testid="countdown">until {utc.format(new Date(end))} UTC</span>;
  const left = Math.max(0, Math.round((end - now) / 1000));
  if (left === 0) return <span data-testid="countdown" data-expired="true">{props.expiredText ?? 'expired'}</span>;
  const hours = Math.floor(left / 3600);
  const minutes = Math.floor((left % 3600) / 60);
  const seconds = left % 60;
  const text = hours > 0 ? `${hours} h ${minutes} min left` : minutes > 0 ? `${minutes} min ${seconds} s left` : `${seconds} s left`;
  return (
    <span data-testid="countdown" title={new Date(end).toISOString()}>
      {text}
    </span>
  );
}
