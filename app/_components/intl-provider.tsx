'use client';
// use-intl's provider for the client components of every page: the request's language and its catalog, chosen on
// the server (app/_lib/i18n/request-locale.ts). Times are formatted in UTC on both sides (When shows local time after
// hydration, in the zone the signed-in person saved, else the browser's), so the server's and the browser's first
// render agree.
import { createContext, useContext, type ReactNode } from 'react';
import { IntlProvider } from 'use-intl/react';
import type { AbstractIntlMessages } from 'use-intl/core';

const SavedTimeZone = createContext<string | undefined>(undefined);

/** The time zone the signed-in person saved on their account (lib/i18n/time-zone.ts), if any. */
export function useSavedTimeZone(): string | undefined {
  return useContext(SavedTimeZone);
}

export function PorticoIntlProvider(props: { locale: string; messages: AbstractIntlMessages; timeZone?: string; children: ReactNode }) {
  return (
    <IntlProvider locale={props.locale} messages={props.messages} timeZone="UTC" onError={() => undefined}>
      <SavedTimeZone.Provider value={props.timeZone}>{props.children}</SavedTimeZone.Provider>
    </IntlProvider>
  );
}
