// Sessions of Portico's own console: a random token in an HttpOnly cookie, its SHA-256 in PostgreSQL (so any
// instance can check it, and a database leak yields no usable cookie). A password change ends them all
// (credential version), and so does "sign out everywhere".
import { createHash, randomBytes } from 'node:crypto';
import { and, eq, gt, sql } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { consoleSessions, users } from '../db/schema';
import type { User } from './users';

export const CONSOLE_SESSION_COOKIE = 'portico_console';
export const CONSOLE_SESSION_HOURS = 12;

/** The console session cookie: HttpOnly; SameSite=Lax (top-level navigations only, server actions are same-origin POSTs); Secure off loopback. */
export function consoleSessionCookie(token: string, secure: boolean): string {
  return `${CONSOLE_SESSION_COOKIE}=${token}; Path=/console; HttpOnly; SameSite=Lax; Max-Age=${CONSOLE_SESSION_HOURS * 3600}${secure ? '; Secure' : ''}`;
}

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export async function createConsoleSession(db: Queryable, user: User, client: { ip?: string; userAgent?: string }): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await db.insert(consoleSessions).values({
    tokenHash: hashToken(token),
    userId: user.id,
    credentialVersion: user.credentialVersion,
    expiresAt: sql`now() + make_interval(hours => ${CONSOLE_SESSION_HOURS})`,
    ip: client.ip?.slice(0, 64) ?? null,
    userAgent: client.userAgent?.slice(0, 256) ?? null,
  });
  return token;
}

export interface ConsoleSession {
  user: User;
  tokenHash: string;
}

/** The session a cookie token names, if it is still valid: not expired, same credential version, person enabled. */
export async function findConsoleSession(db: Queryable, token: string | undefined): Promise<ConsoleSession | undefined> {
  if (!token || !/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
  const tokenHash = hashToken(token);
  const [row] = await db
    .select({ user: users, credentialVersion: consoleSessions.credentialVersion })
    .from(consoleSessions)
    .innerJoin(users, eq(users.id, consoleSessions.userId))
    .where(and(eq(consoleSessions.tokenHash, tokenHash), gt(consoleSessions.expiresAt, sql`now()`)))
    .limit(1);
  if (!row || row.user.disabledAt || row.credentialVersion !== row.user.credentialVersion) return undefined;
  return { user: row.user, tokenHash };
}

export async function endConsoleSession(db: Queryable, token: string | undefined): Promise<void> {
  if (!token) return;
  await db.delete(consoleSessions).where(eq(consoleSessions.tokenHash, hashToken(token)));
}

export async function endAllConsoleSessions(db: Queryable, userId: string): Promise<number> {
  const ended = await db.delete(consoleSessions).where(eq(consoleSessions.userId, userId)).returning({ tokenHash: consoleSessions.tokenHash });
  return ended.length;
}

/** Ends every console session of the person except the one named (this browser's). */
export async function endOtherConsoleSessions(db: Queryable, userId: string, keepTokenHash: string): Promise<number> {
  const ended = await db
    .delete(consoleSessions)
    .where(and(eq(consoleSessions.userId, userId), sql`${consoleSessions.tokenHash} <> ${keepTokenHash}`))
    .returning({ tokenHash: consoleSessions.tokenHash });
  return ended.length;
}
