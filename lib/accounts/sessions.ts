// A person's Portico sessions: apps (oidc-provider's Session model), the console and the central — listed together
// for the account page, ended one by one or all at once.
import { and, eq, gt, inArray, sql } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { endOtherConsoleSessions } from './console-sessions';
import { endSessions } from '../grants';
import { apps, centralSessions, clients, consoleSessions, oidcPayloads } from '../db/schema';

export interface SessionSummary {
  /** The session's uid: safe to show; not the cookie value. */
  uid: string;
  signedInAt: Date;
  expiresAt: Date | null;
  /** Client ids the person used through this session. */
  clientIds: string[];
}

export async function listSessions(db: Queryable, userId: string): Promise<SessionSummary[]> {
  const rows = await db
    .select({ payload: oidcPayloads.payload, expiresAt: oidcPayloads.expiresAt })
    .from(oidcPayloads)
    .where(
      and(
        eq(oidcPayloads.kind, 'Session'),
        eq(oidcPayloads.accountId, userId),
        sql`(${oidcPayloads.expiresAt} is null or ${oidcPayloads.expiresAt} > now())`,
      ),
    );
  return rows
    .map(({ payload, expiresAt }) => ({
      uid: String(payload.uid ?? ''),
      signedInAt: new Date(Number(payload.loginTs ?? payload.iat ?? 0) * 1000),
      expiresAt,
      clientIds: Object.keys((payload.authorizations as Record<string, unknown> | undefined) ?? {}),
    }))
    .sort((a, b) => b.signedInAt.getTime() - a.signedInAt.getTime());
}

/**
 * Ends every Portico session of the person, on every device: the next visit to any app asks for the password, and
 * the apps that registered for it hear that their sessions are over (lib/grants endSessions).
 */
export async function signOutEverywhere(db: Queryable, userId: string): Promise<number> {
  return endSessions(db, userId, 'signed_out');
}

/** Where a person is signed in: Portico's console, the operator central (its own tab or framed), or apps (the OIDC session). */
export type AccountSessionKind = 'console' | 'central' | 'embedded-central' | 'app';

export interface AccountSession {
  kind: AccountSessionKind;
  /** What names the session to its owner's sign-out: a hash of the cookie token (never the token) or the OIDC session uid. */
  id: string;
  since: Date;
  expiresAt: Date | null;
  /** This browser's console session. */
  current: boolean;
  /** The browser's own description (console sessions), cut to 80 characters; outside text, escape where shown. */
  device: string | null;
  ip: string | null;
  /** The apps signed in to through an app session, by name (an MCP client: "its name → the app"). */
  apps: string[];
}

/** Every live session of the person, newest first, with the apps each app session signed in to named. */
export async function listAccountSessions(db: Queryable, userId: string, currentConsoleTokenHash?: string): Promise<AccountSession[]> {
  const [consoleRows, centralRows, appRows] = await Promise.all([
    db
      .select({ tokenHash: consoleSessions.tokenHash, createdAt: consoleSessions.createdAt, expiresAt: consoleSessions.expiresAt, ip: consoleSessions.ip, userAgent: consoleSessions.userAgent })
      .from(consoleSessions)
      .where(and(eq(consoleSessions.userId, userId), gt(consoleSessions.expiresAt, sql`now()`))),
    db
      .select({ tokenHash: centralSessions.tokenHash, createdAt: centralSessions.createdAt, expiresAt: centralSessions.expiresAt, surface: centralSessions.surface })
      .from(centralSessions)
      .where(and(eq(centralSessions.userId, userId), gt(centralSessions.expiresAt, sql`now()`))),
    listSessions(db, userId),
  ]);
  const clientIds = [...new Set(appRows.flatMap((row) => row.clientIds))];
  const clientRows = clientIds.length
    ? await db.select({ id: clients.id, kind: clients.kind, name: clients.name, appName: apps.name }).from(clients).leftJoin(apps, eq(apps.id, clients.appId)).where(inArray(clients.id, clientIds))
    : [];
  const nameOf = new Map(clientRows.map((row) => [row.id, row.kind === 'app' || !row.appName ? (row.appName ?? row.name) : `${row.name} → ${row.appName}`]));
  const sessions: AccountSession[] = [
    ...consoleRows.map((row) => ({
      kind: 'console' as const,
      id: row.tokenHash,
      since: row.createdAt,
      expiresAt: row.expiresAt,
      current: row.tokenHash === currentConsoleTokenHash,
      device: row.userAgent?.slice(0, 80) ?? null,
      ip: row.ip,
      apps: [],
    })),
    ...centralRows.map((row) => ({
      kind: row.surface === 'embedded' ? ('embedded-central' as const) : ('central' as const),
      id: row.tokenHash,
      since: row.createdAt,
      expiresAt: row.expiresAt,
      current: false,
      device: null,
      ip: null,
      apps: [],
    })),
    ...appRows.map((row) => ({
      kind: 'app' as const,
      id: row.uid,
      since: row.signedInAt,
      expiresAt: row.expiresAt,
      current: false,
      device: null,
      ip: null,
      // A client deleted since (its app was deleted) is named by its id.
      apps: row.clientIds.map((clientId) => nameOf.get(clientId) ?? clientId),
    })),
  ];
  return sessions.sort((a, b) => (b.current ? 1 : 0) - (a.current ? 1 : 0) || b.since.getTime() - a.since.getTime());
}

/**
 * Ends one of the person's sessions. Only the person's own: the id is matched together with their user id, so a
 * guessed or tampered id ends nothing. An app session ends with the refresh tokens bound to it (oidc-provider
 * refuses a refresh whose session is gone); offline grants stay, as with signOutEverywhere.
 */
export async function endAccountSession(db: Queryable, userId: string, kind: AccountSessionKind, id: string): Promise<boolean> {
  if (kind === 'console') {
    const ended = await db.delete(consoleSessions).where(and(eq(consoleSessions.userId, userId), eq(consoleSessions.tokenHash, id))).returning({ id: consoleSessions.tokenHash });
    return ended.length > 0;
  }
  if (kind === 'central' || kind === 'embedded-central') {
    const surface = kind === 'central' ? 'external' : 'embedded';
    const ended = await db
      .delete(centralSessions)
      .where(and(eq(centralSessions.userId, userId), eq(centralSessions.tokenHash, id), eq(centralSessions.surface, surface)))
      .returning({ id: centralSessions.tokenHash });
    return ended.length > 0;
  }
  return (await endSessions(db, userId, 'session_ended', id)) > 0;
}

/** "Sign out everywhere else": every session of the person but this console one — other consoles, centrals, apps. */
export async function endOtherAccountSessions(db: Queryable, userId: string, keepConsoleTokenHash: string) {
  const consoleEnded = await endOtherConsoleSessions(db, userId, keepConsoleTokenHash);
  const centralEnded = await db.delete(centralSessions).where(eq(centralSessions.userId, userId)).returning({ id: centralSessions.tokenHash });
  const appEnded = await signOutEverywhere(db, userId);
  return { consoleSessions: consoleEnded, centralSessions: centralEnded.length, appSessions: appEnded };
}
