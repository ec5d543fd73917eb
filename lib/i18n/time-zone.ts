// Time zones (issue 56, item 3): the one a person saved for their pages and mail, else their organization's for the
// mail (a setting), else UTC — always named in what they read. IANA names only, as the runtime knows them
// (Intl.supportedValuesOf), so a stored value is always one Intl can format in.
import { asc, eq, sql } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { memberships, organizations, users } from '../db/schema';
import { normalizeEmail } from '../util/email';

let zones: ReadonlySet<string> | undefined;

/** Every zone the runtime formats in, UTC first (its own name is not in Intl's list of canonical zones). */
export function supportedTimeZones(): readonly string[] {
  return ['UTC', ...Intl.supportedValuesOf('timeZone').filter((zone) => zone !== 'UTC')];
}

/** `value` when it is a zone the runtime formats in (exactly as listed), else undefined. */
export function supportedTimeZone(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  zones ??= new Set(supportedTimeZones());
  return zones.has(value) ? value : undefined;
}

/** The default of the first organization this account joined that has one. */
async function firstOrganizationZone(db: Queryable, userId: string): Promise<string | undefined> {
  const [first] = await db
    .select({ zone: organizations.defaultTimeZone })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.orgId))
    .where(sql`${memberships.userId} = ${userId} AND ${organizations.defaultTimeZone} IS NOT NULL`)
    .orderBy(asc(memberships.createdAt))
    .limit(1);
  return supportedTimeZone(first?.zone);
}

/**
 * The zone of the times in a mail: the recipient's own choice, else the default of the organization the mail is
 * about, else of the first organization they joined that has one, else UTC (the mail names the zone in every case).
 */
export async function mailTimeZoneFor(db: Queryable, input: { email: string; orgId?: string | null }): Promise<string> {
  const [account] = await db
    .select({ id: users.id, zone: users.timeZone })
    .from(users)
    .where(eq(users.email, normalizeEmail(input.email)))
    .limit(1);
  const own = supportedTimeZone(account?.zone);
  if (own) return own;
  if (input.orgId) {
    const [org] = await db.select({ zone: organizations.defaultTimeZone }).from(organizations).where(eq(organizations.id, input.orgId));
    const ofOrganization = supportedTimeZone(org?.zone);
    if (ofOrganization) return ofOrganization;
  }
  return (account && (await firstOrganizationZone(db, account.id))) ?? 'UTC';
}

/**
 * Saves the zone a person chose for their pages and mail; '' goes back to none (the browser's). A value the runtime
 * does not know is refused and nothing is written.
 */
export async function saveOwnTimeZone(db: Queryable, userId: string, value: string): Promise<{ ok: true; zone: string | null } | { ok: false }> {
  if (value === '') {
    await db.update(users).set({ timeZone: null }).where(eq(users.id, userId));
    return { ok: true, zone: null };
  }
  const zone = supportedTimeZone(value);
  if (!zone) return { ok: false };
  await db.update(users).set({ timeZone: zone }).where(eq(users.id, userId));
  return { ok: true, zone };
}
