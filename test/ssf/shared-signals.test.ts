// Shared Signals (SSF 1.0 transmitter, CAEP and RISC events): an app's own client manages its streams with its
// credentials; events reach a push stream at a real HTTPS receiver and a poll stream by RFC 8936 polling; every SET is
// verified here with jose against the JWKS Portico publishes. Events go only to streams of apps the person uses, of
// the organization concerned; paused streams hold them; a client sees only its own streams.
import { randomBytes } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { announcePermissionChange } from '../../lib/organizations/claims-change';
import { deleteAccount, disableAccount, setOwnPassword } from '../../lib/accounts/credentials';
import { addMember, removeMember } from '../../lib/organizations/memberships';
import { signOutEverywhere } from '../../lib/accounts/sessions';
import { setAppDisabled } from '../../lib/clients/apps';
import { auditEvents, outboundDeliveries, passkeys, ssfStreams, users } from '../../lib/db/schema';
import { deliverDue } from '../../lib/deliveries/outbox';
import { giveUpUncollectedEvents, queueCredentialChange, queuePersonEvent, SSF_EVENT_TYPES, UNCOLLECTED_EVENT_DAYS, VERIFICATION_EVENT } from '../../lib/ssf/events';
import { securityEventPushDelivery, securityEventSigner } from '../../lib/deliveries/channels/security-event';
import { handlePollRequest, handleStatusRequest, handleStreamsRequest, handleVerificationRequest, listAppStreams, MAX_STREAMS_PER_CLIENT, MIN_VERIFICATION_INTERVAL_SECONDS, ssfConfiguration, type SsfContext } from '../../lib/ssf/streams';
import { createMember, createOrgWithApp, relyingParty, signIn, TEST_PASSWORD, useProviderHarness, type AppFixture } from '../support/provider-harness';
import { Secret, TOTP } from 'otpauth';
import { confirmOwnTotp, removeOwnPasskey, removeOwnTotp } from '../../lib/accounts/factors/own-factors';
import { registerOwnPasskey, relyingPartyOf } from '../../lib/accounts/factors/passkeys';
import { accountFactorsContext, passkeyRegistrationAfterStepUp, stepUpPasskeyOptions } from '../../lib/accounts/factors/step-up';
import { startTotpEnrollment, totpEnrollmentOf } from '../../lib/accounts/factors/totp';
import { beginSecondStep, enrollAtSignIn, enrollmentPasskeyOptions, enrollmentSecret, enrollPasskeyAtSignIn } from '../../lib/accounts/sign-in-second-step';
import { assertionResponse, registrationResponse } from '../support/software-authenticator';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import type { User } from '../../lib/accounts/users';

const PUSH = 'urn:ietf:rfc:8935';
const POLL = 'urn:ietf:rfc:8936';
const ALL_EVENTS = Object.values(SSF_EVENT_TYPES);

