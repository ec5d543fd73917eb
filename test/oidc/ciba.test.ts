// CIBA (OpenID Connect Client-Initiated Backchannel Authentication, poll mode) with rich authorization details, driven
// by openid-client's own CIBA functions as the app's backend. The person answers through the function the
// confirmation page's form calls (answerConfirmation, with step-up); the page itself is driven in Chromium by
// e2e/ciba.spec.ts.
import { randomBytes } from 'node:crypto';
import { and, desc, eq, isNotNull } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import { describe, expect, it, beforeAll } from 'vitest';
import { argumentsDigest } from '../../app-kit/risk';
import { detailCovering } from '../../app-kit/approved-actions';
import { relyingPartyOf } from '../../lib/accounts/factors/passkeys';
import type { User } from '../../lib/accounts/users';
import { auditEvents, apps, confirmationChallenges, oidcPayloads } from '../../lib/db/schema';
import { hashStoredId } from '../../lib/oidc/stored-ids';
import { decryptAtRest } from '../../lib/security/at-rest';
import { answerConfirmation, findConfirmation } from '../../lib/confirmations/answers';
import { MAX_PENDING_PER_PERSON_AND_CLIENT } from '../../lib/oidc/ciba';
import { createMember, createOrgWithApp, relyingParty, TEST_PASSWORD, useProviderHarness, type AppFixture } from '../support/provider-harness';

const atRestKey = randomBytes(32);
const suite = useProviderHarness({ atRestKey, pollIntervalSeconds: 1 });
const ip = '192.0.2.7';

let app: AppFixture;
let person: User;
let config: oidc.Configuration;

const toolCall = (args: Record<string, unknown> = { to: 'ana@example.com', amount: 120 }) => ({ type: 'portico_tool_call', tool: 'payments.send', risk_level: 'approval_required', arguments: args });

function initiate(parameters: Record<string, string>, who: User = person) {
  return oidc.initiateBackchannelAuthentication(config, {
    scope: 'openid',
    login_hint: who.email,
    binding_message: 'Pay 120 to Ana? Code K7',
    resource: app.resource,
    authorization_details: JSON.stringify([toolCall()]),
    ...parameters,
  });
}

/** The person's challenge for a CIBA request, by the newest one of theirs. */
async function challengeOf(user: User) {
  const [row] = await suite.database.db
    .select()
    .from(confirmationChallenges)
    .where(and(eq(confirmationChallenges.subject, user.id), isNotNull(confirmationChallenges.backchannelRequestSealed)))
    .orderBy(desc(confirmationChallenges.createdAt));
  return row!;
}

const answerKeys = () => ({ atRestKey, rp: relyingPartyOf(suite.harness.issuer), provider: suite.harness.provider });

