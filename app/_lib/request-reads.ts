// Reads that several parts of one page's render ask for — the root layout (language, time zone), the console layout,
// the page and its metadata — done once per render. React's cache memoizes a render only: a server action, and every
// new request, reads afresh, so a session ended or a membership removed is seen at the next request, on any instance.
// (Before, a console page read its session three times, its organization three times and the role twice: issue 61.)
import 'server-only';
import { cache } from 'react';
import { cookies } from 'next/headers';
import { CONSOLE_SESSION_COOKIE, findConsoleSession } from '@/lib/accounts/console-sessions';
import { findMembershipRole } from '@/lib/organizations/memberships';
import { findOrganizationBySlug } from '@/lib/organizations/organizations';
import { db } from '@/lib/runtime';

/** The console session of this request's cookie, if it is valid. */
export const consoleSessionOfRequest = cache(async () => findConsoleSession(db(), (await cookies()).get(CONSOLE_SESSION_COOKIE)?.value));

/** The organization of a slug, as this render sees it. */
export const organizationOfRequest = cache((slug: string) => findOrganizationBySlug(db(), slug));

/** A person's role in an organization, as this render sees it. */
export const membershipRoleOfRequest = cache((orgId: string, userId: string) => findMembershipRole(db(), orgId, userId));
