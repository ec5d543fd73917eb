// POST /auth/app/<uid>/login – the sign-in card's form: checks the password and finishes the login interaction.
// A plain form POST (not a server action) so that any client, scripted or not, can complete it. The interaction
// cookie is SameSite=Lax and scoped to /auth/app/<uid>, so a cross-site POST carries no interaction.
import { authenticateWithPassword } from '@/lib/accounts/users';
import { findAppSignInContext } from '@/lib/clients/app-context';
import { findInteraction, finishInteraction } from '@/lib/oidc/interactions';
import { db, runtime } from '@/lib/runtime';
import { isInteractionUid, type SignInErrorCode } from '../../sign-in-errors';

export const dynamic = 'force-dynamic';

function seeOther(location: string): Response {
  return new Response(null, { status: 303, headers: { Location: location, 'Cache-Control': 'no-store' } });
}

export async function POST(request: Request, { params }: { params: Promise<{ uid: string }> }) {
  const { uid } = await params;
  if (!isInteractionUid(uid)) return new Response('Not found', { status: 404 });
  const card = `/auth/app/${uid}`;
  const back = (code: SignInErrorCode) => seeOther(`${card}?error=${code}`);

  let email: unknown;
  let password: unknown;
  try {
    const form = await request.formData();
    email = form.get('email');
    password = form.get('password');
  } catch {
    return back('invalid_request');
  }
  // Bounded lengths: the password goes into a memory-hard KDF.
  if (typeof email !== 'string' || typeof password !== 'string' || !email || !password || email.length > 320 || password.length > 1024) {
    return back('invalid_request');
  }

  const { provider } = runtime();
  const cookieHeader = request.headers.get('cookie');
  const lookup = await findInteraction(provider, cookieHeader, uid);
  if (!lookup.ok || lookup.interaction.prompt.name !== 'login') return seeOther(card);

  const result = await authenticateWithPassword(db(), email, password);
  if (!result.ok) return back(result.reason);

  // An app's own client is first-party: signing in is the consent (also when the app asked for prompt=consent).
  const context = await findAppSignInContext(db(), String(lookup.interaction.params.client_id ?? ''));
  const login = { accountId: result.user.id };
  const resumeUrl = await finishInteraction(provider, cookieHeader, uid, context?.clientKind === 'app' ? { login, consent: {} } : { login });
  return seeOther(resumeUrl);
}
