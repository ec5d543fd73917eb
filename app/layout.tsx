import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { clientMessages } from '@/lib/i18n/catalogs';
import { getT, requestLocale, requestTimeZone } from '@/app/_lib/i18n/server';
import { PorticoIntlProvider } from './_components/intl-provider';
import { LanguageFooter } from './_components/language-footer';
import './globals.css';

export async function generateMetadata(): Promise<Metadata> {
  const t = await getT('meta');
  return {
    title: { default: 'Portico', template: '%s · Portico' },
    description: t('description'),
    referrer: 'same-origin',
  };
}

export default async function RootLayout({ children }: { children: ReactNode }) {
  const [locale, timeZone] = await Promise.all([requestLocale(), requestTimeZone()]);
  return (
    <html lang={locale}>
      <body>
        <PorticoIntlProvider locale={locale} messages={clientMessages(locale)} timeZone={timeZone}>
          {children}
        </PorticoIntlProvider>
        <LanguageFooter />
      </body>
    </html>
  );
}
