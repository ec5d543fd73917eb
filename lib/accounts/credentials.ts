// Setting a person's password, always by the person: at setup, after a reset, at a forced change, or from the
// account page. Every path ends the sessions and refresh tokens that the old password opened, in the same
// transaction as the change, so no window exists in which the old credential still works somewhere.
import { and, eq, sql } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { centralSessions, consoleSessions, users } from '../db/schema';
import { endEverythingOfPerson } from '../grants';
import type { User } from './users';

export interface SetPasswordInput {
  user: Pick<User, 'id' | 'email'>;
  passwordHash: string;
  /** The console session that made the change stays open (a change from the account page); every other ends. */
  keepConsoleSessionHash?: string;
  /** The address the person just proved they receive mail at (a link they opened): marks it verified. */
  provenEmail?: string;
}

export async function setOwnPassword(db: Queryable, input: SetPasswordInput): Promise<{ credentialVersion: number }> {
  const verified = input.provenEmail !== undefined && input.provenEmail === input.user.email;
  const [updated] = await db
    .update(users)
    .set({
      passwordHash: input.passwordHash,
      // Console and central sessions record the version they were opened with: older ones stop working at once.
      credentialVersion: sql`${users.credentialVersion} + 1`,
      passwordChangeRequired: false,
      ...(verified ? { emailVerifiedAt: sql`now()` } : {}),
    })
    .where(eq(users.id, input.user.id))
    .returning({ credentialVersion: users.credentialVersion });
  if (!updated) throw new Error('password change for a person who does not exist');
  if (input.keepConsoleSessionHash) {
    await db
      .update(consoleSessions)
      .set({ credentialVersion: updated.credentialVersion })
      .where(and(eq(consoleSessions.userId, input.user.id), eq(consoleSessions.tokenHash, input.keepConsoleSessionHash)));
    await db.delete(consoleSessions).where(and(eq(consoleSessions.userId, input.user.id), sql`${consoleSessions.tokenHash} <> ${input.keepConsoleSessionHash}`));
  } else {
    await db.delete(consoleSessions).where(eq(consoleSessions.userId, input.user.id));
  }
  await db.delete(centralSessions).where(eq(centralSessions.userId, input.user.id));
  await endEverythingOfPerson(db, input.user.id);
  return updated;
}

/** Marks the address verified when the person proved it (an invitation or verification link sent there). */
export async function markEmailVerified(db: Queryable, userId: string, provenEmail: string): Promise<boolean> {
  const updated = await db
    .update(users)
    .set({ emailVerifiedAt: sql`now()` })
    .where(and(eq(users.id, userId), eq(users.email, provenEmail)))
    .returning({ id: users.id });
  return updated.length > 0;
}
