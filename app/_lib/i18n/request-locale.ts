// The language of the page being rendered, from what this request tells (lib/i18n/negotiate.ts has the order):
// the authorization request's ui_locales on its sign-in card and consent, the language chosen in this browser (the
// footer's cookie) or saved on the signed-in person's account, the organization's default where the page belongs
// to one, and Accept-Language. Computed once per render.
import 'server-only';
import { AsyncLocalStorage } from 'node:async_hooks';
import { cache } from 'react';
import { cookies, headers } from 'next/headers';
import { findUserById } from '../../../lib/accounts/users';
import { CENTRAL_COOKIE, EMBEDDED_CENTRAL_COOKIE, findCentralSession } from '../../../lib/approvals/central';
import { currentInteraction, currentSignInTarget } from '../../../lib/oidc/current-interaction';
import { isInteractionUid } from '../../../lib/oidc/interactions';
import { db, runtime } from '../../../lib/runtime';
import { REQUESTED_PATH_HEADER } from '../../../lib/security/headers';
import { chooseLocale, LOCALE_COOKIE, type LocaleWishes } from '../../../lib/i18n/negotiate';
import { supportedTimeZone } from '../../../lib/i18n/time-zone';
import { consoleSessionOfRequest, organizationOfRequest } from '../request-reads';

export { LOCALE_COOKIE };

/** Console paths that are not an organization's slug. */
const CONSOLE_PAGES_OF_NO_ORGANIZATION = new Set(['login', 'account', 'confirm', 'orgs', 'session']);

/** What the path's signed-in person (or its organization) asks for: languages, and the time zone they saved. */
type PathWishes = Pick<LocaleWishes, 'uiLocales' | 'organizationDefault' | 'accountChoice'> & { timeZone?: string | null };

async function wishesOfPath(pathname: string): Promise<PathWishes> {
  const parts = pathname.split('/').filter(Boolean);
  if (parts[0] === 'auth' && parts[1] === 'app' && parts[2] && isInteractionUid(parts[2])) {
    const lookup = await currentInteraction(parts[2]);
    if (!lookup.ok) return {};
    const target = await currentSignInTarget(parts[2]);
    const org = target && target.kind !== 'unknown_client' ? target.context?.org : undefined;
    const accountId = lookup.interaction.session?.accountId;
    const account = accountId ? await findUserById(db(), accountId).catch(() => undefined) : undefined;
    return { uiLocales: lookup.interaction.params.ui_locales, organizationDefault: org?.defaultLocale, accountChoice: account?.locale, timeZone: account?.timeZone };
  }
  if (parts[0] === 'console') {
    const session = await consoleSessionOfRequest();
    const slug = parts[1] && !CONSOLE_PAGES_OF_NO_ORGANIZATION.has(parts[1]) ? parts[1] : undefined;
    const org = slug ? await organizationOfRequest(slug) : undefined;
    return { accountChoice: session?.user.locale, organizationDefault: org?.defaultLocale, timeZone: session?.user.timeZone };
  }
  if (parts[0] === 'central' || parts[0] === 'embedded-central') {
    const issuer = runtime().env.PORTICO_ISSUER;
    const embedded = parts[0] === 'embedded-central';
    const token = (await cookies()).get(embedded ? EMBEDDED_CENTRAL_COOKIE : CENTRAL_COOKIE)?.value;
    const session = await findCentralSession(db(), token, { origin: new URL(issuer).origin, installation: issuer, surface: embedded ? 'embedded' : 'external' });
    return { accountChoice: session?.user.locale, timeZone: session?.user.timeZone };
  }
  return {};
}

/**
 * A language already chosen for this request, for work that must not look it up again: a console action chooses it
 * before its transaction, and the translations its handler asks for inside the transaction come from here. (React's
 * `cache` memoizes a render, not a server action; looking the language up again would read the database outside
 * the transaction — on the embedded database, whose one connection the transaction holds, that read waits forever.)
 */
const pinnedLocale = new AsyncLocalStorage<string>();

export function withRequestLocale<T>(locale: string, work: () => Promise<T>): Promise<T> {
  return pinnedLocale.run(locale, work);
}

/** The path's wishes, looked up once per render for both the language and the time zone. */
const requestWishes = cache(async (): Promise<PathWishes> => {
  const requested = (await headers()).get(REQUESTED_PATH_HEADER) ?? '/';
  return wishesOfPath(new URL(requested, 'http://portico.invalid').pathname);
});

export const requestLocale = cache(async (): Promise<string> => {
  const pinned = pinnedLocale.getStore();
  if (pinned) return pinned;
  const { timeZone: _zone, ...wishes } = await requestWishes();
  return chooseLocale({
    ...wishes,
    personChoice: (await cookies()).get(LOCALE_COOKIE)?.value,
    acceptLanguage: (await headers()).get('accept-language'),
  });
});

/**
 * The time zone the signed-in person saved on their account (issue 56, item 3), for the moments of the page; none:
 * the browser's (app/_components/when.tsx).
 */
export const requestTimeZone = cache(async (): Promise<string | undefined> => supportedTimeZone((await requestWishes()).timeZone));
