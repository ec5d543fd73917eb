// The credentials of a new app, carried from the create form to the app's own page and shown there once: the
// create action seals them (AES-256-GCM, the at-rest key) into a short cookie scoped to that app's page, and the page
// opens it. Never in a URL (logs, history, Referer), never in the database in the clear.
// - The cookie is HttpOnly, SameSite=Strict, Secure off loopback, Path = the app's page, 10 minutes at most.
// - Sealed with the console session it was made in and the app's id: another session or another app's page opens
//   nothing, and a tampered cookie fails the authentication tag.
// - "I have stored these" deletes it; otherwise it expires. Until then a reload of that page in that browser shows
//   the same values to the same person (they are theirs; nobody else can ask for them).
import 'server-only';
import { cookies } from 'next/headers';
import { decryptAtRest, encryptAtRest } from '@/lib/security/at-rest';
import { runtime } from '@/lib/runtime';

const COOKIE = 'portico_new_app_credentials';
const LIFETIME_SECONDS = 600;

/** Marks what the sealed value is for: nothing else sealed with the at-rest key opens as new-app credentials. */
const PURPOSE = 'portico:new-app-credentials';

interface Sealed {
  purpose: typeof PURPOSE;
  appId: string;
  session: string;
  lines: string[];
  expiresAt: number;
}

function appPath(org: string, appId: string): string {
  return `/console/${org}/apps/${appId}`;
}

export async function keepNewCredentials(input: { org: string; appId: string; consoleSession: string; lines: string[] }): Promise<void> {
  const sealed: Sealed = { purpose: PURPOSE, appId: input.appId, session: input.consoleSession, lines: input.lines, expiresAt: Date.now() + LIFETIME_SECONDS * 1000 };
  (await cookies()).set(COOKIE, await encryptAtRest(JSON.stringify(sealed), runtime().atRestKey), {
    path: appPath(input.org, input.appId),
    httpOnly: true,
    sameSite: 'strict',
    secure: runtime().env.issuerIsHttps,
    maxAge: LIFETIME_SECONDS,
  });
}

/** The credentials sealed for this app's page in this console session, while they last. */
export async function newCredentialsFor(appId: string, consoleSession: string): Promise<string[] | undefined> {
  const value = (await cookies()).get(COOKIE)?.value;
  if (!value || value.length > 8192) return undefined;
  try {
    const sealed = JSON.parse(await decryptAtRest(value, runtime().atRestKey)) as Sealed;
    if (sealed.purpose !== PURPOSE || sealed.appId !== appId || sealed.session !== consoleSession || !(sealed.expiresAt > Date.now()) || !Array.isArray(sealed.lines)) return undefined;
    return sealed.lines.filter((line): line is string => typeof line === 'string');
  } catch {
    return undefined;
  }
}

export async function forgetNewCredentials(org: string, appId: string): Promise<void> {
  (await cookies()).set(COOKIE, '', { path: appPath(org, appId), httpOnly: true, sameSite: 'strict', secure: runtime().env.issuerIsHttps, maxAge: 0 });
}
