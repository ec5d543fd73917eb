// People: lookup and password authentication.
import { eq } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { users } from '../db/schema';
import { verifyPassword } from './factors/password';
import { normalizeEmail } from '../util/email';

export type User = typeof users.$inferSelect;

/**
 * What a request made with a token needs of its person (Portico's API, its MCP server, a gateway server): who they
 * are, how they are shown and the language they chose. Read on every such request, so it is only these columns:
 * never the password's hash, the factors' state or the rest of the account, which no API door uses.
 */
export type ActingPerson = Pick<User, 'id' | 'email' | 'name' | 'locale'>;
export const actingPersonColumns = { id: users.id, email: users.email, name: users.name, locale: users.locale } as const;
/** Exactly an ActingPerson's fields of a row that may hold more: what a request's context keeps of its person. */
export function actingPerson(row: ActingPerson): ActingPerson {
  return { id: row.id, email: row.email, name: row.name, locale: row.locale };
}

/** The one canonical form of an address (lib/util/email.ts). */
export { normalizeEmail } from '../util/email';

export async function findUserById(db: Queryable, id: string): Promise<User | undefined> {
  // Ids come from tokens and cookies; anything that is not a UUID cannot name a user.
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return undefined;
  const [user] = await db.select().from(users).where(eq(users.id, id)).limit(1);
  return user;
}

export type PasswordLoginResult = { ok: true; user: User } | { ok: false; reason: 'invalid_credentials' | 'account_disabled' };

/** Checks an email and password. Unknown email and wrong password are indistinguishable, in result and in time. */
export async function authenticateWithPassword(db: Queryable, email: string, password: string): Promise<PasswordLoginResult> {
  const [user] = await db.select().from(users).where(eq(users.email, normalizeEmail(email))).limit(1);
  // An account still waiting for its first password (a setup link) matches nothing, at the same cost.
  const valid = await verifyPassword(user?.passwordHash ?? undefined, password);
  if (!valid || !user) return { ok: false, reason: 'invalid_credentials' };
  if (user.disabledAt) return { ok: false, reason: 'account_disabled' };
  return { ok: true, user };
}

/**
 * Creates an account. The password hash is the person's own choice (an invitation accepted, a demo seed), or null
 * for an account that its person completes through a setup link.
 */
export async function createUser(
  db: Queryable,
  input: { email: string; name: string; givenName?: string | null; familyName?: string | null; passwordHash: string | null; emailVerified?: boolean },
): Promise<User> {
  const [user] = await db
    .insert(users)
    .values({
      email: normalizeEmail(input.email),
      name: input.name,
      givenName: input.givenName ?? null,
      familyName: input.familyName ?? null,
      passwordHash: input.passwordHash,
      emailVerifiedAt: input.emailVerified ? new Date() : null,
    })
    .returning();
  if (!user) throw new Error('user insert returned nothing');
  return user;
}

export async function findUserByEmail(db: Queryable, email: string): Promise<User | undefined> {
  const [user] = await db.select().from(users).where(eq(users.email, normalizeEmail(email))).limit(1);
  return user;
}
