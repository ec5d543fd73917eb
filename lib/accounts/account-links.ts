// Single-use account links: setup (an account the CLI created sets its first password), reset, email verification,
// and the forced change at sign-in. 256-bit random tokens; only their SHA-256 is stored. A new link of one purpose
// replaces the person's earlier open links of that purpose, and a link is spent by one conditional UPDATE, so it
// works once on every instance (two concurrent uses: one wins, the other finds it spent).
import { createHash, randomBytes } from 'node:crypto';
import { and, eq, gt, inArray, isNull, sql } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { accountLinks, users } from '../db/schema';
import type { User } from './users';

export type AccountLinkPurpose = (typeof accountLinks.$inferSelect)['purpose'];

/** How long each kind of link works. */
export const ACCOUNT_LINK_TTL_SECONDS: Record<AccountLinkPurpose, number> = {
  setup: 24 * 3600,
  reset: 30 * 60,
  verify_email: 24 * 3600,
  change_required: 15 * 60,
};

/** Where each kind of link leads, under the issuer. */
export function accountLinkUrl(issuer: string, purpose: AccountLinkPurpose, token: string): string {
  return purpose === 'verify_email' ? `${issuer}/account/verify/${token}` : `${issuer}/account/password/${token}`;
}

export function hashLinkToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Tokens are 32 random bytes in base64url: anything else cannot name a link. */
export function isLinkToken(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9_-]{43}$/.test(value);
}

export async function issueAccountLink(
  db: Queryable,
  input: { purpose: AccountLinkPurpose; user: Pick<User, 'id' | 'email'>; orgId?: string | null },
): Promise<{ token: string; expiresInSeconds: number }> {
  const token = randomBytes(32).toString('base64url');
  const ttl = ACCOUNT_LINK_TTL_SECONDS[input.purpose];
  // The latest link is the only one that works: a second request makes the first mail's link useless.
  await db
    .delete(accountLinks)
    .where(and(eq(accountLinks.userId, input.user.id), eq(accountLinks.purpose, input.purpose), isNull(accountLinks.consumedAt)));
  await db.insert(accountLinks).values({
    tokenHash: hashLinkToken(token),
    purpose: input.purpose,
    userId: input.user.id,
    email: input.user.email,
    orgId: input.orgId ?? null,
    expiresAt: sql`now() + make_interval(secs => ${ttl})`,
  });
  return { token, expiresInSeconds: ttl };
}

export interface OpenAccountLink {
  purpose: AccountLinkPurpose;
  user: User;
  email: string;
  orgId: string | null;
  expiresAt: Date;
}

/** The link a token names while it can still be used (not spent, not expired, account enabled). Reading spends nothing. */
export async function findAccountLink(db: Queryable, token: unknown, purposes: readonly AccountLinkPurpose[]): Promise<OpenAccountLink | undefined> {
  if (!isLinkToken(token)) return undefined;
  const [row] = await db
    .select({ link: accountLinks, user: users })
    .from(accountLinks)
    .innerJoin(users, eq(users.id, accountLinks.userId))
    .where(and(eq(accountLinks.tokenHash, hashLinkToken(token)), isNull(accountLinks.consumedAt), gt(accountLinks.expiresAt, sql`now()`)))
    .limit(1);
  if (!row || !purposes.includes(row.link.purpose) || row.user.disabledAt) return undefined;
  return { purpose: row.link.purpose, user: row.user, email: row.link.email, orgId: row.link.orgId, expiresAt: row.link.expiresAt };
}

/**
 * Spends the link: only one caller ever gets it back. Call inside the transaction that does what the link allows,
 * so that a failure afterwards leaves the link unspent.
 */
export async function consumeAccountLink(db: Queryable, token: unknown, purposes: readonly AccountLinkPurpose[]): Promise<OpenAccountLink | undefined> {
  if (!isLinkToken(token)) return undefined;
  const [spent] = await db
    .update(accountLinks)
    .set({ consumedAt: sql`now()` })
    .where(
      and(
        eq(accountLinks.tokenHash, hashLinkToken(token)),
        inArray(accountLinks.purpose, [...purposes]),
        isNull(accountLinks.consumedAt),
        gt(accountLinks.expiresAt, sql`now()`),
      ),
    )
    .returning();
  if (!spent) return undefined;
  const [user] = await db.select().from(users).where(eq(users.id, spent.userId)).limit(1);
  if (!user || user.disabledAt) return undefined;
  return { purpose: spent.purpose, user, email: spent.email, orgId: spent.orgId, expiresAt: spent.expiresAt };
}
