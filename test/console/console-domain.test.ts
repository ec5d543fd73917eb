import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsoleSession, endOtherConsoleSessions, findConsoleSession } from '../../lib/accounts/console-sessions';
import { can } from '../../lib/organizations/permissions';
import { recordAuditEvent, searchAuditEvents } from '../../lib/audit/events';
import { consoleSessions, users } from '../../lib/db/schema';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { createMember, createOrgWithApp } from '../support/provider-harness';
import { tamperedToken } from '../support/tamper';

describe('console sessions', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(async () => database.close());

  it('store only a hash, and end on expiry, on a password change and when the person is disabled', async () => {
    const { orgId } = await createOrgWithApp(database, 'Sessions');
    const person = await createMember(database, orgId, 'session@test.test');
    const token = await createConsoleSession(database.db, person, { ip: '192.0.2.1' });
    expect(JSON.stringify(await database.db.select().from(consoleSessions))).not.toContain(token);
    expect((await findConsoleSession(database.db, token))?.user.id).toBe(person.id);
    expect(await findConsoleSession(database.db, tamperedToken(token))).toBeUndefined();

    await database.db.update(users).set({ credentialVersion: sql`${users.credentialVersion} + 1` }).where(eq(users.id, person.id));
    expect(await findConsoleSession(database.db, token)).toBeUndefined();

    const [fresh] = await database.db.select().from(users).where(eq(users.id, person.id));
    const second = await createConsoleSession(database.db, fresh!, {});
    await database.db.update(users).set({ disabledAt: new Date() }).where(eq(users.id, person.id));
    expect(await findConsoleSession(database.db, second)).toBeUndefined();
    await database.db.update(users).set({ disabledAt: null }).where(eq(users.id, person.id));
    expect(await findConsoleSession(database.db, second)).toBeDefined();

    await database.db.update(consoleSessions).set({ expiresAt: sql`now() - interval '1 second'` });
    expect(await findConsoleSession(database.db, second)).toBeUndefined();
  });

  it('"sign out everywhere else" keeps only this browser', async () => {
    const { orgId } = await createOrgWithApp(database, 'Everywhere');
    const person = await createMember(database, orgId, 'everywhere@test.test');
    const here = await createConsoleSession(database.db, person, {});
    const there = await createConsoleSession(database.db, person, {});
    const hereSession = await findConsoleSession(database.db, here);
    expect(await endOtherConsoleSessions(database.db, person.id, hereSession!.tokenHash)).toBe(1);
    expect(await findConsoleSession(database.db, here)).toBeDefined();
    expect(await findConsoleSession(database.db, there)).toBeUndefined();
  });
});

describe('roles', () => {
  it('owners may do everything, admins all but ownership and deletion, members only read', () => {
    expect(can('owner', 'org.delete') && can('owner', 'ownership.transfer')).toBe(true);
    expect(can('admin', 'apps.manage') && can('admin', 'audit.read')).toBe(true);
    expect(can('admin', 'org.delete') || can('admin', 'ownership.transfer')).toBe(false);
    expect(can('member', 'apps.read') && can('member', 'members.read')).toBe(true);
    for (const permission of ['apps.manage', 'members.manage', 'teams.manage', 'branding.manage', 'audit.read'] as const) {
      expect(can('member', permission)).toBe(false);
    }
    expect(can(undefined, 'org.read')).toBe(false);
  });
});

