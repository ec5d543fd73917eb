'use client';
// use-intl's provider for the client components of every page: the request's language and its catalog, chosen on
// the server (lib/i18n/request-locale.ts). Times are formatted in UTC on both sides (When shows local time after
// hydration), so the server's and the browser's first render agree.
import type { ReactNode } from 'react';
import { IntlProvider } from 'use-intl/react';
import type { AbstractIntlMessages } from 'use-intl/core';

export function PorticoIntlProvider(props: { locale: string; messages: AbstractIntlMessages; children: ReactNode }) {
  return (
    <IntlProvider locale={props.locale} messages={props.messages} timeZone="UTC" onError={() => undefined}>
      {props.children}
    </IntlProvider>
  );
}
