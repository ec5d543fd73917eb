// The sign-in card an app's visitors land on when /oidc/auth finds no session. Everything shown is resolved on
// the server from the interaction (which oidc-provider validated): nothing is echoed from the query string.
import type { Metadata } from 'next';
import { headers } from 'next/headers';
import { notFound } from 'next/navigation';
import { displayedAppAddress, findAppSignInContext } from '@/lib/clients/app-context';
import { findInteraction } from '@/lib/oidc/interactions';
import { db, runtime } from '@/lib/runtime';
import { AppHeader, PasswordFields, SignInFrame } from '../_components/sign-in-frame';
import { isInteractionUid, isSignInErrorCode, SIGN_IN_ERRORS } from '@/lib/oidc/sign-in-errors';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Sign in' };

export default async function SignInPage(props: {
  params: Promise<{ uid: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { uid } = await props.params;
  if (!isInteractionUid(uid)) notFound();
  const searchParams = await props.searchParams;
  const errorCode = isSignInErrorCode(searchParams.error) ? searchParams.error : undefined;

  const lookup = await findInteraction(runtime().provider, (await headers()).get('cookie'), uid);
  if (!lookup.ok) {
    return (
      <SignInFrame>
        <h1>This sign-in has expired</h1>
        <p>Sign-in links are valid for a limited time and only in the browser that opened them. Go back to the application and sign in again.</p>
      </SignInFrame>
    );
  }

  const { interaction } = lookup;
  const clientId = String(interaction.params.client_id ?? '');
  const context = await findAppSignInContext(db(), clientId);
  if (!context) {
    return (
      <SignInFrame>
        <h1>Unknown application</h1>
        <p>This sign-in request does not come from an application registered with Portico.</p>
      </SignInFrame>
    );
  }

  const address = displayedAppAddress(context, interaction.params.redirect_uri);

  if (interaction.prompt.name === 'consent' && context.clientKind === 'app') {
    return (
      <SignInFrame org={context.org}>
        <AppHeader app={context.app} address={address} />
        <h1>Continue to {context.app.name}</h1>
        <p>You are signed in. {context.app.name} asks you to confirm before it continues.</p>
        <form method="post" action={`/auth/app/${uid}/continue`}>
          <button className="button" type="submit">
            Continue
          </button>
        </form>
      </SignInFrame>
    );
  }

  if (interaction.prompt.name !== 'login') {
    return (
      <SignInFrame org={context.org}>
        <AppHeader app={context.app} address={address} />
        <h1>Consent is not available yet</h1>
        <p>This application asks for a consent step that this Portico version does not offer.</p>
      </SignInFrame>
    );
  }

  return (
    <SignInFrame org={context.org}>
      <AppHeader app={context.app} address={address} />
      <h1>Sign in to {context.app.name}</h1>
      <p>Use your {context.org.brand?.displayName ?? context.org.name} account.</p>
      {errorCode ? (
        <div className="alert alert-error" role="alert" data-testid="sign-in-error">
          {errorCode === 'not_a_member'
            ? `Your account is not a member of ${context.org.name}, which publishes ${context.app.name}. Ask one of its administrators to add you.`
            : SIGN_IN_ERRORS[errorCode]}
        </div>
      ) : null}
      <form method="post" action={`/auth/app/${uid}/login`}>
        <PasswordFields />
        <button className="button" type="submit">
          Sign in
        </button>
      </form>
    </SignInFrame>
  );
}
