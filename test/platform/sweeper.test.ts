// The sweeper (lib/notifications/sweeper.ts): tables that take a row per request stay the size of their live rows, and nothing
// a security rule still needs is swept early (a refresh token's reuse tripwire, a polled code's expired_token).
import { randomBytes, randomUUID } from 'node:crypto';
import { and, count, eq, sql } from 'drizzle-orm';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import postgres from 'postgres';
import { PgDialect } from 'drizzle-orm/pg-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { grantBindings, oidcPayloads, rateLimits, signedRequestNonces } from '../../lib/db/schema';
import { REFRESH_TOKEN_TRIPWIRE_DAYS, SWEEP_RULES, sweepExpiredRows, sweptRows, type SweepRule } from '../../lib/notifications/sweeper';
import { endGrants } from '../../lib/grants';
import { createAdapterClass } from '../../lib/oidc/adapter';
import { storedIdOf } from '../../lib/oidc/stored-ids';
import { TOKEN_TTL } from '../../lib/oidc/token-ttl';
import { indexLeads, planOf, wholeReads } from '../support/plans';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { createMember, createOrgWithApp } from '../support/provider-harness';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const OIDC_RULES = SWEEP_RULES.filter((rule) => rule.name.startsWith('oidc.') && rule.name !== (process.env.SWEEPER_DROP ?? ''));

