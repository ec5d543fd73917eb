// The redirects every sign-in continuation answers with, and where a refusal offers to go back to: one place for the
// password step, the second step and a company identity provider's callback.
import 'server-only';
import type { SecondStepContinuation } from '@/lib/accounts/sign-in-second-step';
import type { FederationContinuation } from '@/lib/identity/federation/core';
import { interactionPath } from '@/lib/oidc/interactions';

/** 303 See Other (RFC 9110 §15.4.4: the next request is a GET), never cached, with the cookies to set. */
export function seeOther(location: string, ...cookieLines: (string | undefined)[]): Response {
  const headers = new Headers({ Location: location, 'Cache-Control': 'no-store' });
  for (const line of cookieLines) if (line) headers.append('Set-Cookie', line);
  return new Response(null, { status: 303, headers });
}

/** Where the person started: the page a refusal offers to go back to (an app's card, the console, the central). */
export function startedAt(continuation: FederationContinuation | SecondStepContinuation | undefined): string {
  const signIn = continuation && 'signIn' in continuation ? continuation.signIn : continuation && continuation.surface !== 'test' ? (continuation as SecondStepContinuation) : undefined;
  if (continuation?.surface === 'test') return `/console/${continuation.orgSlug}/settings/identity/connections`;
  if (signIn?.surface === 'app') return `${interactionPath(signIn.uid)}?step=password`;
  if (signIn?.surface === 'central') return '/central?step=password';
  return '/console/login?step=password';
}
