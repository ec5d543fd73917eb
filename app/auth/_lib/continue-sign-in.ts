// The end of a sign-in's second step (or of setting one up), on every surface: the session or the interaction it was
// for, from the continuation stored with the pending sign-in (never from the request), and the second-step cookie
// cleared. One place, so the console, the central and the app sign-in card continue the same way.
import 'server-only';
import { consoleSessionCookie, createConsoleSession } from '@/lib/accounts/console-sessions';
import { consoleReturnPath } from '@/lib/accounts/console-sign-in';
import { recordSignInSuccess } from '@/lib/accounts/sign-in-events';
import { ACR_MFA, clearedSecondStepCookie, type SecondFactorMethod, type SecondStepContinuation } from '@/lib/accounts/sign-in-second-step';
import type { User } from '@/lib/accounts/users';
import { openCentralSession } from '@/lib/approvals/central';
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { completeFederatedLink } from '@/lib/identity/federation/core';
import { interactionPath } from '@/lib/oidc/interactions';
import { finishAppSignIn } from '@/lib/oidc/password-sign-in';
import { db, runtime } from '@/lib/runtime';
import { centralBinding, centralCookie } from '../../central/_lib/central';
import { seeOther, startedAt } from './redirects';


/** `method`: the second factor the sign-in's second step was done with, when it had one. */
export async function continueSignIn(request: Request, done: { user: User; continuation: SecondStepContinuation; amr: string[]; method?: SecondFactorMethod }): Promise<Response> {
  const { env, provider } = runtime();
  const ip = clientIpFromHeaders(request.headers);
  const cleared = clearedSecondStepCookie(env.issuerIsHttps);
  const { user, continuation } = done;
  // A company identity provider's subject waiting to be linked to this account once its whole sign-in was done.
  const linked = await completeFederatedLink(db(), user, continuation, ip);
  if (linked !== 'linked') {
    return seeOther(`/auth/federation/refused?reason=${linked}&back=${encodeURIComponent(startedAt(continuation))}`, cleared);
  }
  await recordSignInSuccess(db(), { ...continuation.events, ip }, user);
  if (continuation.surface === 'console') {
    const token = await createConsoleSession(db(), user, { ip, userAgent: request.headers.get('user-agent') ?? undefined });
    return seeOther(consoleReturnPath(continuation.next), consoleSessionCookie(token, env.issuerIsHttps), cleared);
  }
  if (continuation.surface === 'central') {
    // Where the sign-in was headed was checked (a central URL only) when the password step stored it. An
    // authenticator's code proven here stands in for a decision's step-up for a few minutes (the same code cannot be
    // typed twice); a passkey as a second step may lack user verification, which a step-up requires, so it does not.
    const signInFactor = done.method === 'totp' ? 'totp' : undefined;
    return seeOther(continuation.next, centralCookie(await openCentralSession(db(), user, centralBinding(), signInFactor)), cleared);
  }
  const location = await finishAppSignIn(provider, request.headers.get('cookie'), continuation.uid, { accountId: user.id, amr: done.amr, acr: ACR_MFA, firstParty: continuation.firstParty }).catch(() => undefined);
  return seeOther(location ?? interactionPath(continuation.uid), cleared);
}
