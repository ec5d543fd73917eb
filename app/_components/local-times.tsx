'use client';
// A table's moments in the reader's zone: the server writes each as <time data-local> in UTC (as When's first paint
// does), and this one client component rewrites them once the page runs. A When per row — a client component each —
// cost the audit page's 50 rows about 0.3 ms of server CPU apiece (issue 61's profile).
import { useEffect, useRef, type ReactNode } from 'react';
import { useLocale } from 'use-intl/react';
import { useSavedTimeZone } from './intl-provider';
import { localMoment } from '../_lib/moments';

export function LocalTimes({ children }: { children: ReactNode }) {
  const locale = useLocale();
  const savedZone = useSavedTimeZone();
  const box = useRef<HTMLDivElement>(null);
  // After every render (new rows come as new children): each moment's text node is rewritten in place, never
  // replaced, so React keeps owning it; a later render that changes it writes UTC again, and this runs after it.
  useEffect(() => {
    for (const time of box.current?.querySelectorAll<HTMLTimeElement>('time[data-local]') ?? []) {
      const text = time.firstChild;
      const date = new Date(time.dateTime);
      if (text?.nodeType === Node.TEXT_NODE && !Number.isNaN(date.getTime())) text.nodeValue = localMoment(locale, date, savedZone);
    }
  });
  return (
    <div ref={box} className="contents">
      {children}
    </div>
  );
}