/** The token endpoint as a client polls it, without openid-client's waiting: the raw answer. */
async function pollOnce(authReqId: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${suite.harness.issuer}/oidc/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'urn:openid:params:grant-type:ciba', auth_req_id: authReqId }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('CIBA with authorization details', () => {
  beforeAll(async () => {
    app = await createOrgWithApp(suite.database, 'Ledger');
    person = await createMember(suite.database, app.orgId, `payer-${randomBytes(4).toString('hex')}@example.com`);
    await suite.database.db.update(apps).set({ cibaEnabled: true }).where(eq(apps.id, app.app.id));
    config = await relyingParty(suite.harness, app);
  });

  it('is announced in discovery: the endpoint, poll mode and the two detail types', () => {
    const metadata = config.serverMetadata();
    expect(metadata.backchannel_authentication_endpoint).toBe(`${suite.harness.issuer}/oidc/backchannel`);
    expect(metadata.backchannel_token_delivery_modes_supported).toEqual(['poll']);
    expect(metadata.authorization_details_types_supported).toEqual(['portico_tool_call', 'portico_action']);
    // User codes are not offered (every client is registered without them).
    expect(metadata.backchannel_user_code_parameter_supported).toBe(false);
  });

  it('an approval with step-up gives a token bound to the app that carries exactly the approved action, once, without a refresh token', async () => {
    // offline_access asked: only the rule that an approval is never renewed keeps the refresh token out.
    const started = await initiate({ scope: 'openid offline_access' });
    expect(started.expires_in).toBe(300);
    expect(started.interval).toBe(1);
    // Pending, and a second poll at once is too soon (the interval is 1 second).
    expect(await pollOnce(started.auth_req_id)).toMatchObject({ status: 400, body: { error: 'authorization_pending' } });
    expect(await pollOnce(started.auth_req_id)).toMatchObject({ status: 400, body: { error: 'slow_down' } });

    const challenge = await challengeOf(person);
    const view = await findConfirmation(suite.database.db, challenge.id, person);
    expect(view).toMatchObject({ backchannel: true, description: 'Pay 120 to Ana? Code K7', tool: 'payments.send', riskLevel: 'approval_required' });
    // The page shows the details exactly as the token will carry them.
    const shown = JSON.parse(view!.arguments) as Record<string, unknown>[];
    expect(shown).toEqual([{ ...toolCall(), locations: [app.resource], arguments_digest: argumentsDigest(toolCall().arguments) }]);

    // openid-client polls (waiting the interval) while the person approves.
    const polled = oidc.pollBackchannelAuthenticationGrant(config, started);
    await answerConfirmation(suite.database.db, answerKeys(), { id: challenge.id, user: person, decision: 'confirm', proof: { password: TEST_PASSWORD }, ip });
    const tokens = await polled;
    expect(tokens.refresh_token).toBeUndefined();
    const claims = decodeJwt(tokens.access_token);
    expect(claims).toMatchObject({ sub: person.id, aud: app.app.identity, client_id: app.clientId });
    // Naming none of the app's permissions, it carries none (never "everything the person holds").
    expect(claims.scope).toBeUndefined();
    expect(claims.authorization_details).toEqual(shown);
    expect(tokens.authorization_details).toEqual(shown);
    expect(detailCovering(claims, { tool: 'payments.send', arguments: { amount: 120, to: 'ana@example.com' } })).toBeDefined();
    expect(detailCovering(claims, { tool: 'payments.send', arguments: { amount: 121, to: 'ana@example.com' } })).toBeUndefined();
    const idToken = decodeJwt(tokens.id_token!);
    expect(idToken).toMatchObject({ sub: person.id, amr: ['pwd'] });

    // The request is spent: polling it again is refused.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await pollOnce(started.auth_req_id)).body.error).toBe('invalid_grant');
    const audit = await suite.database.db.select().from(auditEvents).where(and(eq(auditEvents.orgId, app.orgId), eq(auditEvents.subjectId, challenge.id)));
    expect(audit.map((event) => event.action)).toContain('confirmation.requested');
  });

  it('a denial answers access_denied', async () => {
    const started = await initiate({ binding_message: 'Deny me' });
    const challenge = await challengeOf(person);
    const polled = oidc.pollBackchannelAuthenticationGrant(config, started);
    await answerConfirmation(suite.database.db, answerKeys(), { id: challenge.id, user: person, decision: 'deny', proof: {}, ip });
    await expect(polled).rejects.toMatchObject({ error: 'access_denied' });
  });

  it('an unanswered request expires: expired_token (a 1-second requested_expiry)', async () => {
    const started = await initiate({ requested_expiry: '1', binding_message: 'Too late' });
    expect(started.expires_in).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await pollOnce(started.auth_req_id)).toMatchObject({ status: 400, body: { error: 'expired_token' } });
  });

  it('requested_expiry is bounded to 10 minutes', async () => {
    const started = await initiate({ requested_expiry: '86400', binding_message: 'Long' });
    expect(started.expires_in).toBe(600);
  });

  it('an unknown person and a person of another organization are indistinguishable: unknown_user_id', async () => {
    const other = await createOrgWithApp(suite.database, 'Elsewhere');
    const stranger = await createMember(suite.database, other.orgId, `stranger-${randomBytes(4).toString('hex')}@example.com`);
    const answers = await Promise.all(
      [`nobody-${randomBytes(4).toString('hex')}@example.com`, stranger.email, stranger.id, crypto.randomUUID(), 'not an address'].map((hint) =>
        initiate({ login_hint: hint }).then(
          () => 'accepted',
          (error: { error?: string; error_description?: string }) => `${error.error}: ${error.error_description}`,
        ),
      ),
    );
    expect(new Set(answers)).toEqual(new Set(['unknown_user_id: could not identify end-user']));
    // By sub, a member is found.
    await expect(initiate({ login_hint: person.id, binding_message: 'By sub' })).resolves.toMatchObject({ auth_req_id: expect.any(String) });
  });

  it('refuses bad requests in the protocol’s shape', async () => {
    const asked = await createMember(suite.database, app.orgId, `asked-${randomBytes(4).toString('hex')}@example.com`);
    const refusal = (parameters: Record<string, string>) => initiate(parameters, asked).then(() => 'accepted', (error: { error?: string }) => error.error);
    expect(await refusal({ binding_message: '' })).toBe('invalid_binding_message');
    expect(await refusal({ binding_message: 'x'.repeat(65) })).toBe('invalid_binding_message');
    expect(await refusal({ binding_message: 'Pay\u202Eevil' })).toBe('invalid_binding_message');
    expect(await refusal({ authorization_details: JSON.stringify([{ type: 'payment_initiation', amount: 1 }]) })).toBe('invalid_authorization_details');
    expect(await refusal({ authorization_details: JSON.stringify([{ ...toolCall(), extra: 'hidden' }]) })).toBe('invalid_authorization_details');
    expect(await refusal({ authorization_details: JSON.stringify([{ ...toolCall(), arguments_digest: argumentsDigest({ other: 1 }) }]) })).toBe('invalid_authorization_details');
    expect(await refusal({ authorization_details: JSON.stringify([{ ...toolCall(), locations: ['https://elsewhere.example/api/mcp'] }]) })).toBe('invalid_authorization_details');
    expect(await refusal({ authorization_details: JSON.stringify([{ type: 'portico_action', description: 'Ship', amount: { value: 'ten', currency: 'EUR' } }]) })).toBe('invalid_authorization_details');
    expect(await refusal({ authorization_details: '' })).toBe('invalid_request');
    expect(await refusal({ login_hint_token: 'x', login_hint: '' })).toBe('invalid_request');
    // An action described in words is accepted.
    expect(await refusal({ binding_message: 'Ship order 42', authorization_details: JSON.stringify([{ type: 'portico_action', description: 'Ship order 42', target: 'Warehouse B', amount: { value: '99.90', currency: 'EUR' } }]) })).toBe('accepted');
  });

  it(`a person is never flooded: at most ${MAX_PENDING_PER_PERSON_AND_CLIENT} open requests of one client, even when they arrive at once`, async () => {
    const target = await createMember(suite.database, app.orgId, `flooded-${randomBytes(4).toString('hex')}@example.com`);
    const answers = await Promise.all(
      Array.from({ length: MAX_PENDING_PER_PERSON_AND_CLIENT + 2 }, (_, index) =>
        initiate({ login_hint: target.email, binding_message: `Request ${index}` }).then(
          () => 'accepted',
          (error: { error?: string }) => error.error,
        ),
      ),
    );
    expect(answers.filter((answer) => answer === 'accepted')).toHaveLength(MAX_PENDING_PER_PERSON_AND_CLIENT);
    expect(answers.filter((answer) => answer === 'slow_down')).toHaveLength(2);
  });

  it('an app that has not turned CIBA on is refused: unauthorized_client', async () => {
    const off = await createOrgWithApp(suite.database, 'Quiet');
    const member = await createMember(suite.database, off.orgId, `quiet-${randomBytes(4).toString('hex')}@example.com`);
    const quietConfig = await relyingParty(suite.harness, off);
    await expect(
      oidc.initiateBackchannelAuthentication(quietConfig, { scope: 'openid', login_hint: member.email, binding_message: 'Hi', resource: off.resource, authorization_details: JSON.stringify([toolCall()]) }),
    ).rejects.toMatchObject({ error: 'unauthorized_client', error_description: 'urn:openid:params:grant-type:ciba is not allowed for this client' });
  });

  it('only the request’s own client gets its token', async () => {
    const started = await initiate({ binding_message: 'Mine only' }, await createMember(suite.database, app.orgId, `mine-${randomBytes(4).toString('hex')}@example.com`));
    const thief = await createOrgWithApp(suite.database, 'Thief');
    await suite.database.db.update(apps).set({ cibaEnabled: true }).where(eq(apps.id, thief.app.id));
    const response = await fetch(`${suite.harness.issuer}/oidc/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: `Basic ${Buffer.from(`${thief.clientId}:${thief.clientSecret}`).toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'urn:openid:params:grant-type:ciba', auth_req_id: started.auth_req_id }),
    });
    expect(await response.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('the request id is a bearer secret: stored only as its hash, and in the challenge only sealed', async () => {
    const sealedFor = await createMember(suite.database, app.orgId, `sealed-${randomBytes(4).toString('hex')}@example.com`);
    const started = await initiate({ binding_message: 'Sealed' }, sealedFor);
    const challenge = await challengeOf(sealedFor);
    const [stored] = await suite.database.db.select().from(oidcPayloads).where(and(eq(oidcPayloads.kind, 'BackchannelAuthenticationRequest'), eq(oidcPayloads.id, hashStoredId(started.auth_req_id))));
    expect(stored).toBeDefined();
    expect(JSON.stringify(stored)).not.toContain(started.auth_req_id);
    expect(JSON.stringify(challenge)).not.toContain(started.auth_req_id);
    // What the challenge keeps opens, with the installation's key, to the very request.
    expect(await decryptAtRest(challenge.backchannelRequestSealed!, atRestKey)).toBe(started.auth_req_id);
  });
});
