// How a moment is written, in one place for the client's When and the server's rows of moments
// (app/_components/when.tsx, app/_components/local-times.tsx): UTC before the browser knows the reader's zone, then
// the reader's own zone, named.

// One formatter per language (and zone) for the process and the tab: making an Intl.DateTimeFormat costs far more
// than formatting with one, and a 50-row audit page made two per row on the server (issue 61's profile).
const formats = new Map<string, Intl.DateTimeFormat>();

function cached(key: string, make: () => Intl.DateTimeFormat): Intl.DateTimeFormat {
  let format = formats.get(key);
  if (!format) {
    format = make();
    formats.set(key, format);
  }
  return format;
}

/** "Dec 6, 2026, 3:07 PM" in UTC: what the server writes (it does not know the reader's zone). */
export function utcMoment(locale: string, date: Date): string {
  return cached(`utc ${locale}`, () => new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' })).format(date);
}

/**
 * The reader's own zone, named (issue 56, item 3): "Dec 6, 2026, 12:07 PM GMT-3" — the zone saved on the account,
 * else the browser's. Only in the browser.
 */
export function localMoment(locale: string, date: Date, savedZone: string | undefined): string {
  return cached(`local ${locale} ${savedZone ?? ''}`, () =>
    new Intl.DateTimeFormat(locale, { year: 'numeric', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit', timeZoneName: 'short', ...(savedZone ? { timeZone: savedZone } : {}) }),
  ).format(date);
}
