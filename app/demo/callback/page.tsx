// The demo app's redirect URI when no real app is configured: it shows what the app received, without echoing it.
import type { Metadata } from 'next';
import { runtime } from '@/lib/runtime';
import { SignInFrame } from '../../auth/app/_components/sign-in-frame';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Demo app' };

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

  return (
    <SignInFrame>
      {code && fromThisIssuer ? (
        <>
          <h1>Signed in to Demo App</h1>
          <p>
            Portico sent Demo App an authorization code. This page stands in for the app: a real app now exchanges the
            code at <code>/oidc/token</code> with its client secret and PKCE verifier, and receives tokens.
          </p>
        </>
      ) : (
        <>
          <h1>Demo App did not sign you in</h1>
          <p>{error ? `Portico answered with the error “${error}”.` : 'This page did not receive a valid authorization response.'}</p>
        </>
      )}
      <p>
        <a href="/">Back to Portico</a>
      </p>
    </SignInFrame>
  );
}
