// POST /auth/app/<uid>/login – the sign-in card's form (lib/oidc/password-sign-in.ts does the work).
// A plain form POST (not a server action) so that any client, scripted or not, can complete it. The interaction
// cookie is SameSite=Lax and scoped to /auth/app/<uid>, so a cross-site POST carries no interaction.
import { relyingPartyOf } from '@/lib/accounts/factors/passkeys';
import { readCappedForm } from '@/lib/http/body';
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { completePasswordSignIn } from '@/lib/oidc/password-sign-in';
import { homeRealmOfAppSignIn } from '@/lib/oidc/home-realm';
import { federationCookie } from '@/lib/identity/federation/core';
import { federationDeps } from '../../../federation/_lib/deps';
import { db, runtime } from '@/lib/runtime';
import { afterOutcome, interactionRoute, seeOther } from '../../_lib/responses';
import { forgetTypedEmail, keepTypedEmail } from '../../../_lib/typed-email';

export const dynamic = 'force-dynamic';

export const POST = interactionRoute(async (request, { uid, card: cardPath, cookieHeader }) => {
  const card = cardPath;

  // The card's form is small: a larger body, or anything but a plain form, is answered like an empty form.
  const form = await readCappedForm(request, 32 * 1024).catch(() => undefined);
  const passkey = form?.get('passkey');
  if (passkey) {
    // "Sign in with a passkey": the same card, no email or password.
    const outcome = await completePasswordSignIn({
      provider: runtime().provider,
      db: db(),
      cookieHeader,
      uid,
      credential: { kind: 'passkey', answer: passkey, rp: relyingPartyOf(runtime().env.PORTICO_ISSUER) },
      clientIp: clientIpFromHeaders(request.headers),
      issuer: runtime().env.PORTICO_ISSUER,
    });
    return afterOutcome(card, outcome);
  }
  const email = form?.get('email') ?? null;
  const password = form?.get('password') ?? null;
  // The address first (home realm discovery): to the company's identity provider, or back here for the password.
  if (form?.get('step') === 'email' && !password) {
    if (typeof email !== 'string' || !email || email.length > 320) return keepingEmail(seeOther(`${card}?error=invalid_request`), card, email);
    const realm = await homeRealmOfAppSignIn(runtime().provider, db(), federationDeps(), { cookieHeader, uid, email, clientIp: clientIpFromHeaders(request.headers) }).catch(() => undefined);
    if (!realm) return seeOther(`/auth/federation/refused?reason=idp_error&back=${encodeURIComponent(`${card}?step=password`)}`);
    if (realm.kind === 'expired') return seeOther(card);
    if (realm.kind === 'password') return keepingEmail(seeOther(`${card}?step=password`), card, email);
    const response = seeOther(realm.location);
    response.headers.append('Set-Cookie', federationCookie(realm.token, runtime().env.issuerIsHttps));
    return response;
  }
  // Bounded lengths: the password goes into a memory-hard KDF.
  if (typeof email !== 'string' || typeof password !== 'string' || !email || !password || email.length > 320 || password.length > 1024) {
    return keepingEmail(seeOther(`${card}?error=invalid_request`), card, email);
  }

  const outcome = await completePasswordSignIn({
    provider: runtime().provider,
    db: db(),
    cookieHeader,
    uid,
    credential: { kind: 'password', email, password },
    clientIp: clientIpFromHeaders(request.headers),
    issuer: runtime().env.PORTICO_ISSUER,
  });
  const response = afterOutcome(card, outcome);
  if (outcome.kind === 'refused') return keepingEmail(response, card, email);
  const forget = forgetTypedEmail(card, runtime().env.issuerIsHttps, cookieHeader);
  if (forget) response.headers.append('Set-Cookie', forget);
  return response;
});

/** A refused form goes back to the card with the email the person typed (app/auth/_lib/typed-email.ts). */
function keepingEmail(response: Response, card: string, email: unknown): Response {
  const cookie = keepTypedEmail(card, email, runtime().env.issuerIsHttps);
  if (cookie) response.headers.append('Set-Cookie', cookie);
  return response;
}
