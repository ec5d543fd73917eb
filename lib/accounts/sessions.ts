// A person's Portico sessions (oidc-provider's Session model): listing them and signing out everywhere.
import { and, eq, sql } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { oidcPayloads } from '../db/schema';

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
 * Ends every Portico session of the person, on every device: the next visit to any app asks for the password.
 * Refresh tokens bound to a session end with it; offline grants (offline_access) are the apps' own and stay.
 */
export async function signOutEverywhere(db: Queryable, userId: string): Promise<number> {
  const ended = await db
    .delete(oidcPayloads)
    .where(and(eq(oidcPayloads.kind, 'Session'), eq(oidcPayloads.accountId, userId)))
    .returning({ id: oidcPayloads.id });
  return ended.length;
}
