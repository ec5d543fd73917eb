// The app kit's back-channel logout receiver refuses every token Back-Channel Logout 1.0 §2.6 says to refuse: replayed,
// for another audience, from another issuer, expired or too old, with a nonce, without the event, of another type,
// naming nobody, or signed by another key. Tokens here are made with jose, as a hostile or broken sender would.
import { createLocalJWKSet, exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { BACKCHANNEL_LOGOUT_EVENT, createLogoutReceiver, type BackchannelLogout, type LogoutReceiver } from '../../app-kit/backchannel-logout';

const ISSUER = 'https://portico.test';
const CLIENT_ID = 'app-client';
// Years before the real clock: the receivers (and their replay guard) must keep to the clock they are given.
const NOW = new Date('2021-06-01T12:00:00Z');
const at = (seconds: number) => Math.floor(NOW.getTime() / 1000) + seconds;

describe('the kit’s back-channel logout receiver', () => {
  let signingKey: CryptoKey;
  let strangerKey: CryptoKey;
  let jwk: JWK;
  let ended: BackchannelLogout[];
  let receiver: LogoutReceiver;
  let counter = 0;

  beforeAll(async () => {
    const pair = await generateKeyPair('ES256');
    signingKey = pair.privateKey;
    jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256' };
    strangerKey = (await generateKeyPair('ES256')).privateKey;
  });

  function freshReceiver(endSessions: (logout: BackchannelLogout) => void = (logout) => void ended.push(logout)) {
    ended = [];
    receiver = createLogoutReceiver({ issuer: ISSUER, clientId: CLIENT_ID, keys: createLocalJWKSet({ keys: [jwk] }), now: () => NOW, endSessions });
    return receiver;
  }

  function logoutToken(overrides: { claims?: JWTPayload; drop?: string[]; typ?: string; key?: CryptoKey } = {}): Promise<string> {
    const claims: JWTPayload = {
      iss: ISSUER,
      aud: CLIENT_ID,
      iat: at(-5),
      exp: at(115),
      jti: `jti-${++counter}`,
      sub: 'person-1',
      sid: 'session-1',
      events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
      ...overrides.claims,
    };
    for (const name of overrides.drop ?? []) delete claims[name];
    return new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: 'k1', typ: overrides.typ ?? 'logout+jwt' }).sign(overrides.key ?? signingKey);
  }

  it('accepts a well-formed token once and ends the sessions it names', async () => {
    freshReceiver();
    const token = await logoutToken();
    expect(await receiver.receive(token)).toMatchObject({ sub: 'person-1', sid: 'session-1' });
    expect(ended).toHaveLength(1);
    await expect(receiver.receive(token)).rejects.toThrow('already used');
    expect(ended).toHaveLength(1);
  });

  it.each([
    ['another audience', { claims: { aud: 'another-client' } }, /aud/],
    ['another issuer', { claims: { iss: 'https://evil.test' } }, /iss/],
    ['an expired token', { claims: { iat: at(-400), exp: at(-280) } }, /exp|too old|age/i],
    ['a token issued too long ago', { claims: { iat: at(-3600), exp: at(60) } }, /age|too old|iat/i],
    ['a nonce', { claims: { nonce: 'n-1' } }, /nonce/],
    ['no event', { drop: ['events'] }, /event/],
    ['an ID token’s event set', { claims: { events: { 'https://example.test/other': {} } } }, /event/],
    ['the event not as an object', { claims: { events: { [BACKCHANNEL_LOGOUT_EVENT]: 'yes' } } }, /event/],
    ['neither sub nor sid', { drop: ['sub', 'sid'] }, /neither/],
    ['no jti', { drop: ['jti'] }, /jti/],
    ['no exp', { drop: ['exp'] }, /exp/],
    ['an ID token type', { typ: 'JWT' }, /typ/],
    ['another key', { key: undefined as unknown as CryptoKey, stranger: true }, /signature|no applicable key/i],
  ] as const)('refuses %s', async (_name, overrides, message) => {
    freshReceiver();
    const token = await logoutToken('stranger' in overrides ? { key: strangerKey } : (overrides as Parameters<typeof logoutToken>[0]));
    await expect(receiver.receive(token)).rejects.toThrow(message);
    expect(ended).toEqual([]);
  });

  it('answers the HTTP request as §2.8 says: 200 when done, 400 with an OAuth error otherwise', async () => {
    freshReceiver();
    const post = (body: string, type = 'application/x-www-form-urlencoded') => receiver.handle(new Request('https://app.test/backchannel-logout', { method: 'POST', headers: { 'content-type': type }, body }));
    const done = await post(new URLSearchParams({ logout_token: await logoutToken() }).toString());
    expect(done.status).toBe(200);
    expect(done.headers.get('cache-control')).toBe('no-store');
    const refused = await post(new URLSearchParams({ logout_token: await logoutToken({ claims: { nonce: 'x' } }) }).toString());
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: 'invalid_request' });
    expect((await post(JSON.stringify({ logout_token: await logoutToken() }), 'application/json')).status).toBe(400);
    // A form far longer than a logout token is refused unread, a valid token at its end notwithstanding.
    expect((await post(`padding=${'x'.repeat(64 * 1024)}&${new URLSearchParams({ logout_token: await logoutToken() })}`)).status).toBe(400);
    expect((await receiver.handle(new Request('https://app.test/backchannel-logout'))).status).toBe(405);
  });

  it('answers 503 (Portico sends it again), not 400, when the keys cannot be had: JWKS unreachable, or without the token’s key yet', async () => {
    const token = await logoutToken();
    const form = new URLSearchParams({ logout_token: token }).toString();
    const post = (keys: Parameters<typeof createLogoutReceiver>[0]['keys']) =>
      createLogoutReceiver({ issuer: ISSUER, clientId: CLIENT_ID, keys, now: () => NOW, endSessions: () => {} }).handle(
        new Request('https://app.test/backchannel-logout', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form }),
      );
    expect((await post(() => Promise.reject(new TypeError('fetch failed')))).status).toBe(503);
    // A rotation the app's cached JWKS does not know yet: no key with that kid.
    expect((await post(createLocalJWKSet({ keys: [{ ...jwk, kid: 'k2' }] }))).status).toBe(503);
    // The same token, once the keys are there, is accepted: the 503 consumed nothing.
    expect((await post(createLocalJWKSet({ keys: [jwk] }))).status).toBe(200);
  });

  it('a token whose sessions could not be ended is accepted when Portico sends it again', async () => {
    let failing = true;
    freshReceiver((logout) => {
      if (failing) throw new Error('the session store is down');
      ended.push(logout);
    });
    const body = new URLSearchParams({ logout_token: await logoutToken() }).toString();
    const post = () => receiver.handle(new Request('https://app.test/backchannel-logout', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body }));
    expect((await post()).status).toBe(503);
    failing = false;
    expect((await post()).status).toBe(200);
    expect(ended).toHaveLength(1);
    expect((await post()).status).toBe(400);
  });
});

