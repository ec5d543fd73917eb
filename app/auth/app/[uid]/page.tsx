// The authorization screens an app's visitors and MCP clients land on when /oidc/auth needs a person: sign-in,
// consent (MCP clients only: who acts), or a refusal that says why. Everything shown is resolved on the server
// from the interaction (which oidc-provider validated): nothing is echoed from the query string.
import type { Metadata } from 'next';
import { cookies, headers } from 'next/headers';
import { pendingSecondStep, SECOND_STEP_COOKIE, secondFactorsOf } from '@/lib/accounts/sign-in-second-step';
import { notFound } from 'next/navigation';
import { displayedAppAddress } from '@/lib/clients/app-context';
import { RESOURCE_REFUSAL_MESSAGES } from '@/lib/clients/binding';
import { findInteraction } from '@/lib/oidc/interactions';
import { findSignInTarget } from '@/lib/oidc/sign-in-target';
import { db, runtime } from '@/lib/runtime';
import { typedEmail } from '../../_lib/typed-email';
import { emailFromLoginHint } from '@/lib/oidc/login-hint';
import { AppHeader, endedSecondStepMessage, PasswordSignInForm, SECOND_FACTOR_ERRORS, SecondFactorForm, SignInFrame } from '../_components/sign-in-frame';
import { ConsentCard } from '../_components/consent-card';
import { isSignInErrorCode, SIGN_IN_ERRORS } from '@/lib/oidc/sign-in-errors';
import { interactionPath, isInteractionUid } from '@/lib/oidc/interactions';
import { isConsentErrorCode } from '@/lib/oidc/consent';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Sign in' };

export default async function SignInPage(props: {
  params: Promise<{ uid: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { uid } = await props.params;
  if (!isInteractionUid(uid)) notFound();
  const searchParams = await props.searchParams;

  const { provider } = runtime();
  const lookup = await findInteraction(provider, (await headers()).get('cookie'), uid);
  if (!lookup.ok) {
    return (
      <SignInFrame>
        <h1>This sign-in has expired</h1>
        <p>Sign-in links are valid for a limited time and only in the browser that opened them. Go back to the application and sign in again.</p>
      </SignInFrame>
    );
  }

  const { interaction } = lookup;
  const target = await findSignInTarget(db(), provider, runtime().env.PORTICO_ISSUER, interaction.params);
  if (target.kind === 'unknown_client') {
    return (
      <SignInFrame>
        <h1>Unknown application</h1>
        <p>This sign-in request does not come from an application registered with Portico.</p>
      </SignInFrame>
    );
  }

  if (target.kind === 'refused') {
    return (
      <SignInFrame org={target.context?.org}>
        {target.context ? <AppHeader app={target.context.app} address={target.context.app.publishOrigin ?? undefined} /> : null}
        <h1>{target.client.name} cannot connect</h1>
        <div className="alert alert-error" role="alert" data-testid="authorization-refused" data-reason={target.reason}>
          {RESOURCE_REFUSAL_MESSAGES[target.reason]}
        </div>
        <form method="post" action={`${interactionPath(uid)}/abort`}>
          <button className="button" type="submit">
            Return to {target.client.name}
          </button>
        </form>
      </SignInFrame>
    );
  }

  const { context } = target;
  const org = context.org ?? undefined;
  const accountName = org ? (org.brand?.displayName ?? org.name) : 'Portico';
  const address = target.kind === 'app_client' ? displayedAppAddress(target.context, interaction.params.redirect_uri) : (context.app.publishOrigin ?? undefined);

  if (interaction.prompt.name === 'consent' && target.kind === 'app_client') {
    return (
      <SignInFrame org={org}>
        <AppHeader app={context.app} address={address} />
        <h1>Continue to {context.app.name}</h1>
        <p>You are signed in. {context.app.name} asks you to confirm before it continues.</p>
        <form method="post" action={`${interactionPath(uid)}/continue`}>
          <button className="button" type="submit">
            Continue
          </button>
        </form>
      </SignInFrame>
    );
  }

  if (interaction.prompt.name === 'consent' && target.kind === 'mcp_client' && interaction.session?.accountId) {
    const consentError = isConsentErrorCode(searchParams.error) ? searchParams.error : undefined;
    return (
      <ConsentCard
        uid={uid}
        target={target}
        accountId={interaction.session.accountId}
        redirectUri={String(interaction.params.redirect_uri ?? '')}
        scope={String(interaction.params.scope ?? '')}
        error={consentError}
      />
    );
  }

  if (interaction.prompt.name !== 'login') {
    return (
      <SignInFrame org={org}>
        <AppHeader app={context.app} address={address} />
        <h1>This request cannot continue</h1>
        <p>The application asked for a step that Portico does not offer. Go back to the application and try again.</p>
      </SignInFrame>
    );
  }

  // The password was right and the account has a second factor: this browser's pending sign-in for this interaction.
  const pending = await pendingSecondStep(db(), (await cookies()).get(SECOND_STEP_COOKIE)?.value);
  if (pending?.continuation.surface === 'app' && pending.continuation.uid === uid) {
    const secondFactorError = searchParams.second_factor === 'wrong' ? SECOND_FACTOR_ERRORS.wrong : undefined;
    return (
      <SignInFrame org={org}>
        <AppHeader app={context.app} address={address} />
        <h1>Sign in to {context.app.name}</h1>
        <SecondFactorForm
          action={`${interactionPath(uid)}/second-factor`}
          factors={await secondFactorsOf(db(), pending.user.id)}
          error={secondFactorError}
          recovery={searchParams.method === 'recovery_code'}
        />
      </SignInFrame>
    );
  }

  const errorCode = isSignInErrorCode(searchParams.error) ? searchParams.error : undefined;
  const expiredSecondStep = endedSecondStepMessage(searchParams.second_factor);
  return (
    <SignInFrame org={org}>
      <AppHeader app={context.app} address={address} />
      <h1>Sign in to {context.app.name}</h1>
      {target.kind === 'mcp_client' ? (
        <p>
          <strong>{target.client.name}</strong> wants to connect to {context.app.name}. Sign in with your {accountName} account first; you will then choose what it may do.
        </p>
      ) : (
        <p>Use your {accountName} account.</p>
      )}
      <PasswordSignInForm
        action={`${interactionPath(uid)}/login`}
        recoverHref={`${interactionPath(uid)}/recover`}
        error={
          errorCode === 'not_a_member'
            ? `Your account is not a member of ${org?.name ?? 'the organization'}, which publishes ${context.app.name}. Ask one of its administrators to add you.`
            : errorCode
              ? SIGN_IN_ERRORS[errorCode]
              : expiredSecondStep
        }
        email={(searchParams.error ? await typedEmail() : undefined) ?? emailFromLoginHint(interaction.params.login_hint)}
      />
    </SignInFrame>
  );
}
