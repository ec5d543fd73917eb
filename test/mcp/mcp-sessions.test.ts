// MCP sessions in PostgreSQL: bound to who opened them, idle for at most 24 hours, and extended by use — at most once
// an hour, so that the concurrent calls of one session never queue on its row.
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VerifiedAccessToken } from '../../app-kit/protected-resource';
import { mcpSessions } from '../../lib/db/schema';
import type { Queryable } from '../../lib/db/client';
import { extendSessionIfDue, liveSessionCondition, MCP_SESSION_TTL_SECONDS, newSessionId, recordSession } from '../../lib/mcp/sessions';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { createMember, createOrgWithApp } from '../support/provider-harness';

describe('MCP sessions', () => {
  let database: TestDatabase;
  let token: VerifiedAccessToken;

  beforeAll(async () => {
    database = await openTestDatabase();
    const fixture = await createOrgWithApp(database, 'Sessions');
    const person = await createMember(database, fixture.orgId, 'sessions@sessions.test');
    token = { subject: person.id, clientId: 'client-1', scopes: ['mcp'], expiresAt: 0, claims: {} };
  });
  afterAll(async () => database?.close());

  // What an MCP request does with the session it names: the live-session rule (in production, joined into the API
  // caller's prepared statement), then the extension when due.
  const resumeSession = async (db: Queryable, id: string, caller: VerifiedAccessToken) => {
    const [session] = await db.select().from(mcpSessions).where(liveSessionCondition(id, { ...caller, actor: caller.actor ?? '' }));
    if (session) await extendSessionIfDue(db, session);
    return session;
  };

  const expiryOf = async (id: string) => (await database.db.select({ at: mcpSessions.expiresAt }).from(mcpSessions).where(eq(mcpSessions.id, id)))[0]!.at.getTime();

  it('is refused to another client, agent or person, and once expired', async () => {
    const id = newSessionId();
    await recordSession(database.db, { id, token, protocolVersion: '2025-11-25', clientInfo: {}, clientCapabilities: {} });
    expect(await resumeSession(database.db, id, token)).toBeDefined();
    expect(await resumeSession(database.db, id, { ...token, clientId: 'client-2' })).toBeUndefined();
    expect(await resumeSession(database.db, id, { ...token, actor: 'agt_x' })).toBeUndefined();
    expect(await resumeSession(database.db, id, { ...token, subject: '00000000-0000-4000-8000-000000000000' })).toBeUndefined();
    await database.db.update(mcpSessions).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(mcpSessions.id, id));
    expect(await resumeSession(database.db, id, token)).toBeUndefined();
  });

  it('moves its expiry when more than an hour of it is used up, and leaves a fresh one alone', async () => {
    const id = newSessionId();
    await recordSession(database.db, { id, token, protocolVersion: '2025-11-25', clientInfo: {}, clientCapabilities: {} });
    const fresh = await expiryOf(id);
    await Promise.all(Array.from({ length: 10 }, () => resumeSession(database.db, id, token)));
    expect(await expiryOf(id)).toBe(fresh);

    await database.db.update(mcpSessions).set({ expiresAt: sql`now() + interval '2 hours'` }).where(eq(mcpSessions.id, id));
    await Promise.all(Array.from({ length: 10 }, () => resumeSession(database.db, id, token)));
    expect(await expiryOf(id)).toBeGreaterThan(Date.now() + (MCP_SESSION_TTL_SECONDS - 60) * 1000);
  });
});
