// The demo app's redirect URI when no real app is configured: it shows what the app received, without echoing it.
import type { Metadata } from 'next';
import { getT } from '@/app/_lib/i18n/server';
import { runtime } from '@/lib/runtime';
import { SignInFrame } from '../../auth/app/_components/sign-in-frame';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT('demo'))('pageTitle') };
}

// RFC 6749 §4.1.2.1 error codes: only these are named on the page.
const AUTHORIZATION_ERRORS = new Set([
  'invalid_request',
  'unauthorized_client',
  'access_denied',
  'unsupported_response_type',
  'invalid_scope',
  'server_error',
  'temporarily_unavailable',
  'login_required',
  'consent_required',
  'interaction_required',
]);

export default async function DemoCallbackPage(props: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const query = await props.searchParams;
  const issuer = runtime().env.PORTICO_ISSUER;
  const fromThisIssuer = query.iss === issuer; // RFC 9207
  const code = typeof query.code === 'string' && /^[A-Za-z0-9_-]{16,256}$/.test(query.code);
  const error = typeof query.error === 'string' && AUTHORIZATION_ERRORS.has(query.error) ? query.error : undefined;
  const t = await getT('demo');

  return (
    <SignInFrame>
      {code && fromThisIssuer ? (
        <>
          <h1>{t('signedInTitle')}</h1>
          <p>{t.rich('signedInBody', { code: (chunks) => <code>{chunks}</code> })}</p>
        </>
      ) : (
        <>
          <h1>{t('failedTitle')}</h1>
          <p>{error ? t('error', { error }) : t('noResponse')}</p>
        </>
      )}
      <p>
        <a href="/">{t('back')}</a>
      </p>
    </SignInFrame>
  );
}
