// Login throttling per account and per IP, in PostgreSQL so that every instance shares the counts.
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hitRateLimit, peekRateLimit, slidingWindowState } from '../../lib/rate-limit/fixed-window';
import { LOGIN_THROTTLE } from '../../lib/oidc/password-sign-in';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { createMember, createOrgWithApp, relyingParty, signIn, startProviderHarness, type AppFixture, type Harness } from '../support/provider-harness';

describe('login throttling', () => {
  let database: TestDatabase;
  let harness: Harness;
  let app: AppFixture;
  let config: oidc.Configuration;

  beforeAll(async () => {
    database = await openTestDatabase();
    harness = await startProviderHarness(database);
    app = await createOrgWithApp(database, 'Throttle');
    config = await relyingParty(harness, app);
    await createMember(database, app.orgId, 'target@throttle.test');
  });
  afterAll(async () => {
    await harness?.close();
    await database?.close();
  });

  const attempt = (email: string, password: string | undefined, clientIp: string) => signIn(harness, database, config, app, { email, password, clientIp });

  it('locks an account after repeated failures, even for the right password, whatever the IP', async () => {
    for (let i = 0; i < LOGIN_THROTTLE.account.limit; i++) {
      expect((await attempt('Target@throttle.test', 'wrong password', `198.51.100.${i}`)).outcome).toEqual({ kind: 'refused', error: 'invalid_credentials' });
    }
    expect((await attempt('target@throttle.test', undefined, '198.51.100.200')).outcome).toEqual({ kind: 'refused', error: 'throttled' });
  });

  it('throttles unknown accounts exactly like known ones, so the answer reveals nothing', async () => {
    for (let i = 0; i < LOGIN_THROTTLE.account.limit; i++) await attempt('ghost@throttle.test', 'wrong password', `203.0.113.${i}`);
    expect((await attempt('ghost@throttle.test', 'wrong password', '203.0.113.200')).outcome).toEqual({ kind: 'refused', error: 'throttled' });
  });

  it('limits one IP across many accounts', async () => {
    const ip = '192.0.2.77';
    // Fill the IP's window directly (the same counter the sign-in uses), then try a fresh account from it.
    await Promise.all(Array.from({ length: LOGIN_THROTTLE.ip.limit }, () => hitRateLimit(database.db, LOGIN_THROTTLE.ip, ip)));
    await createMember(database, app.orgId, 'innocent@throttle.test');
    expect((await attempt('innocent@throttle.test', undefined, ip)).outcome).toEqual({ kind: 'refused', error: 'throttled' });
    expect((await attempt('innocent@throttle.test', undefined, '192.0.2.78')).outcome.kind).toBe('continue');
  });

  it('a parallel burst of guesses cannot slip past the limit before being counted', async () => {
    await createMember(database, app.orgId, 'burst@throttle.test');
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => attempt('burst@throttle.test', `wrong ${i}`, `198.18.0.${i}`)));
    const checked = outcomes.filter((o) => o.outcome.kind === 'refused' && o.outcome.error === 'invalid_credentials');
    expect(checked.length).toBeLessThanOrEqual(LOGIN_THROTTLE.account.limit);
    expect(outcomes.filter((o) => o.outcome.kind === 'refused' && o.outcome.error === 'throttled').length).toBeGreaterThanOrEqual(10);
  });

  it('successful sign-ins do not count toward the limit', async () => {
    await createMember(database, app.orgId, 'regular@throttle.test');
    for (let i = 0; i < LOGIN_THROTTLE.account.limit + 2; i++) {
      expect((await attempt('regular@throttle.test', undefined, '198.18.1.1')).outcome.kind).toBe('continue');
    }
  });

  it('counts concurrent hits exactly (one atomic upsert each)', async () => {
    const rule = { name: 'test:concurrency', limit: 25, windowSeconds: 600 };
    const states = await Promise.all(Array.from({ length: 40 }, () => hitRateLimit(database.db, rule, 'subject')));
    expect(states.map((s) => s.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(states.filter((s) => s.limited)).toHaveLength(15);
    const peek = await peekRateLimit(database.db, rule, 'subject');
    expect(peek).toMatchObject({ count: 40, limited: true });
    expect(peek.retryAfterSeconds).toBeGreaterThan(0);
    expect(peek.retryAfterSeconds).toBeLessThanOrEqual(600);
  });

  it('sees a burst that straddles a window boundary (a fixed window would let twice the limit through)', async () => {
    const rule = { name: 'test:boundary', limit: 5, windowSeconds: 2 };
    // An injected clock puts the events on either side of a boundary; the real one is never waited for.
    const boundary = Date.parse('2030-01-01T00:00:00Z');
    const at = (offsetMs: number) => new Date(boundary + offsetMs);
    const burst = await Promise.all(Array.from({ length: rule.limit }, (_, i) => hitRateLimit(database.db, rule, 'straddler', at(-1_900 + i))));
    expect(burst.filter((state) => state.limited)).toHaveLength(0);
    // Just past the boundary the previous window still weighs almost fully: the next event is over the limit.
    const across = await hitRateLimit(database.db, rule, 'straddler', at(20));
    expect(across).toMatchObject({ count: 1, limited: true });
    expect(across.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(across.retryAfterSeconds).toBeLessThanOrEqual(2 * rule.windowSeconds);
    expect(await peekRateLimit(database.db, rule, 'straddler', at(20))).toMatchObject({ count: rule.limit + 1, limited: true });
    // A window later the burst has faded out of the estimate: one event fits again.
    expect(await hitRateLimit(database.db, rule, 'straddler', at(2_500))).toMatchObject({ count: 1, limited: false });
  });

  it('says how long until one more event fits under the sliding estimate', () => {
    const rule = { name: 'test:arithmetic', limit: 10, windowSeconds: 100 };
    // Not limited: 4 now + 10 × 0.5 = 9.
    expect(slidingWindowState(rule, 4, 10, 50)).toMatchObject({ limited: false });
    // 6 now + 10 × 0.5 = 11 > 10; one more fits once the previous weighs 0.3 (7 + 3 = 10): 20 s later.
    expect(slidingWindowState(rule, 6, 10, 50)).toEqual({ count: 6, limited: true, retryAfterSeconds: 20 });
    // 11 now: over the limit in this window alone; the next window admits one once 11 × (1 − s) ≤ 9: s = 2/11.
    expect(slidingWindowState(rule, 11, 0, 50)).toEqual({ count: 11, limited: true, retryAfterSeconds: Math.ceil(50 + (2 / 11) * 100) });
    // At the limit exactly with nothing before: not limited; the next event waits until 10 × (1 − s) ≤ 9 in the next window.
    expect(slidingWindowState(rule, 10, 0, 30)).toEqual({ count: 10, limited: false, retryAfterSeconds: 70 + 10 });
  });
});
