// POST /language {locale, back} – the language switcher of the pages oidc-provider renders (the device pages, its
// error and logout pages: lib/oidc/provider-pages.ts), which are plain HTML and cannot post a server action. The
// same choice as every other page's footer (chooseLanguage), then back to the page it was made on.
import { chooseLanguage } from '@/app/_components/language-actions';
import { readCappedForm } from '@/lib/http/body';
import { runtime } from '@/lib/runtime';

export const dynamic = 'force-dynamic';

/** Only a path of this site (never `//host` or a scheme): no open redirect. */
function samePath(value: unknown): string {
  return typeof value === 'string' && /^\/(?![/\\])/.test(value) && value.length <= 2048 ? value : '/';
}

export async function POST(request: Request): Promise<Response> {
  // Another site must not change this browser's (or its signed-in person's) language.
  if (request.headers.get('origin') !== new URL(runtime().env.PORTICO_ISSUER).origin) {
    return new Response('Cross-origin request refused.', { status: 403, headers: { 'Content-Type': 'text/plain' } });
  }
  const form = await readCappedForm(request, 8 * 1024);
  if (form) {
    const choice = new FormData();
    choice.set('locale', form.get('locale') ?? '');
    await chooseLanguage(choice);
  }
  return new Response(null, { status: 303, headers: { Location: samePath(form?.get('back')), 'Cache-Control': 'no-store' } });
}