describe('audit search', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(async () => database.close());

  it("filters an organization's events and pages through them newest first, never showing another org's", async () => {
    const org = '00000000-0000-4000-8000-000000000001';
    const other = '00000000-0000-4000-8000-000000000002';
    const app = '00000000-0000-4000-8000-0000000000aa';
    for (let i = 0; i < 25; i++) {
      await recordAuditEvent(database.db, {
        orgId: org,
        actor: { type: 'person', id: `u${i % 2}`, label: i % 2 ? 'ada@acme.test' : 'bob@acme.test' },
        action: i % 5 === 0 ? 'app.created' : 'member.added',
        subject: { type: 'app', id: `s${i}`, label: `Subject ${i}` },
        appId: i % 5 === 0 ? app : null,
      });
    }
    await recordAuditEvent(database.db, { orgId: other, actor: { type: 'person', label: 'ada@acme.test' }, action: 'app.created' });

    const first = await searchAuditEvents(database.db, org, {}, { limit: 10 });
    expect(first.events).toHaveLength(10);
    expect(first.events[0]!.subjectLabel).toBe('Subject 24');
    const second = await searchAuditEvents(database.db, org, {}, { before: first.nextBefore, limit: 10 });
    const third = await searchAuditEvents(database.db, org, {}, { before: second.nextBefore, limit: 10 });
    expect(third.events).toHaveLength(5);
    expect(third.nextBefore).toBeUndefined();
    expect(new Set([...first.events, ...second.events, ...third.events].map((e) => e.id)).size).toBe(25);

    // Actors and subjects match exactly, an id or a label ignoring case; a part of either finds nothing.
    expect((await searchAuditEvents(database.db, org, { actor: 'ADA@acme.test' }, { limit: 100 })).events).toHaveLength(12);
    expect((await searchAuditEvents(database.db, org, { actor: 'u1' }, { limit: 100 })).events).toHaveLength(12);
    expect((await searchAuditEvents(database.db, org, { actor: 'ada@' }, { limit: 100 })).events).toHaveLength(0);
    expect((await searchAuditEvents(database.db, org, { actor: 'bob@acme.test', action: 'app.created' }, { limit: 100 })).events).toHaveLength(3);
    expect((await searchAuditEvents(database.db, org, { action: 'app.' }, { limit: 100 })).events).toHaveLength(5);
    expect((await searchAuditEvents(database.db, org, { action: 'app' }, { limit: 100 })).events).toHaveLength(0);
    expect((await searchAuditEvents(database.db, org, { appId: app }, { limit: 100 })).events).toHaveLength(5);
    expect((await searchAuditEvents(database.db, org, { subject: 'subject 1' }, { limit: 100 })).events).toHaveLength(1);
    expect((await searchAuditEvents(database.db, org, { subject: 's1' }, { limit: 100 })).events).toHaveLength(1);
    expect((await searchAuditEvents(database.db, org, { subject: 'Subject' }, { limit: 100 })).events).toHaveLength(0);
    expect((await searchAuditEvents(database.db, org, { actor: 'ada@acme.test', subject: 'subject 3' }, { limit: 100 })).events).toHaveLength(1);
    expect((await searchAuditEvents(database.db, org, { actor: 'bob@acme.test', subject: 'subject 3' }, { limit: 100 })).events).toHaveLength(0);
    expect((await searchAuditEvents(database.db, org, { subject: '%' }, { limit: 100 })).events).toHaveLength(0);
    expect((await searchAuditEvents(database.db, org, { from: new Date(Date.now() + 60_000) }, { limit: 100 })).events).toHaveLength(0);
  });

  it('pages through an actor found by id in some events, by label in others and by both in the rest, once each, newest first', async () => {
    const org = '00000000-0000-4000-8000-000000000003';
    const actors = [
      { type: 'client' as const, id: 'ci-bot', label: 'Deploy robot' },
      { type: 'client' as const, id: 'other-client', label: 'CI-Bot' },
      { type: 'client' as const, id: 'ci-bot', label: 'ci-bot' },
      { type: 'client' as const, id: 'someone-else', label: 'Someone else' },
    ];
    for (let i = 0; i < 40; i++) await recordAuditEvent(database.db, { orgId: org, actor: actors[i % 4]!, action: 'token.issued', subject: { type: 'client', id: `c${i}` } });
    const seen: number[] = [];
    let before: number | undefined;
    for (let round = 0; round < 10; round++) {
      const page = await searchAuditEvents(database.db, org, { actor: 'ci-bot' }, { before, limit: 7 });
      seen.push(...page.events.map((event) => event.id));
      if (!page.nextBefore) break;
      before = page.nextBefore;
    }
    expect(seen).toHaveLength(30);
    expect(new Set(seen).size).toBe(30);
    expect(seen).toEqual([...seen].sort((a, b) => b - a));
  });
});
