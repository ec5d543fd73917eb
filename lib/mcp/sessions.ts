// MCP sessions in PostgreSQL (Streamable HTTP, MCP 2025-11-25 §Session Management): created by `initialize`,
// named by `Mcp-Session-Id`, usable on any instance, bound to the person, the client and the acting agent that
// opened them. An unknown, expired or foreign session id gets 404, which tells the client to initialize again.
import { randomBytes } from 'node:crypto';
import { and, eq, gt, lte, sql, type Placeholder, type SQL } from 'drizzle-orm';
import type { VerifiedAccessToken } from '../../app-kit/protected-resource';
import type { Queryable } from '../db/client';
import { mcpSessions } from '../db/schema';

/** Idle sessions end after this; each request extends the session. */
export const MCP_SESSION_TTL_SECONDS = 24 * 3600;

/** What a request that resumes a session uses of it (read with the caller on every call: lib/mcp/authenticate.ts). */
export type McpSession = Pick<typeof mcpSessions.$inferSelect, 'id' | 'clientCapabilities' | 'expiresAt'>;
export const mcpSessionColumns = { id: mcpSessions.id, clientCapabilities: mcpSessions.clientCapabilities, expiresAt: mcpSessions.expiresAt } as const;

export function newSessionId(): string {
  return `mcs_${randomBytes(24).toString('base64url')}`;
}

/**
 * Who opened a session, as stored: the person and the agent acting for them ('' for none). An agent acting as itself
 * (a gateway server, lib/mcp/authenticate.ts `ownAgent`) is kept under its owner with the actor `self:<agent>`, so
 * that no token of the owner, with or without the agent as `act`, can resume it.
 */
export function sessionOpenerOf(token: VerifiedAccessToken, ownAgent?: { ownerUserId: string }): { userId: string; actor: string } {
  if (ownAgent) return { userId: ownAgent.ownerUserId, actor: `self:${token.subject}` };
  return { userId: token.subject, actor: token.actor ?? '' };
}

export async function recordSession(
  db: Queryable,
  input: { id: string; token: VerifiedAccessToken; protocolVersion: string; clientInfo: unknown; clientCapabilities: unknown; ownAgent?: { ownerUserId: string } },
): Promise<void> {
  const opener = sessionOpenerOf(input.token, input.ownAgent);
  // Expired sessions are the sweeper's (lib/notifications/sweeper.ts), not every initialize's.
  await db.insert(mcpSessions).values({
    id: input.id,
    userId: opener.userId,
    actor: opener.actor,
    clientId: input.token.clientId,
    protocolVersion: input.protocolVersion,
    clientInfo: input.clientInfo ?? {},
    clientCapabilities: input.clientCapabilities ?? {},
    expiresAt: sql`now() + make_interval(secs => ${MCP_SESSION_TTL_SECONDS})`,
  });
}

/**
 * How often a session's expiry moves: at most once in this many seconds. Extending it on every request made all the
 * calls of one session queue on that row's lock (a busy agent sends many at once); an idle limit of 24 hours does
 * not need minute precision.
 */
export const MCP_SESSION_EXTEND_EVERY_SECONDS = 3600;

/** A well-formed session id: anything else names no session (and never reaches the database). */
export function isSessionId(id: string): boolean {
  return /^mcs_[A-Za-z0-9_-]{32}$/.test(id);
}

/**
 * The one rule for which session a request may resume: this id, opened by the same person, client and agent as the
 * token, not expired. Folded into the API caller's statement (lib/mcp/authenticate.ts), where the values are a
 * prepared statement's placeholders: every MCP request reads its session together with its person and agent.
 */
export function liveSessionCondition(id: SessionKey, opener: { subject: SessionKey; clientId: SessionKey; actor: SessionKey }): SQL {
  return and(
    eq(mcpSessions.id, id),
    eq(mcpSessions.userId, opener.subject),
    eq(mcpSessions.clientId, opener.clientId),
    eq(mcpSessions.actor, opener.actor),
    gt(mcpSessions.expiresAt, sql`now()`),
  )!;
}
type SessionKey = string | Placeholder<string>;

/** Moves a resumed session's expiry when it is due (at most once in MCP_SESSION_EXTEND_EVERY_SECONDS). */
export async function extendSessionIfDue(db: Queryable, session: McpSession): Promise<void> {
  if (session.expiresAt.getTime() - Date.now() >= (MCP_SESSION_TTL_SECONDS - MCP_SESSION_EXTEND_EVERY_SECONDS) * 1000) return;
  // Only one of several concurrent requests needs to move it; none waits for another's lock.
  await db
    .update(mcpSessions)
    .set({ expiresAt: sql`now() + make_interval(secs => ${MCP_SESSION_TTL_SECONDS})` })
    .where(and(eq(mcpSessions.id, session.id), lte(mcpSessions.expiresAt, sql`now() + make_interval(secs => ${MCP_SESSION_TTL_SECONDS - MCP_SESSION_EXTEND_EVERY_SECONDS})`)));
}

export async function endSession(db: Queryable, id: string, token: VerifiedAccessToken, ownAgent?: { ownerUserId: string }): Promise<boolean> {
  const opener = sessionOpenerOf(token, ownAgent);
  const ended = await db
    .delete(mcpSessions)
    .where(and(eq(mcpSessions.id, id), eq(mcpSessions.userId, opener.userId), eq(mcpSessions.clientId, token.clientId), eq(mcpSessions.actor, opener.actor)))
    .returning({ id: mcpSessions.id });
  return ended.length === 1;
}