describe('shared signals', () => {
  const suite = useProviderHarness();
  const atRestKey = randomBytes(32);
  let receiver: WebhookReceiver;
  let ctx: SsfContext;
  let app: AppFixture;
  let otherApp: AppFixture;
  let people = 0;

  const basic = (fixture: AppFixture, secret = fixture.clientSecret) => `Basic ${Buffer.from(`${encodeURIComponent(fixture.clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`;
  const call = (handler: (ctx: SsfContext, request: Request) => Promise<Response>, method: string, body?: unknown, options: { as?: AppFixture; secret?: string; query?: string } = {}) =>
    handler(
      ctx,
      new Request(`${suite.harness.issuer}/api/ssf/x${options.query ?? ''}`, {
        method,
        headers: { authorization: basic(options.as ?? app, options.secret), 'content-type': 'application/json' },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      }),
    );
  const poll = (streamId: string, body: unknown, as = app) =>
    handlePollRequest(ctx, new Request(`${suite.harness.issuer}/api/ssf/poll/${streamId}`, { method: 'POST', headers: { authorization: basic(as), 'content-type': 'application/json' }, body: JSON.stringify(body) }), streamId);
  const push = () => deliverDue(suite.database.db, { security_event: securityEventPushDelivery({ db: () => suite.database.db, issuer: suite.harness.issuer, signingKeys: suite.harness.keys.signingKeys, atRestKey, outbound: { allowLoopback: true } }) });
  const jwks = () => createRemoteJWKSet(new URL(`${suite.harness.issuer}/oidc/jwks`));
  const verifySet = async (token: string, audience = app.clientId): Promise<JWTPayload> => (await jwtVerify(token, jwks(), { issuer: suite.harness.issuer, audience, typ: 'secevent+jwt' })).payload;
  const pushed = () => receiver.received.filter((request) => request.path === '/ssf');

  async function createStream(body: Record<string, unknown>, as = app): Promise<Record<string, unknown>> {
    const answer = await call(handleStreamsRequest, 'POST', body, { as });
    expect(answer.status, await answer.clone().text()).toBe(201);
    return (await answer.json()) as Record<string, unknown>;
  }

  /** A member of the app's organization who signed in to it (so uses it): their ID token's sid. */
  async function signedIn(fixture = app): Promise<{ person: User; sid: string }> {
    const person = await createMember(suite.database, fixture.orgId, `ssf${++people}@signals.test`);
    const rp = await relyingParty(suite.harness, fixture);
    const attempt = await signIn(suite.harness, suite.database, rp, fixture, { email: person.email });
    const tokens = await oidc.authorizationCodeGrant(rp, attempt.callbackUrl!, attempt.checks);
    return { person, sid: String(tokens.claims()?.sid) };
  }

  beforeAll(async () => {
    receiver = await startWebhookReceiver(inject('tlsDir'));
    ctx = { db: suite.database.db, issuer: suite.harness.issuer, atRestKey, sign: securityEventSigner({ issuer: suite.harness.issuer, signingKeys: suite.harness.keys.signingKeys }) };
    app = await createOrgWithApp(suite.database, 'Signals');
    otherApp = await createOrgWithApp(suite.database, 'Elsewhere');
  });
  afterAll(async () => receiver?.close());
  beforeEach(async () => {
    // Every test starts with no streams of the app (and so nothing queued for it).
    for (const fixture of [app, otherApp]) {
      const streams = (await (await call(handleStreamsRequest, 'GET', undefined, { as: fixture })).json()) as { stream_id: string }[];
      for (const stream of streams) await call(handleStreamsRequest, 'DELETE', undefined, { as: fixture, query: `?stream_id=${stream.stream_id}` });
    }
    receiver.received.length = 0;
  });

  it('publishes its configuration (SSF 1.0 §7.1)', () => {
    expect(ssfConfiguration(suite.harness.issuer)).toMatchObject({
      spec_version: '1_0',
      issuer: suite.harness.issuer,
      jwks_uri: `${suite.harness.issuer}/oidc/jwks`,
      delivery_methods_supported: [PUSH, POLL],
      configuration_endpoint: `${suite.harness.issuer}/api/ssf/streams`,
      status_endpoint: `${suite.harness.issuer}/api/ssf/status`,
      verification_endpoint: `${suite.harness.issuer}/api/ssf/verify`,
    });
  });

  it('a push stream gets its verification event, signed, at the receiver', async () => {
    const stream = await createStream({ delivery: { method: PUSH, endpoint_url: `${receiver.origin}/ssf`, authorization_header: 'Bearer receiver-token' }, events_requested: ALL_EVENTS, description: 'SIEM' });
    expect(stream).toMatchObject({ iss: suite.harness.issuer, aud: app.clientId, delivery: { method: PUSH, endpoint_url: `${receiver.origin}/ssf` }, events_delivered: ALL_EVENTS, description: 'SIEM' });
    expect(JSON.stringify(stream)).not.toContain('receiver-token');
    expect((await call(handleVerificationRequest, 'POST', { stream_id: stream.stream_id, state: 'abc-123' })).status).toBe(204);
    expect(await push()).toMatchObject({ sent: 1 });
    const [request] = pushed();
    expect(request!.headers['content-type']).toBe('application/secevent+jwt');
    expect(request!.headers.authorization).toBe('Bearer receiver-token');
    const set = await verifySet(request!.body);
    expect(set).toMatchObject({ sub_id: { format: 'opaque', id: stream.stream_id }, events: { [VERIFICATION_EVENT]: { state: 'abc-123' } } });
    expect(set).not.toHaveProperty('exp');
  });

  it('removing a member pushes CAEP session-revoked naming the person and the session', async () => {
    const stream = await createStream({ delivery: { method: PUSH, endpoint_url: `${receiver.origin}/ssf` }, events_requested: [SSF_EVENT_TYPES.sessionRevoked] });
    const { person, sid } = await signedIn();
    await suite.database.db.transaction((tx) => removeMember(tx, app.orgId, person.id));
    await push();
    expect(pushed()).toHaveLength(1);
    const set = await verifySet(pushed()[0]!.body);
    expect(set.sub_id).toEqual({ format: 'complex', user: { format: 'iss_sub', iss: suite.harness.issuer, sub: person.id }, session: { format: 'opaque', id: sid } });
    expect(set.events).toMatchObject({ [SSF_EVENT_TYPES.sessionRevoked]: { initiating_entity: 'admin', event_timestamp: expect.any(Number) } });
    expect(stream.stream_id).toEqual(expect.any(String));
  });

  it('a poll stream answers its events until they are acknowledged (RFC 8936), once per session ending', async () => {
    const stream = await createStream({ delivery: { method: POLL }, events_requested: [SSF_EVENT_TYPES.sessionRevoked, SSF_EVENT_TYPES.credentialChange] });
    expect(stream.delivery).toEqual({ method: POLL, endpoint_url: `${suite.harness.issuer}/api/ssf/poll/${stream.stream_id}` });
    const { person, sid } = await signedIn();
    // A password change ends the grant and the session that held it: one session-revoked, and the credential change.
    await suite.database.db.transaction((tx) => setOwnPassword(tx, { user: person, passwordHash: 'x' }));
    const first = (await (await poll(String(stream.stream_id), { maxEvents: 10 })).json()) as { sets: Record<string, string>; moreAvailable: boolean };
    expect(first.moreAvailable).toBe(false);
    const sets = await Promise.all(Object.values(first.sets).map((token) => verifySet(token)));
    expect(sets.map((set) => Object.keys(set.events as object)[0]).sort()).toEqual([SSF_EVENT_TYPES.credentialChange, SSF_EVENT_TYPES.sessionRevoked].sort());
    expect(sets.find((set) => SSF_EVENT_TYPES.credentialChange in (set.events as object))).toMatchObject({ sub_id: { format: 'iss_sub', sub: person.id }, events: { [SSF_EVENT_TYPES.credentialChange]: { credential_type: 'password', change_type: 'update' } } });
    expect(sets.find((set) => SSF_EVENT_TYPES.sessionRevoked in (set.events as object))).toMatchObject({ sub_id: { session: { id: sid } } });
    // Not acknowledged: answered again. maxEvents bounds the answer.
    const again = (await (await poll(String(stream.stream_id), { maxEvents: 1 })).json()) as { sets: Record<string, string>; moreAvailable: boolean };
    expect(Object.keys(again.sets)).toHaveLength(1);
    expect(again.moreAvailable).toBe(true);
    const acked = (await (await poll(String(stream.stream_id), { ack: Object.keys(first.sets), maxEvents: 10 })).json()) as { sets: Record<string, string> };
    expect(acked.sets).toEqual({});
  });

  it('a paused stream holds its events until enabled; a disabled one keeps none', async () => {
    const stream = await createStream({ delivery: { method: POLL }, events_requested: [SSF_EVENT_TYPES.sessionRevoked] });
    const id = String(stream.stream_id);
    expect(await (await call(handleStatusRequest, 'POST', { stream_id: id, status: 'paused', reason: 'maintenance' })).json()).toMatchObject({ status: 'paused', reason: 'maintenance' });
    const { person } = await signedIn();
    await signOutEverywhere(suite.database.db, person.id);
    expect(((await (await poll(id, {})).json()) as { sets: object }).sets).toEqual({});
    await call(handleStatusRequest, 'POST', { stream_id: id, status: 'enabled' });
    expect(Object.keys(((await (await poll(id, {})).json()) as { sets: object }).sets)).toHaveLength(1);
    await call(handleStatusRequest, 'POST', { stream_id: id, status: 'disabled' });
    const second = await signedIn();
    await signOutEverywhere(suite.database.db, second.person.id);
    expect(await suite.database.db.select().from(outboundDeliveries).where(and(eq(outboundDeliveries.streamId, id), eq(outboundDeliveries.eventType, SSF_EVENT_TYPES.sessionRevoked)))).toHaveLength(0);
    expect(await (await call(handleStatusRequest, 'GET', undefined, { query: `?stream_id=${id}` })).json()).toEqual({ stream_id: id, status: 'disabled' });
  });

  it('polled events are never due for the outbox; a verification is refused when asked for more often than announced', async () => {
    const stream = await createStream({ delivery: { method: POLL }, events_requested: [SSF_EVENT_TYPES.sessionRevoked] });
    const id = String(stream.stream_id);
    expect(stream.min_verification_interval).toBe(MIN_VERIFICATION_INTERVAL_SECONDS);
    expect((await call(handleVerificationRequest, 'POST', { stream_id: id })).status).toBe(204);
    const tooSoon = await call(handleVerificationRequest, 'POST', { stream_id: id });
    expect(tooSoon.status).toBe(429);
    expect(tooSoon.headers.get('retry-after')).toBe(String(MIN_VERIFICATION_INTERVAL_SECONDS));
    const { person } = await signedIn();
    await signOutEverywhere(suite.database.db, person.id);
    const due = () => suite.database.db.select().from(outboundDeliveries).where(and(eq(outboundDeliveries.streamId, id), sql`${outboundDeliveries.nextAttemptAt} <= now()`));
    expect(await suite.database.db.select().from(outboundDeliveries).where(eq(outboundDeliveries.streamId, id))).toHaveLength(2);
    expect(await due()).toHaveLength(0);
    // What the app's console page lists.
    expect(await listAppStreams(suite.database.db, app.clientId)).toMatchObject([{ id, deliveryMethod: 'poll', status: 'enabled', waiting: 2, lastDeliveredAt: null }]);
    // Switched to push, what waited is due at once and reaches the receiver.
    expect((await call(handleStreamsRequest, 'PATCH', { stream_id: id, delivery: { method: PUSH, endpoint_url: `${receiver.origin}/ssf` } })).status).toBe(200);
    expect(await due()).toHaveLength(2);
    expect(await push()).toMatchObject({ sent: 2 });
    expect(pushed()).toHaveLength(2);
  });

  it('an event nobody collects is given up after 30 days', async () => {
    const stream = await createStream({ delivery: { method: POLL }, events_requested: [SSF_EVENT_TYPES.sessionRevoked] });
    const { person } = await signedIn();
    await signOutEverywhere(suite.database.db, person.id);
    const day = 86_400_000;
    expect(await giveUpUncollectedEvents(suite.database.db, new Date(Date.now() + (UNCOLLECTED_EVENT_DAYS - 1) * day))).toBe(0);
    expect(await giveUpUncollectedEvents(suite.database.db, new Date(Date.now() + (UNCOLLECTED_EVENT_DAYS + 1) * day))).toBeGreaterThanOrEqual(1);
    const [row] = await suite.database.db.select().from(outboundDeliveries).where(eq(outboundDeliveries.streamId, String(stream.stream_id)));
    expect(row).toMatchObject({ failedAt: expect.any(Date), lastError: 'not collected within 30 days' });
    expect(((await (await poll(String(stream.stream_id), {})).json()) as { sets: object }).sets).toEqual({});
  });

  it('a pushed event claimed after its stream was paused is held, not attempted, and sent once the stream is enabled', async () => {
    const stream = await createStream({ delivery: { method: PUSH, endpoint_url: `${receiver.origin}/ssf` }, events_requested: [] });
    const id = String(stream.stream_id);
    expect((await call(handleVerificationRequest, 'POST', { stream_id: id })).status).toBe(204);
    // Paused by another instance between the queueing and the dispatcher's claim.
    await suite.database.db.update(ssfStreams).set({ status: 'paused' }).where(eq(ssfStreams.id, id));
    expect(await push()).toMatchObject({ sent: 0, retrying: 1 });
    expect(pushed()).toHaveLength(0);
    const [held] = await suite.database.db.select().from(outboundDeliveries).where(eq(outboundDeliveries.streamId, id));
    expect(held).toMatchObject({ attempts: 0, lastError: 'the stream is paused', deliveredAt: null, failedAt: null });
    expect(await push()).toMatchObject({ sent: 0, retrying: 0 });
    await call(handleStatusRequest, 'POST', { stream_id: id, status: 'enabled' });
    expect(await push()).toMatchObject({ sent: 1 });
    expect(pushed()).toHaveLength(1);
  });

  it('a turned-off app’s client can neither manage nor poll its streams; what it is told meanwhile waits for it', async () => {
    const stream = await createStream({ delivery: { method: POLL }, events_requested: [SSF_EVENT_TYPES.sessionRevoked] });
    const id = String(stream.stream_id);
    const { person } = await signedIn();
    await setAppDisabled(suite.database.db, app.app.id, true);
    try {
      expect((await call(handleStreamsRequest, 'GET', undefined)).status).toBe(401);
      expect((await poll(id, {})).status).toBe(401);
    } finally {
      await setAppDisabled(suite.database.db, app.app.id, false);
    }
    const answer = (await (await poll(id, {})).json()) as { sets: Record<string, string> };
    // Everyone signed in to the app (this test's person among them) was signed out of it.
    const sets = await Promise.all(Object.values(answer.sets).map((token) => verifySet(token)));
    const theirs = sets.find((set) => JSON.stringify(set.sub_id).includes(person.id));
    expect(theirs).toMatchObject({ sub_id: { user: { sub: person.id } }, events: { [SSF_EVENT_TYPES.sessionRevoked]: { reason_admin: { en: 'The app was turned off.' } } } });
  });

  it('events reach only the apps the person uses, in the organization concerned', async () => {
    const here = await createStream({ delivery: { method: POLL }, events_requested: ALL_EVENTS });
    const there = await createStream({ delivery: { method: POLL }, events_requested: ALL_EVENTS }, otherApp);
    const waiting = async (streamId: unknown) => (await suite.database.db.select().from(outboundDeliveries).where(eq(outboundDeliveries.streamId, String(streamId)))).map((row) => row.eventType);
    // A member of both organizations who uses only the first one's app.
    const { person } = await signedIn();
    await addMember(suite.database.db, { orgId: otherApp.orgId, userId: person.id, role: 'member' });
    await queueCredentialChange(suite.database.db, { userId: person.id, credentialType: 'app', changeType: 'create', secondFactorsBefore: 0, secondFactorsAfter: 1 });
    expect((await waiting(here.stream_id)).sort()).toEqual([SSF_EVENT_TYPES.assuranceLevelChange, SSF_EVENT_TYPES.credentialChange].sort());
    expect(await waiting(there.stream_id)).toEqual([]);
    // Now they use the other app too; an admin of the other organization's event stays there.
    await signIn(suite.harness, suite.database, await relyingParty(suite.harness, otherApp), otherApp, { email: person.email }).then(async (attempt) => oidc.authorizationCodeGrant(await relyingParty(suite.harness, otherApp), attempt.callbackUrl!, attempt.checks));
    await queuePersonEvent(suite.database.db, person.id, SSF_EVENT_TYPES.credentialCompromise, { credential_type: 'password' }, otherApp.orgId);
    expect(await waiting(there.stream_id)).toEqual([SSF_EVENT_TYPES.credentialCompromise]);
    expect(await waiting(here.stream_id)).not.toContain(SSF_EVENT_TYPES.credentialCompromise);
    // A person who never used the app is nobody's subject.
    const stranger = await createMember(suite.database, app.orgId, 'stranger@signals.test');
    expect(await announcePermissionChange(suite.database.db, { orgId: app.orgId, userIds: [stranger.id] })).toBe(0);
    expect(await announcePermissionChange(suite.database.db, { orgId: app.orgId, userIds: [person.id], appId: app.app.id })).toBe(1);
    const [claims] = await suite.database.db.select().from(outboundDeliveries).where(and(eq(outboundDeliveries.streamId, String(here.stream_id)), eq(outboundDeliveries.eventType, SSF_EVENT_TYPES.tokenClaimsChange)));
    expect(claims!.payload).toMatchObject({ events: { [SSF_EVENT_TYPES.tokenClaimsChange]: { claims: { scope: 'mcp' } } } });
  });

  it('disabling an account sends RISC account-disabled and ends its sessions', async () => {
    const stream = await createStream({ delivery: { method: POLL }, events_requested: [SSF_EVENT_TYPES.accountDisabled, SSF_EVENT_TYPES.sessionRevoked] });
    const { person } = await signedIn();
    expect(await suite.database.db.transaction((tx) => disableAccount(tx, person.id))).toBe(true);
    expect(await disableAccount(suite.database.db, person.id)).toBe(false);
    const answer = (await (await poll(String(stream.stream_id), {})).json()) as { sets: Record<string, string> };
    const types = (await Promise.all(Object.values(answer.sets).map((token) => verifySet(token)))).map((set) => Object.keys(set.events as object)[0]);
    expect(types.sort()).toEqual([SSF_EVENT_TYPES.accountDisabled, SSF_EVENT_TYPES.sessionRevoked].sort());
  });

  it('deleting an account sends RISC account-purged and ends its sessions, then the person is gone', async () => {
    const stream = await createStream({ delivery: { method: POLL }, events_requested: [SSF_EVENT_TYPES.accountPurged, SSF_EVENT_TYPES.sessionRevoked] });
    const { person, sid } = await signedIn();
    expect(await suite.database.db.transaction((tx) => deleteAccount(tx, person.id))).toEqual({ deleted: true });
    expect(await suite.database.db.select().from(users).where(eq(users.id, person.id))).toHaveLength(0);
    const answer = (await (await poll(String(stream.stream_id), {})).json()) as { sets: Record<string, string> };
    const sets = await Promise.all(Object.values(answer.sets).map((token) => verifySet(token)));
    expect(sets.find((set) => SSF_EVENT_TYPES.accountPurged in (set.events as object))).toMatchObject({ sub_id: { format: 'iss_sub', sub: person.id }, events: { [SSF_EVENT_TYPES.accountPurged]: { initiating_entity: 'admin' } } });
    expect(sets.find((set) => SSF_EVENT_TYPES.sessionRevoked in (set.events as object))).toMatchObject({ sub_id: { session: { id: sid } }, events: { [SSF_EVENT_TYPES.sessionRevoked]: { reason_admin: { en: 'The person’s account was deleted.' } } } });
  });

  it('stream management: credentials required, a client sees only its own streams, bad input refused, at most five', async () => {
    const unauthenticated = await call(handleStreamsRequest, 'GET', undefined, { secret: 'wrong' });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get('www-authenticate')).toContain('Basic');
    const mine = await createStream({ delivery: { method: POLL }, events_requested: [] });
    for (const answer of [
      await call(handleStreamsRequest, 'GET', undefined, { as: otherApp, query: `?stream_id=${mine.stream_id}` }),
      await call(handleStreamsRequest, 'DELETE', undefined, { as: otherApp, query: `?stream_id=${mine.stream_id}` }),
      await call(handleStatusRequest, 'POST', { stream_id: mine.stream_id, status: 'disabled' }, { as: otherApp }),
      await poll(String(mine.stream_id), {}, otherApp),
    ]) {
      expect(answer.status).toBe(404);
    }
    for (const [body, words] of [
      ['not json', 'JSON'],
      [{ delivery: { method: 'urn:example:email' } }, 'delivery.method'],
      [{ delivery: { method: PUSH, endpoint_url: 'http://siem.example/events' } }, 'https'],
      [{ delivery: { method: PUSH } }, 'endpoint_url'],
      [{ delivery: { method: POLL, endpoint_url: 'https://siem.example/poll' } }, 'Portico'],
      [{ delivery: { method: POLL }, events_requested: 'all' }, 'events_requested'],
      [{ delivery: { method: PUSH, endpoint_url: 'https://siem.example/e', authorization_header: 'Bearer a\nInjected: yes' } }, 'authorization_header'],
    ] as const) {
      const answer = await call(handleStreamsRequest, 'POST', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(((await answer.json()) as { error_description: string }).error_description).toContain(words);
    }
    expect((await poll(String(mine.stream_id), { maxEvents: 1000 })).status).toBe(400);
    // A NUL (which PostgreSQL text cannot hold) is refused, never a server error: in the client id, a stream id, a body.
    const nulClient = await handleStreamsRequest(ctx, new Request(`${suite.harness.issuer}/api/ssf/streams`, { headers: { authorization: `Basic ${Buffer.from('app%00x:secret').toString('base64')}` } }));
    expect(nulClient.status).toBe(401);
    expect((await call(handleStreamsRequest, 'GET', undefined, { query: '?stream_id=ssf_%00' })).status).toBe(404);
    expect((await poll('ssf_\u0000', {})).status).toBe(404);
    expect((await call(handleVerificationRequest, 'POST', { stream_id: mine.stream_id, state: 'a\u0000b' })).status).toBe(400);
    expect((await poll(String(mine.stream_id), { ack: ['\u0000'] })).status).toBe(400);
    // Concurrent creations never pass the limit.
    const answers = await Promise.all(Array.from({ length: MAX_STREAMS_PER_CLIENT + 2 }, () => call(handleStreamsRequest, 'POST', { delivery: { method: POLL } })));
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(MAX_STREAMS_PER_CLIENT - 1);
    expect(answers.filter((answer) => answer.status === 409)).toHaveLength(3);
    // An update changes what it names; a delete removes the stream and what waited for it.
    const updated = await call(handleStreamsRequest, 'PATCH', { stream_id: mine.stream_id, description: 'renamed' });
    expect(await updated.json()).toMatchObject({ stream_id: mine.stream_id, description: 'renamed', delivery: { method: POLL } });
    expect((await call(handleStreamsRequest, 'DELETE', undefined, { query: `?stream_id=${mine.stream_id}` })).status).toBe(204);
    expect((await call(handleStreamsRequest, 'GET', undefined, { query: `?stream_id=${mine.stream_id}` })).status).toBe(404);
  });
  it('every way a second factor comes or goes is followed the same way: the audit event, the owner\'s notice, one credential-change to the apps', async () => {
    const stream = await createStream({ delivery: { method: POLL }, events_requested: [SSF_EVENT_TYPES.credentialChange] });
    const changesOf = async (person: User) =>
      (await suite.database.db.select({ payload: outboundDeliveries.payload }).from(outboundDeliveries).where(and(eq(outboundDeliveries.streamId, String(stream.stream_id)), eq(outboundDeliveries.eventType, SSF_EVENT_TYPES.credentialChange))).orderBy(outboundDeliveries.createdAt))
        .map((row) => row.payload as { subject: { sub?: string }; events: Record<string, { credential_type: string; change_type: string }> })
        .filter((payload) => JSON.stringify(payload.subject).includes(person.id))
        .map((payload) => `${payload.events[SSF_EVENT_TYPES.credentialChange]!.credential_type} ${payload.events[SSF_EVENT_TYPES.credentialChange]!.change_type}`);
    const followUps = async (person: User) => ({
      audit: (await suite.database.db.select({ action: auditEvents.action, details: auditEvents.details }).from(auditEvents).where(and(eq(auditEvents.subjectId, person.id), sql`${auditEvents.action} like 'second_factor.%'`)).orderBy(auditEvents.id)).map((event) => `${event.action} ${(event.details as { kind?: string; during?: string }).kind}${(event.details as { during?: string }).during ? ` ${(event.details as { during?: string }).during}` : ''}`),
      notices: (await suite.database.db.select({ id: outboundDeliveries.id }).from(outboundDeliveries).where(and(eq(outboundDeliveries.channel, 'mail'), eq(outboundDeliveries.recipient, person.email)))).length,
      changes: await changesOf(person),
    });
    const mail = { issuer: suite.harness.issuer, atRestKey };
    const codeOf = (secret: string) => new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' });

    // The account page: an authenticator app turned on, then off (with its own code as step-up, a later time step).
    const { person: own } = await signedIn();
    const change = { user: own, ip: '192.0.2.40', keys: { atRestKey, rp: relyingPartyOf(suite.harness.issuer) }, mail };
    const { secret } = await startTotpEnrollment(suite.database.db, atRestKey, own);
    await confirmOwnTotp(suite.database.db, { ...change, proof: { password: TEST_PASSWORD }, code: codeOf(secret).generate() });
    await removeOwnTotp(suite.database.db, { ...change, proof: { code: codeOf(secret).generate({ timestamp: Date.now() + 30_000 }) } });
    expect(await followUps(own)).toEqual({ audit: ['second_factor.enrolled totp', 'second_factor.removed totp'], notices: 2, changes: ['app create', 'app delete'] });

    // An authenticator app set up during a sign-in that must have one (it told the apps nothing before).
    const { person: enrolling } = await signedIn();
    const token = await beginSecondStep(suite.database.db, { userId: enrolling.id, continuation: { surface: 'console', events: { surface: 'console', ip: '192.0.2.41' }, enroll: true } });
    const { secret: signInSecret } = await totpEnrollmentOf((await enrollmentSecret(suite.database.db, atRestKey, token))!, atRestKey, enrolling);
    await enrollAtSignIn(suite.database.db, atRestKey, { token, code: codeOf(signInSecret).generate(), ip: '192.0.2.41', mail });
    expect(await followUps(enrolling)).toEqual({ audit: ['second_factor.enrolled totp sign_in'], notices: 1, changes: ['app create'] });

    // Passkeys: one added on the account page (after step-up with the password, all the person has) and removed there
    // (step-up with that passkey, the strongest factor now), one set up during a sign-in that must have a second
    // factor. A platform authenticator's key is fido2-platform.
    const rp = relyingPartyOf(suite.harness.issuer);
    const { person: keyed } = await signedIn();
    const keyedChange = { user: keyed, ip: '192.0.2.42', keys: { atRestKey, rp }, mail };
    const addOptions = await passkeyRegistrationAfterStepUp(suite.database.db, atRestKey, rp, { user: keyed, proof: { password: TEST_PASSWORD }, ip: '192.0.2.42' });
    await registerOwnPasskey(suite.database.db, rp, { user: keyed, name: 'Laptop', response: registrationResponse(addOptions, rp.origin), ip: '192.0.2.42', mail });
    const [laptop] = await suite.database.db.select({ id: passkeys.id }).from(passkeys).where(eq(passkeys.userId, keyed.id));
    const assertion = assertionResponse(await stepUpPasskeyOptions(suite.database.db, rp, { user: keyed, context: accountFactorsContext(keyed.id) }), rp.origin);
    await removeOwnPasskey(suite.database.db, { ...keyedChange, passkeyId: laptop!.id, proof: { passkey: JSON.stringify(assertion) } });
    expect(await followUps(keyed)).toEqual({
      audit: ['second_factor.enrolled passkey', 'second_factor.removed passkey'],
      notices: 2,
      changes: ['fido2-platform create', 'fido2-platform delete'],
    });
    const { person: keyedAtSignIn } = await signedIn();
    const passkeySignIn = await beginSecondStep(suite.database.db, { userId: keyedAtSignIn.id, continuation: { surface: 'console', events: { surface: 'console', ip: '192.0.2.43' }, enroll: true } });
    const signInOptions = await enrollmentPasskeyOptions(suite.database.db, rp, passkeySignIn);
    await enrollPasskeyAtSignIn(suite.database.db, rp, { token: passkeySignIn, name: 'Phone', response: registrationResponse(signInOptions, rp.origin), ip: '192.0.2.43', mail });
    expect(await followUps(keyedAtSignIn)).toEqual({ audit: ['second_factor.enrolled passkey'], notices: 1, changes: ['fido2-platform create'] });
  });
});
