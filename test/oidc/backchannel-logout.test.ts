// Back-channel logout (OpenID Connect Back-Channel Logout 1.0): every way a person's session with an app ends queues
// one logout token for the app in the outbound outbox, in the same transaction; the outbox signs it when it sends it
// to a real HTTPS receiver; the token verifies with jose against Portico's published JWKS and is accepted by the app
// kit's receiver (whose refusals app-kit/backchannel-logout.test.ts covers).
import { randomBytes } from 'node:crypto';
import { eq, and, sql } from 'drizzle-orm';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { beforeAll, beforeEach, afterAll, describe, expect, inject, it } from 'vitest';
import { removeMember } from '../../lib/organizations/memberships';
import { setOwnPassword } from '../../lib/accounts/credentials';
import { hashPassword } from '../../lib/accounts/factors/password';
import { endAccountSession, listSessions, signOutEverywhere } from '../../lib/accounts/sessions';
import { deleteApp, setAppDisabled } from '../../lib/clients/apps';
import { setBackchannelLogout } from '../../lib/clients/backchannel-logout';
import { outboundDeliveries, oidcPayloads, ssfStreams } from '../../lib/db/schema';
import { SSF_EVENT_TYPES } from '../../lib/ssf/events';
import { securityEventSigner } from '../../lib/deliveries/channels/security-event';
import { handleStreamsRequest, type SsfContext } from '../../lib/ssf/streams';
import { logoutTokenDelivery, BACKCHANNEL_LOGOUT_EVENT, LOGOUT_TOKEN_TTL_SECONDS, queueLogoutTokens } from '../../lib/deliveries/channels/logout-token';
import { deliverDue, makeDueNow } from '../../lib/deliveries/outbox';
import { endClientAccess, endGrants, grantsOfPerson } from '../../lib/grants';
import { createLogoutReceiver } from '../../app-kit/backchannel-logout';
import { CookieJar, createMember, createOrgWithApp, relyingParty, signIn, useProviderHarness, type AppFixture } from '../support/provider-harness';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import type { User } from '../../lib/accounts/users';
import { registerClient, validateRegistration } from '../../lib/clients/registration';

