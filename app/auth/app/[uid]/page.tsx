// The authorization screens an app's visitors and MCP clients land on when /oidc/auth needs a person: sign-in,
// consent (MCP clients only: who acts), or a refusal that says why. Everything shown is resolved on the server
// from the interaction (which oidc-provider validated): nothing is echoed from the query string.
import type { Metadata } from 'next';
import { cookies } from 'next/headers';
import { pendingSecondStep, SECOND_STEP_COOKIE, secondFactorsOf } from '@/lib/accounts/sign-in-second-step';
import { notFound } from 'next/navigation';
import { displayedAppAddress } from '@/lib/clients/app-context';
import { resourceRefusalMessage } from '@/lib/clients/binding';
import { currentInteraction, currentSignInTarget } from '@/lib/oidc/current-interaction';
import { getT, requestLocale } from '@/app/_lib/i18n/server';
import { db } from '@/lib/runtime';
import { typedEmail } from '../../_lib/typed-email';
import { emailFromLoginHint } from '@/lib/oidc/login-hint';
import { AppHeader, endedSecondStepMessage, PasswordSignInForm, secondFactorError, SecondFactorForm, SignInFrame } from '../_components/sign-in-frame';
import { ConsentCard } from '../_components/consent-card';
import { hasEnabledConnection } from '@/lib/identity/connections';
import { isSignInErrorCode, signInErrorMessage } from '@/lib/oidc/sign-in-errors';
import { interactionPath, isInteractionUid } from '@/lib/oidc/interactions';
import { isConsentErrorCode } from '@/lib/oidc/consent';

export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT('signIn'))('pageTitle') };
}

export default async function SignInPage(props: {
  params: Promise<{ uid: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { uid } = await props.params;
  if (!isInteractionUid(uid)) notFound();
  const searchParams = await props.searchParams;

  const t = await getT('signIn');
  const lookup = await currentInteraction(uid);
  const target = await currentSignInTarget(uid);
  if (!lookup.ok || !target) {
    return (
      <SignInFrame>
        <h1>{t('expiredTitle')}</h1>
        <p>{t('expiredBody')}</p>
      </SignInFrame>
    );
  }

  const { interaction } = lookup;
  if (target.kind === 'unknown_client') {
    return (
      <SignInFrame>
        <h1>{t('unknownAppTitle')}</h1>
        <p>{t('unknownAppBody')}</p>
      </SignInFrame>
    );
  }

  if (target.kind === 'refused') {
    return (
      <SignInFrame org={target.context?.org}>
        {target.context ? <AppHeader app={target.context.app} address={target.context.app.publishOrigin ?? undefined} /> : null}
        <h1>{t('cannotConnectTitle', { client: target.client.name })}</h1>
        <div className="alert alert-error" role="alert" data-testid="authorization-refused" data-reason={target.reason}>
          {resourceRefusalMessage(target.reason, await requestLocale())}
        </div>
        <form method="post" action={`${interactionPath(uid)}/abort`}>
          <button className="button" type="submit">
            {t('returnTo', { client: target.client.name })}
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
        <h1>{t('continueTitle', { app: context.app.name })}</h1>
        <p>{t('continueBody', { app: context.app.name })}</p>
        <form method="post" action={`${interactionPath(uid)}/continue`}>
          <button className="button" type="submit">
            {t('continueButton')}
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
        <h1>{t('unsupportedTitle')}</h1>
        <p>{t('unsupportedBody')}</p>
      </SignInFrame>
    );
  }

  // The password was right and the account has a second factor: this browser's pending sign-in for this interaction.
  const pending = await pendingSecondStep(db(), (await cookies()).get(SECOND_STEP_COOKIE)?.value);
  if (pending?.continuation.surface === 'app' && pending.continuation.uid === uid) {
    const wrongSecondFactor = searchParams.second_factor === 'wrong' ? await secondFactorError('wrong') : undefined;
    return (
      <SignInFrame org={org}>
        <AppHeader app={context.app} address={address} />
        <h1>{t('title', { app: context.app.name })}</h1>
        <SecondFactorForm
          action={`${interactionPath(uid)}/second-factor`}
          factors={await secondFactorsOf(db(), pending.user.id)}
          error={wrongSecondFactor}
          recovery={searchParams.method === 'recovery_code'}
        />
      </SignInFrame>
    );
  }

  const errorCode = isSignInErrorCode(searchParams.error) ? searchParams.error : undefined;
  const expiredSecondStep = await endedSecondStepMessage(searchParams.second_factor);
  // An organization that signs some people in through its company's identity provider asks for the address first.
  const passwordStep = searchParams.step === 'password' || errorCode !== undefined;
  const emailFirst = !passwordStep && org !== undefined && (await hasEnabledConnection(db(), org.id));
  return (
    <SignInFrame org={org}>
      <AppHeader app={context.app} address={address} />
      <h1>{t('title', { app: context.app.name })}</h1>
      {target.kind === 'mcp_client' ? (
        <p>{t.rich('mcpIntro', { strong: (chunks) => <strong>{chunks}</strong>, client: target.client.name, app: context.app.name, account: accountName })}</p>
      ) : (
        <p>{t('appIntro', { account: accountName })}</p>
      )}
      <PasswordSignInForm
        action={`${interactionPath(uid)}/login`}
        recoverHref={`${interactionPath(uid)}/recover`}
        error={
          errorCode === 'not_a_member' && org
            ? t('notMemberOf', { org: org.name, app: context.app.name })
            : errorCode
              ? signInErrorMessage(errorCode, await requestLocale())
              : expiredSecondStep
        }
        email={(passwordStep ? await typedEmail() : undefined) ?? emailFromLoginHint(interaction.params.login_hint)}
        emailFirst={emailFirst}
      />
    </SignInFrame>
  );
}
