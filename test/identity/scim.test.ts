// SCIM 2.0 provisioning, driven with the request examples of RFC 7644 (§3.3 creating a User, §3.4.2 filtering and
// paging, §3.5.1 replacing, §3.5.2 patching — as Entra ID and Okta send them — §3.6 deleting) through the real
// handler: the bearer token, the protocol's errors, users and groups, and deactivation ending the membership exactly
// like removing a member (the refresh token the person held at the organization's app gets invalid_grant).
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import * as oidc from 'openid-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { findMembershipRole, addMember } from '../../lib/organizations/memberships';
import { hashPassword } from '../../lib/accounts/factors/password';
import { auditEvents, orgDomains, teamMembers, teams, users } from '../../lib/db/schema';
import { handleScimRequest } from '../../lib/identity/scim/http';
import { issueScimToken } from '../../lib/identity/scim/tokens';
import { recordAuditEvent } from '../../lib/audit/events';
import { createOrgWithApp, relyingParty, signIn, TEST_PASSWORD, useProviderHarness, type AppFixture } from '../support/provider-harness';

const ISSUER = 'https://portico.test';
const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

describe('SCIM 2.0 provisioning', () => {
  const suite = useProviderHarness();
  let app: AppFixture;
  let token: string;

  async function scim(method: string, path: string, body?: unknown, bearer: string | null = token): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
    const request = new Request(`${ISSUER}/scim/v2/${path}`, {
      method,
      headers: { ...(bearer ? { authorization: `Bearer ${bearer}` } : {}), ...(body !== undefined ? { 'content-type': 'application/scim+json' } : {}) },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const url = new URL(request.url);
    const response = await handleScimRequest(suite.database.db, request, { issuer: ISSUER, path: url.pathname.replace(/^\/scim\/v2\/?/, '').split('/').filter(Boolean), ip: '192.0.2.5' });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {}, headers: response.headers };
  }

  beforeAll(async () => {
    app = await createOrgWithApp(suite.database, 'Example Inc');
    await suite.database.db.insert(orgDomains).values({ orgId: app.orgId, domain: 'example.com', verificationToken: 'x', verifiedAt: new Date(), verifiedBy: 'dns' });
    token = await suite.database.db.transaction((tx) =>
      issueScimToken({ tx, orgId: app.orgId, audit: (record) => recordAuditEvent(tx, { ...record, orgId: app.orgId, actor: { type: 'operator_cli', label: 'test' } }) }),
    );
  });

  it('answers only its organization’s bearer token, with a SCIM error and a Bearer challenge otherwise', async () => {
    for (const bearer of [null, 'scim_' + 'A'.repeat(43), token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A')]) {
      const answer = await scim('GET', 'Users', undefined, bearer);
      expect(answer.status).toBe(401);
      expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(answer.body).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '401' });
    }
  });

  it('describes itself: ServiceProviderConfig, ResourceTypes, Schemas', async () => {
    const config = await scim('GET', 'ServiceProviderConfig');
    expect(config.body).toMatchObject({ patch: { supported: true }, filter: { supported: true }, bulk: { supported: false }, authenticationSchemes: [{ type: 'oauthbearertoken' }] });
    expect(((await scim('GET', 'ResourceTypes')).body.Resources as { id: string }[]).map((type) => type.id)).toEqual(['User', 'Group']);
    expect((await scim('GET', `Schemas/${USER}`)).body).toMatchObject({ id: USER });
    expect((await scim('GET', 'Bulk')).status).toBe(501);
    expect((await scim('GET', 'Nothing')).status).toBe(404);
  });

  it('creates a User as RFC 7644 §3.3 does; the person is a member; the same userName again is a conflict', async () => {
    // RFC 7644 §3.3's example, with the work address RFC 7643 §8.2 gives Barbara.
    const bjensen = { schemas: [USER], userName: 'bjensen', externalId: 'bjensen', name: { formatted: 'Ms. Barbara J Jensen III', familyName: 'Jensen', givenName: 'Barbara' }, emails: [{ value: 'bjensen@example.com', type: 'work', primary: true }] };
    const created = await scim('POST', 'Users', bjensen);
    expect(created.status).toBe(201);
    expect(created.headers.get('content-type')).toBe('application/scim+json');
    expect(created.body).toMatchObject({ userName: 'bjensen', externalId: 'bjensen', active: true, emails: [{ value: 'bjensen@example.com' }], meta: { resourceType: 'User' } });
    expect(created.headers.get('location')).toBe(`${ISSUER}/scim/v2/Users/${created.body.id as string}`);
    expect(await findMembershipRole(suite.database.db, app.orgId, created.body.id as string)).toBe('member');
    const [account] = await suite.database.db.select().from(users).where(eq(users.id, created.body.id as string));
    expect(account).toMatchObject({ email: 'bjensen@example.com', name: 'Ms. Barbara J Jensen III', passwordHash: null });
    expect(account!.emailVerifiedAt).not.toBeNull();

    expect(await scim('POST', 'Users', bjensen)).toMatchObject({ status: 409, body: { scimType: 'uniqueness' } });
    expect((await scim('GET', `Users/${created.body.id as string}`)).body).toMatchObject({ id: created.body.id, userName: 'bjensen' });
  });

  it('refuses what is not a User of this organization: no address, another domain, bad JSON, a bad filter', async () => {
    expect(await scim('POST', 'Users', { schemas: [USER], userName: 'noaddress' })).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
    expect(await scim('POST', 'Users', { schemas: [USER], userName: 'victim@gmail.test' })).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
    expect(await scim('POST', 'Users', '{"userName": ')).toMatchObject({ status: 400, body: { scimType: 'invalidSyntax' } });
    expect(await scim('GET', `Users?filter=${encodeURIComponent('name.familyName co "J"')}`)).toMatchObject({ status: 400, body: { scimType: 'invalidFilter' } });
    expect(await scim('GET', `Users?filter=${encodeURIComponent('userName eq "a\\x"')}`)).toMatchObject({ status: 400, body: { scimType: 'invalidFilter' } });
    // A value that decodes to NUL (PostgreSQL text cannot hold it) or to half a surrogate pair: the filter's error, not a 500.
    for (const value of ['a\\u0000b', '\\ud800', 'x\\udc00y']) {
      for (const attribute of ['userName', 'externalId', 'emails.value']) {
        expect(await scim('GET', `Users?filter=${encodeURIComponent(`${attribute} eq "${value}"`)}`), `${attribute} ${value}`).toMatchObject({ status: 400, body: { scimType: 'invalidFilter' } });
      }
      expect(await scim('GET', `Groups?filter=${encodeURIComponent(`displayName eq "${value}"`)}`)).toMatchObject({ status: 400, body: { scimType: 'invalidFilter' } });
    }
    expect((await scim('GET', `Users/${randomBytes(4).toString('hex')}`)).status).toBe(404);
  });

  it('filters by userName and pages as §3.4.2 says', async () => {
    for (let index = 1; index <= 5; index += 1) expect((await scim('POST', 'Users', { schemas: [USER], userName: `page${index}@example.com` })).status).toBe(201);
    const found = await scim('GET', `Users?filter=${encodeURIComponent('userName eq "PAGE3@example.com"')}`);
    expect(found.body).toMatchObject({ totalResults: 1, Resources: [{ userName: 'page3@example.com' }] });
    const none = await scim('GET', `Users?filter=${encodeURIComponent('userName eq "nobody@example.com"')}`);
    expect(none.body).toMatchObject({ totalResults: 0, Resources: [] });
    const all = await scim('GET', 'Users');
    const page = await scim('GET', 'Users?startIndex=3&count=2');
    expect(page.body).toMatchObject({ totalResults: all.body.totalResults, startIndex: 3, itemsPerPage: 2 });
    expect((page.body.Resources as { id: string }[]).map((user) => user.id)).toEqual((all.body.Resources as { id: string }[]).slice(2, 4).map((user) => user.id));
    expect((await scim('GET', 'Users?count=0')).body).toMatchObject({ itemsPerPage: 0, Resources: [] });
  });

  it('deactivates as Entra ID patches it: the membership ends like a removal, the refresh token stops working; reactivation brings the member back', async () => {
    const created = await scim('POST', 'Users', { schemas: [USER], userName: 'carol@example.com', name: { givenName: 'Carol', familyName: 'Q' } });
    const id = created.body.id as string;
    // The person signs in to the organization's app (a password set for the test) and holds a refresh token.
    await suite.database.db.update(users).set({ passwordHash: await hashPassword(TEST_PASSWORD) }).where(eq(users.id, id));
    const rp = await relyingParty(suite.harness, app);
    const attempt = await signIn(suite.harness, suite.database, rp, app, { email: 'carol@example.com' }, { scope: 'openid offline_access', prompt: 'consent' });
    const tokens = await oidc.authorizationCodeGrant(rp, attempt.callbackUrl!, attempt.checks);
    const refreshed = await oidc.refreshTokenGrant(rp, tokens.refresh_token!);

    const patched = await scim('PATCH', `Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'Replace', path: 'active', value: 'False' }] });
    expect(patched).toMatchObject({ status: 200, body: { active: false } });
    expect(await findMembershipRole(suite.database.db, app.orgId, id)).toBeUndefined();
    await expect(oidc.refreshTokenGrant(rp, refreshed.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    // Still listed, inactive: the directory may turn the person on again (Okta's PATCH without a path).
    expect((await scim('GET', `Users/${id}`)).body).toMatchObject({ active: false });
    const reactivated = await scim('PATCH', `Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'replace', value: { active: true } }] });
    expect(reactivated.body).toMatchObject({ active: true });
    expect(await findMembershipRole(suite.database.db, app.orgId, id)).toBe('member');
    const actions = (await suite.database.db.select({ action: auditEvents.action }).from(auditEvents).where(eq(auditEvents.subjectId, id))).map((event) => event.action);
    expect(actions).toEqual(expect.arrayContaining(['scim.user_created', 'member.added', 'scim.user_deactivated', 'member.removed', 'scim.user_reactivated']));
  });

  it('replaces (PUT) and deletes a User; the only owner cannot be deactivated', async () => {
    const created = await scim('POST', 'Users', { schemas: [USER], userName: 'dave@example.com' });
    const id = created.body.id as string;
    const replaced = await scim('PUT', `Users/${id}`, { schemas: [USER], userName: 'dave@example.com', externalId: 'ext-dave', name: { formatted: 'Dave Renamed' }, emails: [{ value: 'dave.r@example.com', primary: true }] });
    expect(replaced.body).toMatchObject({ userName: 'dave@example.com', externalId: 'ext-dave', displayName: 'Dave Renamed', emails: [{ value: 'dave.r@example.com' }] });
    expect((await scim('GET', `Users?filter=${encodeURIComponent('externalId eq "ext-dave"')}`)).body).toMatchObject({ totalResults: 1 });
    expect((await scim('DELETE', `Users/${id}`)).status).toBe(204);
    expect(await findMembershipRole(suite.database.db, app.orgId, id)).toBeUndefined();
    expect((await scim('GET', `Users/${id}`)).status).toBe(404);

    const ownerAnswer = await scim('POST', 'Users', { schemas: [USER], userName: 'owner@example.com' });
    await addMember(suite.database.db, { orgId: app.orgId, userId: ownerAnswer.body.id as string, role: 'owner' });
    expect(await scim('PATCH', `Users/${ownerAnswer.body.id as string}`, { schemas: [PATCH], Operations: [{ op: 'replace', path: 'active', value: false }] })).toMatchObject({ status: 409, body: { scimType: 'mutability' } });
    expect(await findMembershipRole(suite.database.db, app.orgId, ownerAnswer.body.id as string)).toBe('owner');
  });

  it('provisions Groups as teams: create with members, patch members in and out, rename, filter, delete', async () => {
    const alice = (await scim('POST', 'Users', { schemas: [USER], userName: 'alice@example.com' })).body.id as string;
    const bob = (await scim('POST', 'Users', { schemas: [USER], userName: 'bob@example.com' })).body.id as string;
    const group = await scim('POST', 'Groups', { schemas: [GROUP], displayName: 'Tour Guides', members: [{ value: alice }] });
    expect(group.status).toBe(201);
    const id = group.body.id as string;
    expect(group.body).toMatchObject({ displayName: 'Tour Guides', members: [{ value: alice, display: 'alice@example.com' }] });
    expect(await scim('POST', 'Groups', { schemas: [GROUP], displayName: 'tour guides' })).toMatchObject({ status: 409, body: { scimType: 'uniqueness' } });
    expect(await scim('POST', 'Groups', { schemas: [GROUP], displayName: 'Strangers', members: [{ value: '00000000-0000-4000-8000-000000000000' }] })).toMatchObject({ status: 400 });

    // RFC 7644 §3.5.2.1 and §3.5.2.2's examples: add a member, remove one by a value filter.
    await scim('PATCH', `Groups/${id}`, { schemas: [PATCH], Operations: [{ op: 'add', path: 'members', value: [{ display: 'Bob', value: bob }] }] });
    expect(((await scim('GET', `Groups/${id}`)).body.members as { value: string }[]).map((member) => member.value).sort()).toEqual([alice, bob].sort());
    await scim('PATCH', `Groups/${id}`, { schemas: [PATCH], Operations: [{ op: 'remove', path: `members[value eq "${alice}"]` }, { op: 'replace', path: 'displayName', value: 'Guides' }] });
    const after = await scim('GET', `Groups/${id}`);
    expect(after.body).toMatchObject({ displayName: 'Guides', members: [{ value: bob }] });
    const [team] = await suite.database.db.select().from(teams).where(eq(teams.id, id));
    expect(team).toMatchObject({ name: 'Guides', orgId: app.orgId });
    expect((await suite.database.db.select().from(teamMembers).where(eq(teamMembers.teamId, id))).map((member) => member.userId)).toEqual([bob]);
    expect((await scim('GET', `Groups?filter=${encodeURIComponent('displayName eq "guides"')}&excludedAttributes=members`)).body).toMatchObject({ totalResults: 1, Resources: [{ id, displayName: 'Guides' }] });
    expect((await scim('DELETE', `Groups/${id}`)).status).toBe(204);
    expect(await suite.database.db.select().from(teams).where(eq(teams.id, id))).toEqual([]);
  });

  it('two creations of one userName at once make one User', async () => {
    const both = await Promise.all([0, 1].map(() => scim('POST', 'Users', { schemas: [USER], userName: 'race@example.com' })));
    expect(both.map((answer) => answer.status).sort()).toEqual([201, 409]);
  });
});
