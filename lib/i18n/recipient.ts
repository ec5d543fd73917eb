// The language of a mail: the recipient's own choice (saved on their account), else the default of the
// organization the mail is about, else — when that organization's default is "the browser's", which a mail does not
// have — the language of the person who acted (the inviter as they saw the console, the person who asked), else the
// default of the first organization they joined, else English. A person without an account yet (an invitation) gets
// the inviting organization's default, or the inviter's language: never English by accident.
import { asc, eq, sql } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { memberships, organizations, users } from '../db/schema';
import { supportedLocale } from './catalogs';
import { recipientLocale } from './negotiate';
import { normalizeEmail } from '../util/email';

/** The default language of the first organization this account joined that has one. */
async function firstOrganizationDefault(db: Queryable, userId: string): Promise<string | null | undefined> {
  const [first] = await db
    .select({ defaultLocale: organizations.defaultLocale })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.orgId))
    .where(sql`${memberships.userId} = ${userId} AND ${organizations.defaultLocale} IS NOT NULL`)
    .orderBy(asc(memberships.createdAt))
    .limit(1);
  return first?.defaultLocale;
}

export async function mailLocaleFor(db: Queryable, input: { email: string; orgId?: string | null; actingLocale?: string | null }): Promise<string> {
  const [account] = await db
    .select({ id: users.id, locale: users.locale })
    .from(users)
    .where(eq(users.email, normalizeEmail(input.email)))
    .limit(1);
  // A stored value no catalog has any more is no choice.
  const own = supportedLocale(account?.locale);
  if (own) return own;
  if (input.orgId) {
    const [org] = await db.select({ defaultLocale: organizations.defaultLocale }).from(organizations).where(eq(organizations.id, input.orgId));
    const ofOrganization = supportedLocale(org?.defaultLocale);
    if (ofOrganization) return ofOrganization;
  }
  const ofActor = supportedLocale(input.actingLocale);
  if (ofActor) return ofActor;
  if (!account) return recipientLocale({});
  return recipientLocale({ organizationDefault: await firstOrganizationDefault(db, account.id) });
}

/**
 * The language of what Portico tells a person away from its pages (the texts an agent relays to them: confirmation
 * challenges, approval requests): their account's choice, else the default of the first organization they joined,
 * else English. Given the account row (its `locale` read already), the choice costs no query; an id that names no
 * account (an agent acting on its own) is English.
 */
export async function localeOfUser(db: Queryable, user: string | { id: string; locale?: string | null }): Promise<string> {
  let account: { id: string; locale?: string | null } | undefined = typeof user === 'string' ? undefined : user;
  if (typeof user === 'string') [account] = await db.select({ id: users.id, locale: users.locale }).from(users).where(eq(users.id, user)).limit(1);
  const own = supportedLocale(account?.locale);
  if (own) return own;
  if (!account) return recipientLocale({});
  return recipientLocale({ organizationDefault: await firstOrganizationDefault(db, account.id) });
}
