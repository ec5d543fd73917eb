'use server';
// The footer's language switcher. The choice is kept in this browser (a cookie that holds only the tag) and, for
// a person signed in here, on their account, so their other browsers and the mail they receive follow it. A server
// action posts to the page it is on: the console's and the central's path-scoped session cookies come with it, and
// Next.js refuses it from another origin.
import { cookies, headers } from 'next/headers';
import { eq, inArray } from 'drizzle-orm';
import { CONSOLE_SESSION_COOKIE, findConsoleSession } from '@/lib/accounts/console-sessions';
import { CENTRAL_COOKIE, EMBEDDED_CENTRAL_COOKIE, findCentralSession } from '@/lib/approvals/central';
import { users } from '@/lib/db/schema';
import { supportedLocale } from '@/lib/i18n/catalogs';
import { LOCALE_COOKIE } from '@/app/_lib/i18n/request-locale';
import { findBrowserSession } from '@/lib/oidc/interactions';
import { db, runtime } from '@/lib/runtime';

const ONE_YEAR_SECONDS = 365 * 24 * 3600;

export async function chooseLanguage(formData: FormData): Promise<void> {
  const locale = supportedLocale(formData.get('locale'));
  if (!locale) return;
  const jar = await cookies();
  const { env, provider } = runtime();
  jar.set(LOCALE_COOKIE, locale, { path: '/', httpOnly: true, sameSite: 'lax', secure: env.issuerIsHttps, maxAge: ONE_YEAR_SECONDS });

  const signedIn = new Set<string>();
  const consoleSession = await findConsoleSession(db(), jar.get(CONSOLE_SESSION_COOKIE)?.value);
  if (consoleSession) signedIn.add(consoleSession.user.id);
  const issuer = env.PORTICO_ISSUER;
  // Both centrals: inside another site's frame this cookie of ours may not be kept (SameSite=Lax), the account's choice is.
  for (const [cookie, surface] of [[CENTRAL_COOKIE, 'external'], [EMBEDDED_CENTRAL_COOKIE, 'embedded']] as const) {
    const centralSession = await findCentralSession(db(), jar.get(cookie)?.value, { origin: new URL(issuer).origin, installation: issuer, surface });
    if (centralSession) signedIn.add(centralSession.user.id);
  }
  const browserSession = await findBrowserSession(provider, (await headers()).get('cookie')).catch(() => undefined);
  if (browserSession) signedIn.add(browserSession.accountId);
  if (signedIn.size > 0) await db().update(users).set({ locale }).where(signedIn.size === 1 ? eq(users.id, [...signedIn][0]!) : inArray(users.id, [...signedIn]));
}