describe('the sweeper', () => {
  let database: TestDatabase;
  let model: (kind: string) => Adapter;

  beforeAll(async () => {
    database = await openTestDatabase();
    // The adapter oidc-provider uses, without a reuse grace interval (a reuse is theft at once).
    const AdapterClass = createAdapterClass(() => database.db, { clientSecretPlaceholder: 'unused', refreshTokenReuseGraceSeconds: 0, referenceKey: randomBytes(32) });
    const models = new Map<string, Adapter>();
    model = (kind) => models.get(kind) ?? models.set(kind, new AdapterClass(kind)).get(kind)!;
  });
  afterAll(async () => {
    await database?.close();
  });
  afterEach(async () => {
    vi.useRealTimers();
    await database.db.delete(oidcPayloads);
  });

  const payloadRows = async () => (await database.db.select({ n: count() }).from(oidcPayloads))[0]!.n;
  const token = () => randomBytes(32).toString('base64url');

  /** What oidc-provider stores for one sign-in to an app: its interaction, session, code, grant and first tokens. */
  async function signIn(accountId: string, clientId: string): Promise<{ grantId: string; sessionId: string; refreshToken: string }> {
    const grantId = randomUUID();
    const sessionId = token();
    const common = { accountId, clientId, grantId } as AdapterPayload;
    await model('Interaction').upsert(token(), { kind: 'Interaction', uid: token(), ...common } as AdapterPayload, TOKEN_TTL.Interaction);
    await model('Session').upsert(sessionId, { kind: 'Session', uid: token(), accountId } as AdapterPayload, TOKEN_TTL.Session);
    await model('Grant').upsert(grantId, { kind: 'Grant', accountId, clientId } as AdapterPayload, TOKEN_TTL.Grant);
    const code = token();
    await model('AuthorizationCode').upsert(code, { kind: 'AuthorizationCode', ...common } as AdapterPayload, TOKEN_TTL.AuthorizationCode);
    await model('AuthorizationCode').consume(code);
    const refreshToken = token();
    await model('AccessToken').upsert(token(), { kind: 'AccessToken', ...common } as AdapterPayload, TOKEN_TTL.AccessToken);
    await model('RefreshToken').upsert(refreshToken, { kind: 'RefreshToken', ...common } as AdapterPayload, TOKEN_TTL.RefreshToken);
    return { grantId, sessionId, refreshToken };
  }

  /**
   * A refresh with rotation, as oidc-provider does it: the presented token is consumed, a new pair is stored. The
   * adapter stamps the consumption with the database's clock, which this test cannot move: the stamp is set to the
   * simulated instant afterwards.
   */
  async function refresh(accountId: string, clientId: string, grantId: string, presented: string): Promise<string> {
    await model('RefreshToken').consume(presented);
    await database.db.update(oidcPayloads).set({ consumedAt: new Date() }).where(and(eq(oidcPayloads.kind, 'RefreshToken'), eq(oidcPayloads.id, storedIdOf('RefreshToken', presented))));
    const next = token();
    const common = { accountId, clientId, grantId } as AdapterPayload;
    await model('RefreshToken').upsert(next, { kind: 'RefreshToken', ...common } as AdapterPayload, TOKEN_TTL.RefreshToken);
    await model('AccessToken').upsert(token(), { kind: 'AccessToken', ...common } as AdapterPayload, TOKEN_TTL.AccessToken);
    return next;
  }

  it('keeps oidc_payloads flat over a simulated month of sign-ins, refreshes and sign-outs', async () => {
    // A month in one-hour steps on an injected clock. Twelve people are signed in at any time: eight stay all month
    // (their grants outlive a refresh token's tripwire time many times over), and of the four others one signs out
    // and another signs in every day. Every grant is refreshed every four hours; the sweeper runs every simulated hour.
    // (Refreshing every two hours showed nothing more, in twice the time.)
    const start = Date.now();
    vi.useFakeTimers({ toFake: ['Date'], now: start });
    const clientId = 'month-client';
    const people: Array<{ accountId: string; grantId: string; sessionId: string; refreshToken: string }> = [];
    for (let index = 0; index < 12; index++) {
      const accountId = randomUUID();
      people.push({ accountId, ...(await signIn(accountId, clientId)) });
    }
    const daily: number[] = [];
    const STEP = 60 * MINUTE;
    for (let step = 1; step <= (30 * DAY) / STEP; step++) {
      vi.setSystemTime(start + step * STEP);
      const now = new Date();
      // A quarter of the grants refresh at each step: each one every four hours.
      for (const [index, person] of people.entries()) {
        if ((index + step) % 4 === 0) person.refreshToken = await refresh(person.accountId, clientId, person.grantId, person.refreshToken);
      }
      if (step % 24 === 0) {
        const [leaving] = people.splice(8, 1);
        await endGrants(database.db, [leaving!.grantId], 'signed_out');
        await model('Session').destroy(leaving!.sessionId);
        const accountId = randomUUID();
        people.push({ accountId, ...(await signIn(accountId, clientId)) });
      }
      const report = await sweepExpiredRows(database.db, now, OIDC_RULES);
      expect(report.skipped).toBe(false);
      if (step % 24 === 0) daily.push(await payloadRows());
    }
    // Once the oldest tripwires start to go (day 8), the table stops growing: every day after ends within a few rows
    // of the day the steady state began, whatever the month's total traffic.
    const steady = daily.slice(REFRESH_TOKEN_TRIPWIRE_DAYS + 1);
    expect(Math.max(...steady)).toBeLessThanOrEqual(Math.ceil(steady[0]! * 1.05));
    expect(Math.min(...steady)).toBeGreaterThanOrEqual(Math.floor(steady[0]! * 0.95));
    // And its size is that of the live grants: each with its session, current tokens and at most a tripwire time of
    // consumed refresh tokens (6 a day), not the month's 2,000 refreshes.
    expect(people).toHaveLength(12);
    const perGrant = 1 /* grant */ + 1 /* session */ + 1 /* refresh token */ + 1 /* access token */ + 6 * (REFRESH_TOKEN_TRIPWIRE_DAYS + 1);
    expect(daily.at(-1)!).toBeLessThanOrEqual(people.length * perGrant);
    expect(await database.db.select({ n: count() }).from(oidcPayloads).where(sql`expires_at is null`)).toEqual([{ n: 0 }]);
  }, 120_000);

  it('keeps a consumed refresh token as a tripwire for a week after its use: its reuse still ends the grant', async () => {
    // Issued long ago (a client that refreshes rarely), rotated by an attacker now: the tripwire counts from the
    // rotation, so the real client coming back within a week with the same token ends the grant.
    const start = Date.now();
    vi.useFakeTimers({ toFake: ['Date'], now: start - 20 * DAY });
    const accountId = randomUUID();
    const first = await signIn(accountId, 'tripwire-client');
    vi.setSystemTime(start);
    const second = await refresh(accountId, 'tripwire-client', first.grantId, first.refreshToken);
    await sweepExpiredRows(database.db, new Date(start + (REFRESH_TOKEN_TRIPWIRE_DAYS - 1) * DAY), OIDC_RULES);
    await expect(model('RefreshToken').consume(first.refreshToken)).rejects.toMatchObject({ error: 'invalid_grant', error_detail: 'RefreshToken already consumed' });
    expect(await database.db.select().from(oidcPayloads).where(eq(oidcPayloads.grantId, first.grantId))).toEqual([]);
    expect(await model('RefreshToken').find(second)).toBeUndefined();

    // A week after its use it goes; the live token that replaced it stays.
    const other = await signIn(accountId, 'tripwire-client');
    const third = await refresh(accountId, 'tripwire-client', other.grantId, other.refreshToken);
    const consumedId = storedIdOf('RefreshToken', other.refreshToken);
    const kept = await sweepExpiredRows(database.db, new Date(start + (REFRESH_TOKEN_TRIPWIRE_DAYS - 1) * DAY), OIDC_RULES);
    expect(kept.deleted['oidc.consumed_refresh_tokens']).toBeUndefined();
    const swept = await sweepExpiredRows(database.db, new Date(start + (REFRESH_TOKEN_TRIPWIRE_DAYS + 1) * DAY), OIDC_RULES);
    expect(swept.deleted['oidc.consumed_refresh_tokens']).toBe(1);
    expect(await database.db.select().from(oidcPayloads).where(eq(oidcPayloads.id, consumedId))).toEqual([]);
    expect(await database.db.select({ id: oidcPayloads.id }).from(oidcPayloads).where(eq(oidcPayloads.id, storedIdOf('RefreshToken', third)))).toHaveLength(1);
  });

  it('never sweeps a refresh token consumed moments ago, whenever it was issued (its reuse grace)', async () => {
    // Stamped by the database's own clock, as in production: the sweep at this instant keeps it.
    const start = Date.now();
    vi.useFakeTimers({ toFake: ['Date'], now: start - 29 * DAY });
    const accountId = randomUUID();
    const session = await signIn(accountId, 'grace-client');
    vi.setSystemTime(start);
    await model('RefreshToken').consume(session.refreshToken);
    const report = await sweepExpiredRows(database.db, new Date(start), OIDC_RULES);
    expect(report.deleted['oidc.consumed_refresh_tokens']).toBeUndefined();
    expect(await database.db.select({ id: oidcPayloads.id }).from(oidcPayloads).where(eq(oidcPayloads.id, storedIdOf('RefreshToken', session.refreshToken)))).toHaveLength(1);
  });

  it('keeps a polled device code ten minutes past its expiry (expired_token), then sweeps it', async () => {
    const start = Date.now();
    vi.useFakeTimers({ toFake: ['Date'], now: start });
    const deviceCode = token();
    await model('DeviceCode').upsert(deviceCode, { kind: 'DeviceCode', clientId: 'device-client', userCode: 'ABCD-EFGH' } as AdapterPayload, 60);
    const stored = storedIdOf('DeviceCode', deviceCode);
    const rowExists = async () => (await database.db.select({ id: oidcPayloads.id }).from(oidcPayloads).where(eq(oidcPayloads.id, stored))).length === 1;
    await sweepExpiredRows(database.db, new Date(start + 60_000 + 9 * MINUTE), OIDC_RULES);
    expect(await rowExists()).toBe(true);
    await sweepExpiredRows(database.db, new Date(start + 60_000 + 11 * MINUTE), OIDC_RULES);
    expect(await rowExists()).toBe(false);
  });

  it('takes a grant past its end with its binding and every token issued from it, also one whose own expiry runs later', async () => {
    const start = Date.now();
    vi.useFakeTimers({ toFake: ['Date'], now: start });
    const fixture = await createOrgWithApp(database, 'Sweep');
    const accountId = (await createMember(database, fixture.orgId, 'bound@sweep.test')).id;
    const session = await signIn(accountId, fixture.clientId);
    await database.db.insert(grantBindings).values({ grantId: session.grantId, accountId, clientId: fixture.clientId, appId: fixture.app.id, orgId: fixture.orgId, resource: fixture.resource });
    // Refreshed on the grant's last day: the new refresh token's own expiry is a month later.
    vi.setSystemTime(start + TOKEN_TTL.Grant * 1000 - HOUR);
    await refresh(accountId, fixture.clientId, session.grantId, session.refreshToken);
    const report = await sweepExpiredRows(database.db, new Date(start + TOKEN_TTL.Grant * 1000 + HOUR), OIDC_RULES);
    expect(report.deleted['oidc.grants']).toBe(1);
    expect(await database.db.select().from(oidcPayloads).where(eq(oidcPayloads.grantId, session.grantId))).toEqual([]);
    expect(await database.db.select().from(grantBindings).where(eq(grantBindings.grantId, session.grantId))).toEqual([]);
  });

  it('works a backlog off in batches, one instance at a time, each row deleted once', async () => {
    const past = new Date(Date.now() - DAY);
    const rows = Array.from({ length: 1_200 }, (_, index) => ({ key: `backlog:${index}`, windowStart: past, count: 1, expiresAt: past }));
    for (let index = 0; index < rows.length; index += 400) await database.db.insert(rateLimits).values(rows.slice(index, index + 400));
    const rateLimitRule = SWEEP_RULES.filter((rule) => rule.name === 'rate_limits');
    const reports = await Promise.all([sweepExpiredRows(database.db, new Date(), rateLimitRule), sweepExpiredRows(database.db, new Date(), rateLimitRule)]);
    // Of two concurrent sweeps, each batch was deleted by exactly one; whichever found the lock taken left it.
    expect(reports.reduce((sum, report) => sum + sweptRows(report), 0)).toBe(1_200);
    expect(await database.db.select({ n: count() }).from(rateLimits)).toEqual([{ n: 0 }]);
  });

  it('leaves the work to another instance that holds the lock', async () => {
    if (database.kind !== 'postgres') return; // one connection: no second instance to hold the lock
    const past = new Date(Date.now() - DAY);
    await database.db.insert(signedRequestNonces).values({ nonce: 'held', expiresAt: past });
    const other = postgres(database.url!, { max: 1, onnotice: () => {} });
    try {
      await other.begin(async (tx) => {
        await tx`select pg_advisory_xact_lock(hashtextextended('portico:sweeper', 0))`;
        const report = await sweepExpiredRows(database.db, new Date());
        expect(report).toEqual({ deleted: {}, skipped: true });
      });
    } finally {
      await other.end({ timeout: 5 });
    }
    expect((await sweepExpiredRows(database.db, new Date())).deleted['signed_request_nonces']).toBe(1);
  });

  it('finds every rule’s dead rows through an index, never by reading the whole table', async () => {
    const indexes = await indexLeads(database);
    const dialect = new PgDialect();
    const whole: string[] = [];
    for (const rule of SWEEP_RULES as readonly SweepRule[]) {
      // A whole read is a sequential scan, or an index walked without bounding its leading column (test/support/plans.ts).
      const query = dialect.sqlToQuery(sql`select ctid from ${rule.table} where ${rule.dead(new Date())} limit 500`);
      const plan = await planOf(database, query.sql, query.params);
      if (wholeReads(plan, indexes).length > 0) whole.push(`${rule.name}: ${JSON.stringify(plan, null, 1)}`);
    }
    expect(whole, whole.join('\n\n')).toEqual([]);
  });
});
