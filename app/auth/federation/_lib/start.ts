// Home realm discovery for the console and the central (they belong to no organization): an address at a verified
// domain tied to any organization's enabled connection goes to that company's identity provider.
import 'server-only';
import type { SecondStepContinuation } from '@/lib/accounts/sign-in-second-step';
import { connectionForEmail } from '@/lib/identity/connections';
import { federationCookie } from '@/lib/identity/federation/core';
import { beginFederatedSignIn } from '@/lib/identity/federation/begin';
import { db, runtime } from '@/lib/runtime';
import { federationDeps } from './deps';
import { seeOther } from '../../_lib/redirects';

/** The redirect to the identity provider (with the federation cookie), or undefined: the person uses a password. */
export async function federatedStart(email: string, signIn: Extract<SecondStepContinuation, { surface: 'console' | 'central' }>, back: string): Promise<Response | undefined> {
  const connection = await connectionForEmail(db(), email, {});
  if (!connection) return undefined;
  try {
    const started = await beginFederatedSignIn(db(), federationDeps(), connection, { surface: 'sign_in', signIn, mfaRequested: false }, email);
    return seeOther(started.location, federationCookie(started.token, runtime().env.issuerIsHttps));
  } catch {
    // The identity provider cannot be reached (discovery failed): said as such, with the way back to the password.
    return seeOther(`/auth/federation/refused?reason=idp_error&back=${encodeURIComponent(back)}`);
  }
}
