// Why a sign-in through a company's identity provider did not happen, in words from the catalogs (the query string
// only selects a reason and a way back among Portico's own sign-in pages).
import type { Metadata } from 'next';
import { getT } from '@/app/_lib/i18n/server';
import { isFederationRefusal } from '@/lib/identity/federation/core';
import { SignInFrame } from '../../app/_components/sign-in-frame';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT('federation'))('refusedTitle') };
}

/** Only Portico's own sign-in pages (an app's card, the console, the central, an identity settings page). */
function safeBack(back: unknown): string | undefined {
  if (typeof back !== 'string' || back.length > 300) return undefined;
  return /^\/(auth\/app\/[A-Za-z0-9_-]{1,64}(\?step=password)?|console\/login\?step=password|central\?step=password|console\/[a-z0-9-]{1,64}\/settings\/identity)$/.test(back) ? back : undefined;
}

export default async function RefusedPage(props: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { reason, back } = await props.searchParams;
  const t = await getT('federation');
  const why = isFederationRefusal(reason) ? reason : 'expired';
  const href = safeBack(back);
  return (
    <SignInFrame>
      <h1>{t('refusedTitle')}</h1>
      <div className="alert alert-error" role="alert" data-testid="federation-refused" data-reason={why}>
        {t(`reasons.${why}`)}
      </div>
      {href ? (
        <a className="button" href={href}>
          {t('tryAgain')}
        </a>
      ) : null}
    </SignInFrame>
  );
}