describe('back-channel logout', () => {
  const suite = useProviderHarness();
  let receiver: WebhookReceiver;
  let app: AppFixture;
  let rp: oidc.Configuration;
  let logoutUri: string;
  let people = 0;

  const deliver = (now?: () => Date) =>
    deliverDue(suite.database.db, { logout_token: logoutTokenDelivery({ db: () => suite.database.db, issuer: suite.harness.issuer, signingKeys: suite.harness.keys.signingKeys, outbound: { allowLoopback: true }, now }) });
  const queued = (userId: string) =>
    suite.database.db
      .select()
      .from(outboundDeliveries)
      .where(and(eq(outboundDeliveries.channel, 'logout_token'), eq(outboundDeliveries.clientId, app.clientId), sql`${outboundDeliveries.payload}->>'sub' = ${userId}`));
  const tokensReceived = () => receiver.received.filter((request) => request.path === '/logout').map((request) => new URLSearchParams(request.body).get('logout_token')!);

  /** A person of the app's organization signed in to it: their ID token's claims, with the session's cookies. */
  async function signedInPerson(scope = 'openid email'): Promise<{ person: User; sid: string; jar: CookieJar; refreshToken?: string }> {
    const person = await createMember(suite.database, app.orgId, `bcl${++people}@logout.test`);
    const jar = new CookieJar();
    // OIDC Core §11: offline_access is honoured with prompt=consent.
    const attempt = await signIn(suite.harness, suite.database, rp, app, { email: person.email }, { scope, ...(scope.includes('offline_access') ? { prompt: 'consent' } : {}) }, jar);
    const tokens = await oidc.authorizationCodeGrant(rp, attempt.callbackUrl!, attempt.checks);
    const sid = tokens.claims()?.sid;
    expect(typeof sid).toBe('string');
    return { person, sid: sid as string, jar, refreshToken: tokens.refresh_token };
  }

  /** RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0) of the session in the jar, from every app. */
  async function signOutAtProvider(jar: CookieJar): Promise<void> {
    const start = await fetch(`${suite.harness.issuer}/oidc/session/end?client_id=${app.clientId}`, { headers: { cookie: jar.header() } });
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(await start.text())?.[1];
    expect(xsrf).toBeDefined();
    const confirm = await fetch(`${suite.harness.issuer}/oidc/session/end/confirm`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ xsrf: xsrf!, logout: 'yes' }),
    });
    expect(confirm.status).toBe(303);
  }

  beforeAll(async () => {
    receiver = await startWebhookReceiver(inject('tlsDir'));
    app = await createOrgWithApp(suite.database, 'Logout');
    rp = await relyingParty(suite.harness, app);
    logoutUri = `${receiver.origin}/logout`;
    await setBackchannelLogout(suite.database.db, app.clientId, { uri: logoutUri, sessionRequired: true });
  });
  afterAll(async () => {
    await receiver?.close();
  });
  beforeEach(async () => {
    // Nothing left over from another test is sent with this one's.
    await deliver();
    receiver.received.length = 0;
  });

  it('removing a member sends the app a signed logout token naming the person and the session, which the kit accepts once', async () => {
    const { person, sid } = await signedInPerson();
    await suite.database.db.transaction((tx) => removeMember(tx, app.orgId, person.id));
    const [row] = await queued(person.id);
    expect(row).toMatchObject({ eventType: 'member_removed', recipient: logoutUri, deliveredAt: null });

    expect(await deliver()).toMatchObject({ sent: 1 });
    const [token] = tokensReceived();
    expect(token).toBeDefined();
    // Verified against the JWKS Portico publishes, by jose (not by Portico's code).
    const jwks = createRemoteJWKSet(new URL(`${suite.harness.issuer}/oidc/jwks`));
    const { payload, protectedHeader } = await jwtVerify(token!, jwks, { issuer: suite.harness.issuer, audience: app.clientId, typ: 'logout+jwt' });
    expect(protectedHeader.alg).toBe('RS256'); // the app's ID token algorithm (RS256 unless it chose ES256)
    expect(payload).toMatchObject({ sub: person.id, sid, jti: row!.id, events: { [BACKCHANNEL_LOGOUT_EVENT]: {} } });
    expect(payload.exp! - payload.iat!).toBe(LOGOUT_TOKEN_TTL_SECONDS);
    expect(payload).not.toHaveProperty('nonce');
    const [delivered] = await queued(person.id);
    expect(delivered!.deliveredAt).not.toBeNull();
    expect(delivered!.lastStatus).toBe(204);

    const ended: unknown[] = [];
    const kit = createLogoutReceiver({ issuer: suite.harness.issuer, clientId: app.clientId, endSessions: (logout) => void ended.push(logout) });
    expect(await kit.receive(token!)).toMatchObject({ sub: person.id, sid });
    await expect(kit.receive(token!)).rejects.toThrow('already used');
    expect(ended).toHaveLength(1);
  });

  it('a password change ends the grant and the session that holds it: the app hears it once', async () => {
    const { person, sid } = await signedInPerson();
    await suite.database.db.transaction((tx) => setOwnPassword(tx, { user: person, passwordHash: 'x' }));
    const rows = await queued(person.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ eventType: 'credentials_changed', payload: { sub: person.id, sid } });
  });

  it('signing out (everywhere, or one session from the account page) queues a token for every app of the session', async () => {
    const first = await signedInPerson();
    expect(await signOutEverywhere(suite.database.db, first.person.id)).toBe(1);
    expect(await queued(first.person.id)).toMatchObject([{ eventType: 'signed_out', payload: { sid: first.sid } }]);

    const second = await signedInPerson();
    const [session] = await listSessions(suite.database.db, second.person.id);
    // Another person's session id ends nothing and tells no app anything.
    expect(await endAccountSession(suite.database.db, first.person.id, 'app', session!.uid)).toBe(false);
    expect(await queued(second.person.id)).toEqual([]);
    expect(await endAccountSession(suite.database.db, second.person.id, 'app', session!.uid)).toBe(true);
    expect(await queued(second.person.id)).toMatchObject([{ eventType: 'session_ended', payload: { sid: second.sid } }]);
  });

  it('RP-initiated logout queues the token instead of sending it during the request, and one session-revoked per stream', async () => {
    // The app also listens to Shared Signals: the sign-out ends the session's grant too, yet the app hears it once.
    const ssf: SsfContext = { db: suite.database.db, issuer: suite.harness.issuer, atRestKey: randomBytes(32), sign: securityEventSigner({ issuer: suite.harness.issuer, signingKeys: suite.harness.keys.signingKeys }) };
    const authorization = `Basic ${Buffer.from(`${encodeURIComponent(app.clientId)}:${encodeURIComponent(app.clientSecret)}`).toString('base64')}`;
    const created = await handleStreamsRequest(
      ssf,
      new Request(`${suite.harness.issuer}/api/ssf/streams`, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify({ delivery: { method: 'urn:ietf:rfc:8936' }, events_requested: [SSF_EVENT_TYPES.sessionRevoked] }) }),
    );
    const { stream_id: streamId } = (await created.json()) as { stream_id: string };
    const { person, sid, jar } = await signedInPerson();
    await signOutAtProvider(jar);
    expect(tokensReceived()).toEqual([]);
    expect(await queued(person.id)).toMatchObject([{ eventType: 'signed_out', payload: { sid } }]);
    const events = await suite.database.db.select().from(outboundDeliveries).where(eq(outboundDeliveries.streamId, streamId));
    expect(events).toMatchObject([{ eventType: SSF_EVENT_TYPES.sessionRevoked, payload: { subject: { sub: person.id, sid }, events: { [SSF_EVENT_TYPES.sessionRevoked]: { initiating_entity: 'user' } } } }]);
    // An app that listens only by its stream, whose grant outlives the sign-out (offline_access), hears it too.
    await setBackchannelLogout(suite.database.db, app.clientId, null);
    try {
      const offline = await signedInPerson('openid email offline_access');
      await signOutAtProvider(offline.jar);
      const theirs = await suite.database.db.select().from(outboundDeliveries).where(and(eq(outboundDeliveries.streamId, streamId), sql`${outboundDeliveries.payload}->'subject'->>'sub' = ${offline.person.id}`));
      expect(theirs).toMatchObject([{ payload: { subject: { sub: offline.person.id, sid: offline.sid } } }]);
    } finally {
      await setBackchannelLogout(suite.database.db, app.clientId, { uri: logoutUri, sessionRequired: true });
    }
    await suite.database.db.delete(ssfStreams).where(eq(ssfStreams.id, streamId));
    await deliver();
    expect(decodeJwt(tokensReceived()[0]!)).toMatchObject({ sub: person.id, sid });
  });

  it('a token the relying party refuses (400) is not retried; a waiting one goes to the URI the client has when it is sent', async () => {
    const refused = await signedInPerson();
    await signOutEverywhere(suite.database.db, refused.person.id);
    receiver.failNext(400);
    expect(await deliver()).toMatchObject({ failed: 1 });
    expect(await queued(refused.person.id)).toMatchObject([{ attempts: 1, lastStatus: 400, failedAt: expect.any(Date) }]);

    const moved = await signedInPerson();
    await signOutEverywhere(suite.database.db, moved.person.id);
    await setBackchannelLogout(suite.database.db, app.clientId, { uri: `${receiver.origin}/logout-moved`, sessionRequired: true });
    try {
      expect(await deliver()).toMatchObject({ sent: 1 });
      expect(receiver.received.map((request) => request.path)).toEqual(['/logout', '/logout-moved']);

      const dropped = await signedInPerson();
      await signOutEverywhere(suite.database.db, dropped.person.id);
      await setBackchannelLogout(suite.database.db, app.clientId, null);
      expect(await deliver()).toMatchObject({ failed: 1 });
      expect(await queued(dropped.person.id)).toMatchObject([{ attempts: 1, lastError: 'the client no longer has a back-channel logout URI' }]);
      expect(receiver.received).toHaveLength(2);
    } finally {
      await setBackchannelLogout(suite.database.db, app.clientId, { uri: logoutUri, sessionRequired: true });
    }
  });

  it('revoking the app’s access, turning the app off and ending a grant each reach the app', async () => {
    const revoked = await signedInPerson();
    await endClientAccess(suite.database.db, app.clientId);
    expect(await queued(revoked.person.id)).toMatchObject([{ eventType: 'access_revoked', payload: { sid: revoked.sid } }]);

    const turnedOff = await signedInPerson();
    expect(await setAppDisabled(suite.database.db, app.app.id, true)).toBe(true);
    expect(await queued(turnedOff.person.id)).toMatchObject([{ eventType: 'app_disabled', payload: { sid: turnedOff.sid } }]);
    await setAppDisabled(suite.database.db, app.app.id, false);

    // A refresh token replayed after its grace interval ends its grant (theft): the app hears that too.
    const stolen = await signedInPerson('openid offline_access');
    const rotated = await oidc.refreshTokenGrant(rp, stolen.refreshToken!);
    expect(rotated.refresh_token).toBeDefined();
    await suite.database.db.execute(sql`update oidc_payloads set consumed_at = now() - interval '1 hour' where kind = 'RefreshToken' and consumed_at is not null`);
    await expect(oidc.refreshTokenGrant(rp, stolen.refreshToken!)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect(await queued(stolen.person.id)).toMatchObject([{ eventType: 'grant_ended', payload: { sid: stolen.sid } }]);
  });

  it('an ending without a session reaches only a client that does not require the sid, and names the person', async () => {
    const required = await signedInPerson();
    const optional = await signedInPerson();
    // Their sessions expired and are gone; the grants live on.
    for (const { person } of [required, optional]) await suite.database.db.delete(oidcPayloads).where(and(eq(oidcPayloads.kind, 'Session'), eq(oidcPayloads.accountId, person.id)));
    await endGrants(suite.database.db, await grantsOfPerson(suite.database.db, required.person.id));
    expect(await queued(required.person.id)).toEqual([]);
    await setBackchannelLogout(suite.database.db, app.clientId, { uri: logoutUri, sessionRequired: false });
    try {
      await endGrants(suite.database.db, await grantsOfPerson(suite.database.db, optional.person.id));
      expect(await queued(optional.person.id)).toHaveLength(1);
      await deliver();
      const token = tokensReceived()[0]!;
      expect(decodeJwt(token)).toMatchObject({ sub: optional.person.id });
      expect(decodeJwt(token)).not.toHaveProperty('sid');
    } finally {
      await setBackchannelLogout(suite.database.db, app.clientId, { uri: logoutUri, sessionRequired: true });
    }
  });

  it('one ending is queued once, even when two transactions queue it at the same moment', async () => {
    const { person, sid } = await signedInPerson();
    const ending = { clientId: app.clientId, accountId: person.id, sid };
    const counts = await Promise.all([0, 1, 2].map(() => suite.database.db.transaction((tx) => queueLogoutTokens(tx, [ending, ending], 'signed_out'))));
    expect(counts.reduce((sum, count) => sum + count, 0)).toBe(1);
    expect(await queued(person.id)).toHaveLength(1);
  });

  it('a refused delivery is retried with the same jti and a freshly signed token', async () => {
    const { person } = await signedInPerson();
    await signOutEverywhere(suite.database.db, person.id);
    receiver.failNext(500);
    expect(await deliver(() => new Date(Date.now() - 60_000))).toMatchObject({ retrying: 1 });
    const [waiting] = await queued(person.id);
    expect(waiting).toMatchObject({ lastStatus: 500, lastError: 'the relying party answered 500', deliveredAt: null });
    await makeDueNow(suite.database.db, 'logout_token');
    expect(await deliver()).toMatchObject({ sent: 1 });
    const [first, second] = tokensReceived().map((token) => decodeJwt(token));
    expect(second!.jti).toBe(first!.jti);
    expect(second!.iat!).toBeGreaterThan(first!.iat!);
    expect(decodeProtectedHeader(tokensReceived()[1]!).typ).toBe('logout+jwt');
  });

  it('an app deleted for good still tells its relying party, at the URI it had', async () => {
    const doomed = await createOrgWithApp(suite.database, 'Doomed');
    await setBackchannelLogout(suite.database.db, doomed.clientId, { uri: `${receiver.origin}/logout-doomed`, sessionRequired: true });
    const person = await createMember(suite.database, doomed.orgId, 'doomed@logout.test');
    const doomedRp = await relyingParty(suite.harness, doomed);
    const attempt = await signIn(suite.harness, suite.database, doomedRp, doomed, { email: person.email });
    const sid = (await oidc.authorizationCodeGrant(doomedRp, attempt.callbackUrl!, attempt.checks)).claims()?.sid;
    await suite.database.db.transaction((tx) => deleteApp(tx, doomed.app.id));
    expect(await deliver()).toMatchObject({ sent: 1, failed: 0 });
    const [request] = receiver.received.filter((received) => received.path === '/logout-doomed');
    expect(decodeJwt(new URLSearchParams(request!.body).get('logout_token')!)).toMatchObject({ aud: doomed.clientId, sub: person.id, sid });
  });

  it('discovery announces it, and oidc-provider takes a registered client’s logout URI as its own', async () => {
    const discovery = (await (await fetch(`${suite.harness.issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(discovery).toMatchObject({ backchannel_logout_supported: true, backchannel_logout_session_supported: true });
    const valid = validateRegistration({ redirect_uris: ['https://mcp.example/cb'], backchannel_logout_uri: 'https://mcp.example/logout', backchannel_logout_session_required: false });
    if ('error' in valid) throw new Error(valid.error_description);
    const registered = await registerClient(suite.database.db, valid, '192.0.2.12');
    const client = await suite.harness.provider.Client.find(String(registered.client_id));
    expect(client?.backchannelLogoutUri).toBe('https://mcp.example/logout');
    expect(client?.backchannelLogoutSessionRequired).toBe(false);
  });

  it('the installation’s allowed networks reach an app’s client, never a client that registered itself', async () => {
    // The receiver's address named one by one (PORTICO_OUTBOUND_ALLOWED_NETWORKS), loopback otherwise closed.
    const named = `https://127.0.0.1:${new URL(receiver.origin).port}/logout`;
    const handler = logoutTokenDelivery({
      db: () => suite.database.db,
      issuer: suite.harness.issuer,
      signingKeys: suite.harness.keys.signingKeys,
      outbound: { allowLoopback: false, allowedNetworks: { networks: ['127.0.0.1/32'], hosts: [] } },
    });
    const valid = validateRegistration({ client_name: 'Anyone', redirect_uris: ['http://127.0.0.1:45999/cb'], backchannel_logout_uri: named });
    if ('error' in valid) throw new Error(valid.error_description);
    const selfRegistered = String((await registerClient(suite.database.db, valid, '192.0.2.13')).client_id);
    const delivery = (clientId: string) => ({ id: `obd_${randomBytes(8).toString('hex')}`, clientId, payload: { uri: named, sub: 'someone', alg: 'ES256' } }) as never;
    // Anyone can register a client: its logout URI opens nothing of the company's network.
    await expect(handler(delivery(selfRegistered))).rejects.toThrow(/private network|not a public/);
    expect(receiver.received).toEqual([]);
    // An app's client, made by its organization's admins, is told there.
    await setBackchannelLogout(suite.database.db, app.clientId, { uri: named, sessionRequired: true });
    await expect(handler(delivery(app.clientId))).resolves.toMatchObject({ status: 204 });
    expect(receiver.received.map((request) => request.path)).toEqual(['/logout']);
    await setBackchannelLogout(suite.database.db, app.clientId, { uri: logoutUri, sessionRequired: true });
  });

  it('a client without a back-channel logout URI is told nothing', async () => {
    const other = await createOrgWithApp(suite.database, 'Silent');
    const person = await createMember(suite.database, other.orgId, 'silent@logout.test');
    const otherRp = await relyingParty(suite.harness, other);
    const attempt = await signIn(suite.harness, suite.database, otherRp, other, { email: person.email });
    await oidc.authorizationCodeGrant(otherRp, attempt.callbackUrl!, attempt.checks);
    await suite.database.db.transaction(async (tx) => {
      await setOwnPassword(tx, { user: person, passwordHash: await hashPassword('another long password 42') });
    });
    expect(await suite.database.db.select().from(outboundDeliveries).where(and(eq(outboundDeliveries.channel, 'logout_token'), eq(outboundDeliveries.clientId, other.clientId)))).toEqual([]);
  });
});
