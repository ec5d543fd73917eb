// POST /auth/federation/link/prove – the link page's form: the existing account's password, under the sign-in
// throttle and five tries per sign-in; right, the identity provider's subject is linked and the sign-in goes on.
import { recordSignInRefusal } from '@/lib/accounts/sign-in-events';
import { throttledPasswordCheck } from '@/lib/accounts/factors/throttled-password-check';
import { readCappedForm } from '@/lib/http/body';
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { federationTokenFromCookies, linkAfterProof } from '@/lib/identity/federation/core';
import { db, runtime } from '@/lib/runtime';
import { seeOther } from '../../../_lib/redirects';
import { respondToFederation } from '../../_lib/respond';

export const dynamic = 'force-dynamic';

export async function POST(request: Request): Promise<Response> {
  // Same origin only: another site must not drive this browser's linking.
  if (request.headers.get('origin') !== runtime().env.PORTICO_ISSUER) return new Response('Cross-origin request refused.', { status: 403, headers: { 'Content-Type': 'text/plain' } });
  const form = await readCappedForm(request, 16 * 1024).catch(() => undefined);
  const password = form?.get('password');
  if (typeof password !== 'string' || !password || password.length > 1024) return seeOther('/auth/federation/link');
  const ip = clientIpFromHeaders(request.headers);
  const outcome = await linkAfterProof(db(), {
    cookieToken: federationTokenFromCookies(request.headers.get('cookie')),
    ip,
    check: async (user, surface) => {
      const checked = await throttledPasswordCheck(db(), user.email, password, ip);
      if (!checked.ok) await recordSignInRefusal(db(), { surface, ip }, user.email, checked);
      return checked.ok && checked.user.id === user.id;
    },
  });
  if (outcome.kind === 'wrong') return seeOther(outcome.attemptsLeft > 0 ? `/auth/federation/link?wrong=${outcome.attemptsLeft}` : '/auth/federation/link');
  return respondToFederation(request, outcome);
}
