// Per-client limits count IPv6 clients per /64, IPv4 clients per address, IPv4-mapped IPv6 as IPv4.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGIN_THROTTLE, throttledPasswordCheck } from '../../lib/accounts/factors/throttled-password-check';
import { RESET_THROTTLE } from '../../lib/accounts/password-reset';
import { registrationLimits } from '../../lib/clients/registration';
import { clientNetworkKey } from '../../lib/rate-limit/client-network';
import { hitRateLimit } from '../../lib/rate-limit/fixed-window';
import { openTestDatabase, type TestDatabase } from '../support/databases';

describe('client network keys', () => {
  it('put addresses of one /64 together and two /64s apart', () => {
    const one = ['2001:db8:1:2::1', '2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:0db8:0001:0002:abcd::9', '[2001:db8:1:2::77]', 'fe80::1%eth0'.replace('fe80::1', '2001:db8:1:2::5')];
    expect(new Set(one.map(clientNetworkKey))).toEqual(new Set(['2001:db8:1:2::/64']));
    expect(clientNetworkKey('2001:db8:1:3::1')).not.toBe(clientNetworkKey('2001:db8:1:2::1'));
  });

  it('leave IPv4 as it is and read IPv4-mapped IPv6 as IPv4', () => {
    expect(clientNetworkKey('198.51.100.7')).toBe('198.51.100.7');
    expect(clientNetworkKey('198.51.100.8')).not.toBe(clientNetworkKey('198.51.100.7'));
    expect(clientNetworkKey('::ffff:198.51.100.7')).toBe('198.51.100.7');
    expect(clientNetworkKey('::ffff:c633:6407')).toBe('198.51.100.7');
    expect(clientNetworkKey('unknown')).toBe('unknown');
  });

  it('the sign-in, reset and registration limits are keyed this way', () => {
    expect(LOGIN_THROTTLE.ip.perClientNetwork).toBe(true);
    expect(RESET_THROTTLE.ip.perClientNetwork).toBe(true);
    expect(registrationLimits(20, 1000).perIp.perClientNetwork).toBe(true);
  });
});

describe('limits over a /64', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(async () => database.close());

  it('a client rotating through its /64 meets the per-client limit; another /64 does not', async () => {
    const rule = { name: 'test:net', limit: 3, windowSeconds: 600, perClientNetwork: true };
    const states = [];
    for (let i = 1; i <= 4; i += 1) states.push((await hitRateLimit(database.db, rule, `2001:db8:aa:bb::${i}`)).limited);
    expect(states).toEqual([false, false, false, true]);
    expect((await hitRateLimit(database.db, rule, '2001:db8:aa:bc::1')).limited).toBe(false);
  });

  it('sign-in guesses from many addresses of one /64 are throttled as one client', async () => {
    const results = [];
    for (let i = 0; i <= LOGIN_THROTTLE.ip.limit; i += 1) {
      results.push(await throttledPasswordCheck(database.db, `nobody-${i}@example.test`, 'wrong password', `2001:db8:5:6::${(i + 1).toString(16)}`));
    }
    expect(results.at(-1)).toMatchObject({ ok: false, reason: 'throttled' });
    expect(results.slice(0, -1).every((result) => !result.ok && result.reason === 'invalid_credentials')).toBe(true);
  }, 120_000);
});