describe('the kit’s Shared Signals receiver (RFC 8935 push)', () => {
  let key: CryptoKey;
  let jwk: JWK;
  beforeAll(async () => {
    const pair = await generateKeyPair('ES256');
    key = pair.privateKey;
    jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256' };
  });
  const SESSION_REVOKED = 'https://schemas.openid.net/secevent/caep/event-type/session-revoked';
  const set = (claims: JWTPayload = {}, typ = 'secevent+jwt') =>
    new SignJWT({
      iss: ISSUER,
      aud: CLIENT_ID,
      iat: at(-10),
      jti: `set-${Math.random()}`,
      sub_id: { format: 'complex', user: { format: 'iss_sub', iss: ISSUER, sub: 'person-1' }, session: { format: 'opaque', id: 'session-1' } },
      events: { [SESSION_REVOKED]: { initiating_entity: 'admin' } },
      ...claims,
    })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1', typ })
      .sign(key);

  it('ends the named session on session-revoked, once; answers 202, and 400 with RFC 8935 codes otherwise', async () => {
    const { createSecurityEventReceiver } = await import('../../app-kit/security-events');
    const ended: BackchannelLogout[] = [];
    const seen: string[] = [];
    const receiver = createSecurityEventReceiver({ issuer: ISSUER, clientId: CLIENT_ID, keys: createLocalJWKSet({ keys: [jwk] }), now: () => NOW, endSessions: (logout) => void ended.push(logout), onEvent: (event) => void seen.push(event.type) });
    const post = (body: string, type = 'application/secevent+jwt') => receiver.handle(new Request('https://app.test/ssf', { method: 'POST', headers: { 'content-type': type }, body }));
    const token = await set();
    expect((await post(token)).status).toBe(202);
    expect(ended).toEqual([expect.objectContaining({ sub: 'person-1', sid: 'session-1' })]);
    expect(seen).toEqual([SESSION_REVOKED]);
    const replayed = await post(token);
    expect(replayed.status).toBe(400);
    expect(await replayed.json()).toMatchObject({ err: 'invalid_request' });
    expect(await (await post(await set({ aud: 'another' }))).json()).toMatchObject({ err: 'invalid_audience' });
    expect(await (await post(await set({ iss: 'https://evil.test' }))).json()).toMatchObject({ err: 'invalid_issuer' });
    expect((await post(await set({}, 'JWT'))).status).toBe(400);
    expect((await post(await set({ events: { a: {}, b: {} } }))).status).toBe(400);
    expect((await post(await set({ iat: at(-3 * 86400) }))).status).toBe(400);
    expect((await post(token, 'application/json')).status).toBe(400);
    // A body longer than any SET is refused unread.
    expect(await (await post('x'.repeat(64 * 1024))).json()).toMatchObject({ err: 'invalid_request', description: 'the SET is too large' });
    expect(ended).toHaveLength(1);
    // RISC account-disabled and account-purged end every session of the person.
    for (const type of ['https://schemas.openid.net/secevent/risc/event-type/account-disabled', 'https://schemas.openid.net/secevent/risc/event-type/account-purged']) {
      expect((await post(await set({ sub_id: { format: 'iss_sub', iss: ISSUER, sub: 'person-2' }, events: { [type]: { initiating_entity: 'admin' } } }))).status).toBe(202);
    }
    expect(ended.slice(1)).toEqual([expect.objectContaining({ sub: 'person-2' }), expect.objectContaining({ sub: 'person-2' })]);
    expect(ended[2]).not.toHaveProperty('sid');
  });
});
