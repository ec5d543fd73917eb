// GET /demo/sign-in – starts a real authorization request for the seeded demo app, so that a newcomer can try the
// sign-in card from the home page. Only when the demo app's redirect URI is Portico's own stand-in page.
import { createHash, randomBytes } from 'node:crypto';
import { DEMO_CALLBACK_PATH } from '@/lib/env';
import { translator } from '@/lib/i18n/catalogs';
import { requestLocale } from '@/app/_lib/i18n/server';
import { db, runtime } from '@/lib/runtime';
import { readDemoSeed } from '@/lib/seed/demo';

export const dynamic = 'force-dynamic';

export async function GET() {
  const { env } = runtime();
  const demo = await readDemoSeed(db());
  if (!demo || demo.redirectUri !== `${env.PORTICO_ISSUER}${DEMO_CALLBACK_PATH}`) {
    const t = translator(await requestLocale(), 'demo');
    return new Response(t('notSetUp'), { status: 404, headers: { 'Content-Type': 'text/plain' } });
  }
  // The stand-in page never redeems the code, so the PKCE verifier is not kept; the challenge is still a real one.
  const codeChallenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
  const url = new URL('/oidc/auth', env.PORTICO_ISSUER);
  url.search = new URLSearchParams({
    client_id: demo.clientId,
    response_type: 'code',
    scope: 'openid email profile',
    redirect_uri: demo.redirectUri,
    state: randomBytes(16).toString('base64url'),
    code_challenge: codeChallenge,
    code_challenge_method: 'S256',
  }).toString();
  return new Response(null, { status: 303, headers: { Location: url.href, 'Cache-Control': 'no-store' } });
}
