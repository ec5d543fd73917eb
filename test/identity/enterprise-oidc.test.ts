// Enterprise OpenID Connect connections against a company IdP that is a bare oidc-provider started here (none of
// Portico's code): discovery, the code flow with PKCE and nonce, the ID token verified; the first sign-in makes the
// account and the membership, later ones find it by `iss` + `sub` (not by the address); an existing account links
// only after its password; addresses outside the verified domains, a forged issuer, another browser's state, a
// replayed callback and a disabled connection are refused. Each connection has its own redirect URI: a response
// that comes back at one connection's callback with another connection's state (the mix-up attack, with a second,
// attacker-run IdP) is refused before any code is redeemed; RFC 9207's `iss` is required where the IdP promises it;
// connections made before their own callback keep the shared one for a while, for responses whose `iss` is theirs.
import { randomBytes, randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createOrganization, type Organization } from '../../lib/organizations/organizations';
import { runOrgOperation } from '../../lib/organizations/org-operation';
import { Refusal as CommandRefusal } from '../../lib/refusals/refusal';
import { addMember, findMembershipRole } from '../../lib/organizations/memberships';
import { hashPassword } from '../../lib/accounts/factors/password';
import { createTeam } from '../../lib/organizations/teams';
import { createUser, findUserByEmail, type User } from '../../lib/accounts/users';
import { accountLinks, auditEvents, externalIdentities, identityConnections, orgDomains, organizations, outboundDeliveries, scimUsers, teamMembers, totpFactors, users } from '../../lib/db/schema';
import { signInToConsole } from '../../lib/accounts/console-sign-in';
import { requestPasswordReset } from '../../lib/accounts/password-reset';
import { connectionForEmail, createOidcConnection, probeOidcIssuer, setConnectionEnabled, setConnectionRequireSso, updateConnection, type IdentityConnection } from '../../lib/identity/connections';
import { connectionTestResultOf, completeFederatedLink, linkAfterProof, type FederationContinuation, type FederationDeps, type FederationOutcome } from '../../lib/identity/federation/core';
import { beginFederatedSignIn } from '../../lib/identity/federation/begin';
import { completeOidcCallback, connectionCallbackUrl, legacyCallbackUrl } from '../../lib/identity/federation/oidc';
import { verifyPassword } from '../../lib/accounts/factors/password';
import { issueAccountLink } from '../../lib/accounts/account-links';
import { setPasswordWithLink } from '../../lib/accounts/self-service';
import { endLinkedIdentity, linkedIdentitiesOf, linkedIdentitiesThroughOrg } from '../../lib/identity/links';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { signInAtCompany, startCompanyIdp, type CompanyIdp } from '../support/company-idp';

const PORTICO = 'https://portico.test';

describe('enterprise OpenID Connect connections', () => {
  let database: TestDatabase;
  let idp: CompanyIdp;
  let deps: FederationDeps;
  let org: Organization;
  let owner: User;
  let connection: IdentityConnection;
  let engineering: string;

  const console = (): FederationContinuation => ({ surface: 'sign_in', mfaRequested: false, signIn: { surface: 'console', events: { surface: 'console', ip: '192.0.2.7' } } });
  const asOwner = <T>(work: Parameters<typeof runOrgOperation<T>>[3]) => runOrgOperation(database.db, { org, role: 'owner', actor: { person: owner, ip: '192.0.2.1', door: 'console' } }, { audit: 'exactly_one' }, work);

  /** A whole sign-in: Portico's redirect, the company IdP, the callback (with this browser's cookie unless told). */
  async function signIn(options: { continuation?: FederationContinuation; cookie?: (token: string) => string | undefined } = {}): Promise<{ outcome: FederationOutcome; callback: URL; token: string }> {
    const started = await beginFederatedSignIn(database.db, deps, connection, options.continuation ?? console());
    const callback = await signInAtCompany(started.location, connectionCallbackUrl(PORTICO, connection.id));
    const cookieToken = options.cookie ? options.cookie(started.token) : started.token;
    const outcome = await completeOidcCallback(database.db, deps, { cookieToken, url: callback, ip: '192.0.2.7', connectionId: connection.id });
    return { outcome, callback, token: started.token };
  }

  beforeAll(async () => {
    database = await openTestDatabase();
    // The connection's id is chosen first, so that its own redirect URI is registered at the IdP (as the console does).
    const connectionId = randomUUID();
    idp = await startCompanyIdp({ redirectUris: [connectionCallbackUrl(PORTICO, connectionId), legacyCallbackUrl(PORTICO)], tlsDir: inject('tlsDir') });
    deps = { outbound: { allowLoopback: true }, atRestKey: randomBytes(32), issuer: PORTICO };
    org = await createOrganization(database.db, { slug: `company-${randomBytes(3).toString('hex')}`, name: 'Company' });
    owner = await createUser(database.db, { email: `owner-${randomBytes(3).toString('hex')}@elsewhere.test`, name: 'Owner', passwordHash: null });
    await addMember(database.db, { orgId: org.id, userId: owner.id, role: 'owner' });
    // The domain's proof is tested in domains.test.ts: here it is verified as that test leaves it.
    const [domain] = await database.db.insert(orgDomains).values({ orgId: org.id, domain: 'company.test', verificationToken: 'x', verifiedAt: new Date(), verifiedBy: 'dns' }).returning();
    await database.db.insert(orgDomains).values({ orgId: org.id, domain: 'unproved.test', verificationToken: 'y' });
    engineering = (await createTeam(database.db, { orgId: org.id, name: 'Engineering' })).id;
    const probe = await probeOidcIssuer(deps.outbound, idp.issuer);
    connection = await asOwner(({ tx, audit }) =>
      createOidcConnection(
        { tx, audit, orgId: org.id },
        deps,
        { id: connectionId, name: 'Company SSO', issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, defaultRole: 'member', emailClaim: 'email', nameClaim: 'name', groupsClaim: 'groups', domainIds: [domain!.id] },
        probe,
      ),
    );
    connection = await asOwner(({ tx, audit }) =>
      updateConnection({ tx, audit, orgId: org.id }, deps, connection.id, { name: 'Company SSO', defaultRole: 'member', emailClaim: 'email', nameClaim: 'name', groupsClaim: 'groups', domainIds: [domain!.id], groupTeams: { 'eng-all': 'Engineering', ...(JSON.parse('{"__proto__": "Engineering"}') as Record<string, string>) } }),
    );
  });

  it('starts off: nobody is sent to it, nobody signs in through it, but its owner can test it; then it is turned on', async () => {
    expect(connection.enabled).toBe(false);
    expect(await connectionForEmail(database.db, 'someone@company.test', {})).toBeUndefined();
    idp.person = { sub: 'emp-off', email: 'off@company.test', email_verified: true };
    expect((await signIn()).outcome).toMatchObject({ kind: 'refused', reason: 'connection_disabled' });
    const test = await signIn({ continuation: { surface: 'test', orgId: org.id, orgSlug: org.slug, userId: owner.id } });
    expect(test.outcome).toMatchObject({ kind: 'test', connectionId: connection.id });
    expect(await connectionTestResultOf(database.db, test.token, { userId: owner.id, orgId: org.id })).toMatchObject({ account: 'new', emailAtConnectionDomain: true, assertion: { email: 'off@company.test' } });
    // Another owner's browser, or another organization, sees nothing of it.
    expect(await connectionTestResultOf(database.db, test.token, { userId: randomUUID(), orgId: org.id })).toBeUndefined();
    expect(await findUserByEmail(database.db, 'off@company.test')).toBeUndefined();
    connection = await asOwner(({ tx, audit }) => setConnectionEnabled({ tx, audit, orgId: org.id }, connection.id, true));
    expect((await connectionForEmail(database.db, 'Someone@COMPANY.test', {}))?.id).toBe(connection.id);
    expect(await connectionForEmail(database.db, 'someone@company.test', { orgId: randomUUID() })).toBeUndefined();
    expect(await connectionForEmail(database.db, 'someone@unproved.test', {})).toBeUndefined();
  });
  afterAll(async () => {
    await idp?.close();
    await database?.close();
  });

  it('keeps the client secret sealed, and refuses an issuer that is not an OpenID provider or a domain that is not verified', async () => {
    const [row] = await database.db.select().from(identityConnections).where(eq(identityConnections.id, connection.id));
    expect(row!.oidcClientSecretSealed).not.toContain(idp.clientSecret);
    expect(row!.oidcClientSecretSealed!.split('.')).toHaveLength(5);
    await expect(probeOidcIssuer(deps.outbound, 'http://company.test')).rejects.toMatchObject({ code: 'invalid_issuer' });
    await expect(probeOidcIssuer(deps.outbound, `${idp.issuer}/not-an-issuer`)).rejects.toMatchObject({ code: 'invalid_issuer' });
    const [unproved] = await database.db.select().from(orgDomains).where(eq(orgDomains.domain, 'unproved.test'));
    const refused = await asOwner(({ tx, audit }) =>
      updateConnection({ tx, audit, orgId: org.id }, deps, connection.id, { name: 'Company SSO', defaultRole: 'member', emailClaim: 'email', nameClaim: 'name', groupsClaim: 'groups', domainIds: [unproved!.id], groupTeams: {} }),
    ).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(CommandRefusal);
    expect((refused as CommandRefusal).code).toBe('domains');
    // Names are one per organization, whatever their case.
    const probe = await probeOidcIssuer(deps.outbound, idp.issuer);
    const again = await asOwner(({ tx, audit }) =>
      createOidcConnection({ tx, audit, orgId: org.id }, deps, { name: 'company sso', issuer: idp.issuer, clientId: 'x', clientSecret: 'y', defaultRole: 'member', emailClaim: 'email', nameClaim: 'name', groupsClaim: 'groups', domainIds: [] }, probe),
    ).catch((error: unknown) => error);
    expect(again).toMatchObject({ status: 409, code: 'name' });
  });

  it('makes the account and the membership at the first sign-in, with the address verified, fed in amr and the mapped team', async () => {
    idp.person = { sub: 'emp-100', email: 'Grace@Company.test', email_verified: true, name: 'Grace Hopper', groups: ['eng-all', 'unmapped'], amr: ['pwd'] };
    const { outcome } = await signIn();
    expect(outcome.kind).toBe('signed_in');
    if (outcome.kind !== 'signed_in') return;
    expect(outcome.user.email).toBe('grace@company.test');
    expect(outcome.user.name).toBe('Grace Hopper');
    expect(outcome.user.emailVerifiedAt).not.toBeNull();
    expect(outcome.user.passwordHash).toBeNull();
    expect(outcome.amr).toEqual(['fed', 'pwd']);
    expect(await findMembershipRole(database.db, org.id, outcome.user.id)).toBe('member');
    const linked = await database.db.select().from(externalIdentities).where(eq(externalIdentities.userId, outcome.user.id));
    expect(linked).toMatchObject([{ issuer: idp.issuer, subject: 'emp-100', connectionId: connection.id }]);
    expect(await database.db.select().from(teamMembers).where(and(eq(teamMembers.userId, outcome.user.id), eq(teamMembers.teamId, engineering)))).toHaveLength(1);
    const actions = (await database.db.select().from(auditEvents).where(eq(auditEvents.subjectId, outcome.user.id))).map((event) => event.action);
    expect(actions).toEqual(expect.arrayContaining(['identity.account_created', 'member.added']));

    // The group left at the IdP: the mapped team is left too (a group named like an Object property maps to nothing).
    idp.person = { ...idp.person, groups: ['constructor', 'toString'] };
    const again = await signIn();
    expect(again.outcome).toMatchObject({ kind: 'signed_in', user: { id: outcome.user.id } });
    expect(await database.db.select().from(teamMembers).where(and(eq(teamMembers.userId, outcome.user.id), eq(teamMembers.teamId, engineering)))).toHaveLength(0);
  });

  it('finds the person by iss + sub, not by the address the IdP sends', async () => {
    idp.person = { sub: 'emp-200', email: 'linus@company.test', email_verified: true, name: 'Linus' };
    const first = await signIn();
    expect(first.outcome.kind).toBe('signed_in');
    // The same person, renamed at the company: the same account.
    idp.person = { sub: 'emp-200', email: 'linus.t@company.test', email_verified: true, name: 'Linus T' };
    const renamed = await signIn();
    expect(renamed.outcome).toMatchObject({ kind: 'signed_in', user: { id: (first.outcome as { user: User }).user.id } });
    // Another subject with the first address is not that account: it must prove it owns it.
    idp.person = { sub: 'emp-201', email: 'linus@company.test', email_verified: true };
    expect((await signIn()).outcome.kind).toBe('link');
  });

  it('links an existing account only after its password, five tries at most', async () => {
    const existing = await createUser(database.db, { email: 'margaret@company.test', name: 'Margaret', passwordHash: await hashPassword('her own long password 1') });
    idp.person = { sub: 'emp-300', email: 'margaret@company.test', email_verified: true };
    const started = await signIn();
    expect(started.outcome.kind).toBe('link');
    expect(await database.db.select().from(externalIdentities).where(eq(externalIdentities.userId, existing.id))).toHaveLength(0);
    const wrong = await linkAfterProof(database.db, { cookieToken: started.token, ip: '192.0.2.7', check: async () => false });
    expect(wrong).toEqual({ kind: 'wrong', attemptsLeft: 4 });
    // Another browser (no cookie) cannot link it.
    expect(await linkAfterProof(database.db, { cookieToken: 'x'.repeat(43), ip: '192.0.2.7', check: async () => true })).toMatchObject({ kind: 'refused', reason: 'expired' });
    const right = await linkAfterProof(database.db, { cookieToken: started.token, ip: '192.0.2.7', check: async (user) => verifyPassword(user.passwordHash!, 'her own long password 1') });
    expect(right).toMatchObject({ kind: 'signed_in', user: { id: existing.id } });
    // Linked once, used once: the same proof cannot link again.
    expect(await linkAfterProof(database.db, { cookieToken: started.token, ip: '192.0.2.7', check: async () => true })).toMatchObject({ kind: 'refused' });
    expect((await signIn()).outcome).toMatchObject({ kind: 'signed_in', user: { id: existing.id } });

    // Five wrong passwords end the sign-in.
    const other = await createUser(database.db, { email: 'barbara@company.test', name: 'Barbara', passwordHash: await hashPassword('another long password 2') });
    idp.person = { sub: 'emp-301', email: other.email, email_verified: true };
    const guessed = await signIn();
    const tries = await Promise.all(Array.from({ length: 8 }, () => linkAfterProof(database.db, { cookieToken: guessed.token, ip: '192.0.2.7', check: async () => false })));
    expect(tries.filter((attempt) => attempt.kind === 'wrong')).toHaveLength(5);
    expect(await linkAfterProof(database.db, { cookieToken: guessed.token, ip: '192.0.2.7', check: async () => true })).toMatchObject({ kind: 'refused', reason: 'expired' });
  });

  it('links an account with a second factor only after that factor too; a password reset by mail ends the links a password made', async () => {
    const guarded = await createUser(database.db, { email: 'hedy@company.test', name: 'Hedy', passwordHash: await hashPassword('hedy own long password 3') });
    await database.db.insert(totpFactors).values({ userId: guarded.id, secretEncrypted: 'x', confirmedAt: new Date() });
    idp.person = { sub: 'emp-310', email: guarded.email, email_verified: true, groups: ['eng-all'] };
    const started = await signIn();
    expect(started.outcome.kind).toBe('link');
    const proved = await linkAfterProof(database.db, { cookieToken: started.token, ip: '192.0.2.7', check: async (user) => verifyPassword(user.passwordHash!, 'hedy own long password 3') });
    // The password alone: the second step is asked, and nothing is linked or joined yet.
    expect(proved).toMatchObject({ kind: 'second_factor', continuation: { federatedLink: { connectionId: connection.id, subject: 'emp-310' } } });
    expect(await database.db.select().from(externalIdentities).where(eq(externalIdentities.userId, guarded.id))).toHaveLength(0);
    expect(await findMembershipRole(database.db, org.id, guarded.id)).toBeUndefined();
    // The second factor done (what continueSignIn runs then): linked as made by the password, a member, in the team.
    if (proved.kind !== 'second_factor') throw new Error('no second step');
    expect(await completeFederatedLink(database.db, guarded, proved.continuation, '192.0.2.7')).toBe('linked');
    expect(await database.db.select({ linkedBy: externalIdentities.linkedBy }).from(externalIdentities).where(eq(externalIdentities.userId, guarded.id))).toEqual([{ linkedBy: 'password' }]);
    expect(await findMembershipRole(database.db, org.id, guarded.id)).toBe('member');
    expect(await database.db.select().from(teamMembers).where(and(eq(teamMembers.userId, guarded.id), eq(teamMembers.teamId, engineering)))).toHaveLength(1);

    // The account's owner resets the password by mail: the link the password made ends (with its audit event); a link
    // the first sign-in made stays.
    const mail = { issuer: PORTICO, atRestKey: deps.atRestKey };
    const { token } = await issueAccountLink(database.db, { purpose: 'reset', user: guarded });
    expect(await setPasswordWithLink(database.db, mail, { token, password: 'hedy new long password 4', ip: '192.0.2.8' })).toMatchObject({ ok: true });
    expect(await database.db.select().from(externalIdentities).where(eq(externalIdentities.userId, guarded.id))).toHaveLength(0);
    const ended = await database.db.select().from(auditEvents).where(and(eq(auditEvents.orgId, org.id), eq(auditEvents.action, 'identity.link_removed'), eq(auditEvents.subjectId, guarded.id)));
    expect(ended.map((event) => event.details)).toEqual([{ connection: 'Company SSO', connectionId: connection.id, linkedBy: 'password', by: 'password_reset' }]);
    idp.person = { sub: 'emp-311', email: 'madeby-sign-in@company.test', email_verified: true };
    const made = await signIn();
    expect(made.outcome.kind).toBe('signed_in');
    const madeUser = (made.outcome as { user: User }).user;
    const { token: resetToken } = await issueAccountLink(database.db, { purpose: 'reset', user: madeUser });
    expect(await setPasswordWithLink(database.db, mail, { token: resetToken, password: 'a first long password 5', ip: '192.0.2.8' })).toMatchObject({ ok: true });
    expect(await database.db.select({ linkedBy: externalIdentities.linkedBy }).from(externalIdentities).where(eq(externalIdentities.userId, madeUser.id))).toEqual([{ linkedBy: 'sign_in' }]);
  });

  it('a link is listed for its person and for the owners of its connection’s organization, and only they end it', async () => {
    idp.person = { sub: 'emp-320', email: 'listed@company.test', email_verified: true };
    const made = await signIn();
    const person = (made.outcome as { user: User }).user;
    const [link] = await linkedIdentitiesOf(database.db, person.id);
    expect(link).toMatchObject({ connectionId: connection.id, orgId: org.id, subject: 'emp-320', linkedBy: 'sign_in', email: 'listed@company.test' });
    expect((await linkedIdentitiesThroughOrg(database.db, org.id)).map((listed) => listed.id)).toContain(link!.id);
    const someoneElse = await createUser(database.db, { email: `else-${randomBytes(2).toString('hex')}@company.test`, name: 'Else', passwordHash: null });
    const otherOrg = await createOrganization(database.db, { slug: `other-${randomBytes(3).toString('hex')}`, name: 'Other' });
    const by = { actor: { id: someoneElse.id, label: someoneElse.email, ip: '192.0.2.9' } };
    // Another person, or the owners of another organization, end nothing.
    expect(await database.db.transaction((tx) => endLinkedIdentity(tx, { userId: someoneElse.id }, link!.id, by))).toBeUndefined();
    expect(await database.db.transaction((tx) => endLinkedIdentity(tx, { orgId: otherOrg.id }, link!.id, by))).toBeUndefined();
    expect(await linkedIdentitiesOf(database.db, person.id)).toHaveLength(1);
    // The person ends it; audited in the connection's organization; the next sign-in must prove the account again.
    expect(await database.db.transaction((tx) => endLinkedIdentity(tx, { userId: person.id }, link!.id, { actor: { id: person.id, label: person.email, ip: '192.0.2.9' } }))).toMatchObject({ id: link!.id });
    expect(await linkedIdentitiesOf(database.db, person.id)).toHaveLength(0);
    const removed = await database.db.select().from(auditEvents).where(and(eq(auditEvents.orgId, org.id), eq(auditEvents.action, 'identity.link_removed'), eq(auditEvents.subjectId, person.id)));
    expect(removed.map((event) => event.details)).toEqual([{ connection: 'Company SSO', connectionId: connection.id, linkedBy: 'sign_in', by: 'person' }]);
  });

  it('a connection that requires single sign-on refuses the password form and reset at its domains, the owners excepted', async () => {
    const member = await createUser(database.db, { email: 'pat@company.test', name: 'Pat', passwordHash: await hashPassword('pat own long password 6') });
    const boss = await createUser(database.db, { email: 'boss@company.test', name: 'Boss', passwordHash: await hashPassword('boss own long password 7') });
    await addMember(database.db, { orgId: org.id, userId: member.id, role: 'member' });
    await addMember(database.db, { orgId: org.id, userId: boss.id, role: 'owner' });
    const signInAs = (email: string, password: string) => signInToConsole(database.db, { email, password, ip: '192.0.2.50' });
    expect((await signInAs(member.email, 'pat own long password 6')).kind).toBe('signed_in');
    await asOwner(({ tx, audit }) => setConnectionRequireSso({ tx, audit, orgId: org.id }, connection.id, true));
    try {
      expect(await signInAs(member.email, 'pat own long password 6')).toEqual({ kind: 'refused', error: 'sso_required' });
      // Asked only after a right password: a wrong one is refused as any wrong one is.
      expect(await signInAs(member.email, 'not the password at all')).toEqual({ kind: 'refused', error: 'invalid_credentials' });
      // An owner keeps a password as the way back in.
      expect((await signInAs(boss.email, 'boss own long password 7')).kind).toBe('signed_in');
      // A reset mails where to sign in, and no link to choose a password.
      const mail = { issuer: PORTICO, atRestKey: deps.atRestKey };
      expect(await requestPasswordReset(database.db, mail, { email: member.email, ip: '192.0.2.51' })).toEqual({ status: 'accepted' });
      expect(await database.db.select().from(accountLinks).where(and(eq(accountLinks.userId, member.id), eq(accountLinks.purpose, 'reset')))).toHaveLength(0);
      expect(await database.db.select().from(outboundDeliveries).where(and(eq(outboundDeliveries.channel, 'mail'), eq(outboundDeliveries.recipient, member.email)))).toHaveLength(1);
      const changes = await database.db.select().from(auditEvents).where(and(eq(auditEvents.orgId, org.id), eq(auditEvents.action, 'identity.connection_updated'), eq(auditEvents.subjectId, connection.id)));
      expect(changes.map((event) => event.details)).toContainEqual(expect.objectContaining({ requireSso: true }));
    } finally {
      await asOwner(({ tx, audit }) => setConnectionRequireSso({ tx, audit, orgId: org.id }, connection.id, false));
    }
    expect((await signInAs(member.email, 'pat own long password 6')).kind).toBe('signed_in');
  });

  it('makes and links no account for an address the IdP does not vouch for (email_verified false)', async () => {
    idp.person = { sub: 'emp-unverified', email: 'unverified@company.test', email_verified: false };
    expect((await signIn()).outcome).toMatchObject({ kind: 'refused', reason: 'email_unverified' });
    expect(await findUserByEmail(database.db, 'unverified@company.test')).toBeUndefined();
    // A provisioned, unused account at that address is not taken either (nOAuth): only its own password would link it.
    const provisioned = await createUser(database.db, { email: 'colleague@company.test', name: 'Colleague', passwordHash: null, emailVerified: true });
    await database.db.insert(scimUsers).values({ orgId: org.id, userId: provisioned.id, userName: provisioned.email, createdByProvisioning: true });
    idp.person = { sub: 'emp-impostor', email: 'colleague@company.test', email_verified: false };
    expect((await signIn()).outcome).toMatchObject({ kind: 'refused', reason: 'email_unverified' });
    expect(await database.db.select().from(externalIdentities).where(eq(externalIdentities.userId, provisioned.id))).toHaveLength(0);
    // Vouched for, the provisioned account links at once.
    idp.person = { sub: 'emp-colleague', email: 'colleague@company.test', email_verified: true };
    expect((await signIn()).outcome).toMatchObject({ kind: 'signed_in', user: { id: provisioned.id } });
  });

  it('refuses an address outside the verified domains, and a missing one', async () => {
    idp.person = { sub: 'emp-400', email: 'mallory@unproved.test', email_verified: true };
    expect((await signIn()).outcome).toMatchObject({ kind: 'refused', reason: 'email_outside_domains' });
    idp.person = { sub: 'emp-401', email: `victim-${randomBytes(2).toString('hex')}@gmail.test`, email_verified: true };
    expect((await signIn()).outcome).toMatchObject({ kind: 'refused', reason: 'email_outside_domains' });
    expect(await findUserByEmail(database.db, idp.person.email!)).toBeUndefined();
    idp.person = { sub: 'emp-402' };
    expect((await signIn()).outcome).toMatchObject({ kind: 'refused', reason: 'email_missing' });
  });

  it('refuses an ID token whose issuer is forged, though signed with the IdP key', async () => {
    idp.person = { sub: 'emp-500', email: 'forged@company.test', email_verified: true };
    idp.forgeIssuer = true;
    try {
      expect((await signIn()).outcome).toMatchObject({ kind: 'refused', reason: 'invalid_response' });
    } finally {
      idp.forgeIssuer = false;
    }
    expect(await findUserByEmail(database.db, 'forged@company.test')).toBeUndefined();
    // The organization's audit log says a sign-in through its connection was refused, and why.
    const refusals = await database.db.select().from(auditEvents).where(and(eq(auditEvents.orgId, org.id), eq(auditEvents.action, 'identity.sign_in_refused')));
    expect(refusals.map((event) => event.details)).toContainEqual({ reason: 'invalid_response' });
  });

  it("refuses another browser's state, a replayed callback, and two callbacks at once let one through", async () => {
    idp.person = { sub: 'emp-600', email: 'state@company.test', email_verified: true };
    expect((await signIn({ cookie: () => 'A'.repeat(43) })).outcome).toMatchObject({ kind: 'refused', reason: 'state_mismatch' });
    expect((await signIn({ cookie: () => undefined })).outcome).toMatchObject({ kind: 'refused', reason: 'expired' });
    // The state only names the sign-in: a browser holding the callback URL, and so the state, proves nothing with it.
    const named = await beginFederatedSignIn(database.db, deps, connection, console());
    const namedCallback = await signInAtCompany(named.location, connectionCallbackUrl(PORTICO, connection.id));
    expect(namedCallback.searchParams.get('state')).not.toBe(named.token);
    expect(await completeOidcCallback(database.db, deps, { cookieToken: namedCallback.searchParams.get('state')!, url: namedCallback, ip: '192.0.2.7', connectionId: connection.id })).toMatchObject({ kind: 'refused', reason: 'state_mismatch' });
    const done = await signIn();
    expect(done.outcome.kind).toBe('signed_in');
    expect(await completeOidcCallback(database.db, deps, { cookieToken: done.token, url: done.callback, ip: '192.0.2.7', connectionId: connection.id })).toMatchObject({ kind: 'refused', reason: 'expired' });

    const started = await beginFederatedSignIn(database.db, deps, connection, console());
    const callback = await signInAtCompany(started.location, connectionCallbackUrl(PORTICO, connection.id));
    const both = await Promise.all([0, 1].map(() => completeOidcCallback(database.db, deps, { cookieToken: started.token, url: callback, ip: '192.0.2.7', connectionId: connection.id })));
    expect(both.map((outcome) => outcome.kind).sort()).toEqual(['refused', 'signed_in']);
  });

  it('two first sign-ins of one new person at once make one account', async () => {
    idp.person = { sub: 'emp-700', email: 'twice@company.test', email_verified: true };
    const both = await Promise.all([signIn(), signIn()]);
    expect(both.map(({ outcome }) => outcome.kind)).toEqual(['signed_in', 'signed_in']);
    expect(await database.db.select().from(users).where(eq(users.email, 'twice@company.test'))).toHaveLength(1);
  });

  it('asks Portico’s second factor when the policy requires one and the IdP did not assert it; not when it did', async () => {
    await database.db.update(organizations).set({ secondFactorPolicy: 'everyone' }).where(eq(organizations.id, org.id));
    try {
      idp.person = { sub: 'emp-800', email: 'policy@company.test', email_verified: true, amr: ['pwd'] };
      const app = (): FederationContinuation => ({ surface: 'sign_in', mfaRequested: false, signIn: { surface: 'console', events: { surface: 'console', ip: '192.0.2.7', orgId: org.id } } });
      const single = await signIn({ continuation: app() });
      expect(single.outcome.kind).toBe('enroll');
      if (single.outcome.kind === 'enroll') expect(single.outcome.continuation.firstFactor).toEqual(['fed', 'pwd']);
      idp.person = { ...idp.person, amr: ['pwd', 'otp', 'mfa'] };
      const vouched = await signIn({ continuation: app() });
      expect(vouched.outcome).toMatchObject({ kind: 'signed_in', amr: ['fed', 'pwd', 'otp', 'mfa'], acr: 'urn:portico:acr:mfa' });
      // An account with a second factor of its own uses it, whatever the IdP asserted.
      await database.db.insert(totpFactors).values({ userId: (vouched.outcome as { user: User }).user.id, secretEncrypted: 'x', confirmedAt: new Date() });
      expect((await signIn({ continuation: app() })).outcome).toMatchObject({ kind: 'second_factor', continuation: { firstFactor: ['fed', 'pwd', 'otp', 'mfa'] } });
    } finally {
      await database.db.update(organizations).set({ secondFactorPolicy: 'none' }).where(eq(organizations.id, org.id));
    }
  });

  it('signs nobody in through a disabled connection', async () => {
    idp.person = { sub: 'emp-100', email: 'grace@company.test', email_verified: true };
    const started = await beginFederatedSignIn(database.db, deps, connection, console());
    await asOwner(({ tx, audit }) => setConnectionEnabled({ tx, audit, orgId: org.id }, connection.id, false));
    try {
      const callback = await signInAtCompany(started.location, connectionCallbackUrl(PORTICO, connection.id));
      expect(await completeOidcCallback(database.db, deps, { cookieToken: started.token, url: callback, ip: '192.0.2.7', connectionId: connection.id })).toMatchObject({ kind: 'refused', reason: 'connection_disabled' });
    } finally {
      await asOwner(({ tx, audit }) => setConnectionEnabled({ tx, audit, orgId: org.id }, connection.id, true));
    }
  });
  describe('one redirect URI per connection (RFC 9700 §4.4.2) and the response issuer (RFC 9207)', () => {
    let companyWithoutIss: CompanyIdp;
    let attackerIdp: CompanyIdp;
    let company: IdentityConnection;
    let attacker: IdentityConnection;
    const tryOut = (): FederationContinuation => ({ surface: 'test', orgId: org.id, orgSlug: org.slug, userId: owner.id });

    beforeAll(async () => {
      const companyId = randomUUID();
      const attackerId = randomUUID();
      // The victim's company runs an IdP that sends no `iss`; another organization's owner runs an IdP of their own.
      companyWithoutIss = await startCompanyIdp({ redirectUris: [connectionCallbackUrl(PORTICO, companyId)], tlsDir: inject('tlsDir'), sendIss: false, clientId: 'portico-at-acme' });
      attackerIdp = await startCompanyIdp({ redirectUris: [connectionCallbackUrl(PORTICO, attackerId)], tlsDir: inject('tlsDir'), clientId: 'portico-at-mallory' });
      const attackerOrg = await createOrganization(database.db, { slug: `mallory-${randomBytes(3).toString('hex')}`, name: 'Mallory' });
      await addMember(database.db, { orgId: attackerOrg.id, userId: owner.id, role: 'owner' });
      const fields = { defaultRole: 'member' as const, emailClaim: 'email', nameClaim: 'name', groupsClaim: 'groups', domainIds: [] };
      company = await asOwner(async ({ tx, audit }) =>
        createOidcConnection({ tx, audit, orgId: org.id }, deps, { ...fields, id: companyId, name: 'Acme without iss', issuer: companyWithoutIss.issuer, clientId: companyWithoutIss.clientId, clientSecret: companyWithoutIss.clientSecret }, await probeOidcIssuer(deps.outbound, companyWithoutIss.issuer)),
      );
      attacker = await runOrgOperation(database.db, { org: attackerOrg, role: 'owner', actor: { person: owner, ip: '192.0.2.66', door: 'console' } }, { audit: 'exactly_one' }, async ({ tx, audit }) =>
        createOidcConnection({ tx, audit, orgId: attackerOrg.id }, deps, { ...fields, id: attackerId, name: 'Mallory SSO', issuer: attackerIdp.issuer, clientId: attackerIdp.clientId, clientSecret: attackerIdp.clientSecret }, await probeOidcIssuer(deps.outbound, attackerIdp.issuer)),
      );
    });
    afterAll(async () => {
      await companyWithoutIss?.close();
      await attackerIdp?.close();
    });

    it('an IdP without iss signs in at its connection’s own callback', async () => {
      const started = await beginFederatedSignIn(database.db, deps, company, tryOut());
      expect(new URL(started.location).searchParams.get('redirect_uri')).toBe(connectionCallbackUrl(PORTICO, company.id));
      const callback = await signInAtCompany(started.location, connectionCallbackUrl(PORTICO, company.id));
      expect(callback.searchParams.has('iss')).toBe(false);
      expect(await completeOidcCallback(database.db, deps, { cookieToken: started.token, url: callback, ip: '192.0.2.7', connectionId: company.id })).toMatchObject({ kind: 'test' });
    });

    it('a code that comes back with another connection’s state is refused before it reaches any token endpoint (mix-up)', async () => {
      // The attacker starts a sign-in through the victim's company connection (its nonce and PKCE challenge)...
      const attackers = await beginFederatedSignIn(database.db, deps, company, tryOut());
      // ...the victim, led to type an address at the attacker's domain, starts one through the attacker's connection,
      const victims = await beginFederatedSignIn(database.db, deps, attacker, console());
      // and the attacker's IdP bounces the victim to the company IdP with the attacker's request and the victim's state.
      const bounced = new URL(attackers.location);
      bounced.searchParams.set('state', new URL(victims.location).searchParams.get('state')!);
      const callback = await signInAtCompany(bounced.href, connectionCallbackUrl(PORTICO, company.id));
      const redeemedByAttacker = attackerIdp.tokenRequests;
      const redeemedByCompany = companyWithoutIss.tokenRequests;
      expect(await completeOidcCallback(database.db, deps, { cookieToken: victims.token, url: callback, ip: '192.0.2.7', connectionId: company.id })).toMatchObject({ kind: 'refused', reason: 'state_mismatch' });
      // Nor at the shared callback of old, which takes only responses whose `iss` names a connection still on it.
      expect(await completeOidcCallback(database.db, deps, { cookieToken: victims.token, url: callback, ip: '192.0.2.7', connectionId: undefined })).toMatchObject({ kind: 'refused', reason: 'state_mismatch' });
      // At the attacker's connection's callback, its own state: its browser's cookie is the victim's, not the attacker's.
      expect(await completeOidcCallback(database.db, deps, { cookieToken: attackers.token, url: callback, ip: '192.0.2.7', connectionId: attacker.id })).toMatchObject({ kind: 'refused', reason: 'state_mismatch' });
      expect([attackerIdp.tokenRequests, companyWithoutIss.tokenRequests]).toEqual([redeemedByAttacker, redeemedByCompany]);
    });

    it('requires the response’s iss where the IdP’s metadata promises it: missing or another one is refused', async () => {
      for (const tamper of [(url: URL) => url.searchParams.delete('iss'), (url: URL) => url.searchParams.set('iss', attackerIdp.issuer)]) {
        const started = await beginFederatedSignIn(database.db, deps, connection, tryOut());
        const callback = await signInAtCompany(started.location, connectionCallbackUrl(PORTICO, connection.id));
        expect(callback.searchParams.get('iss')).toBe(idp.issuer);
        tamper(callback);
        expect(await completeOidcCallback(database.db, deps, { cookieToken: started.token, url: callback, ip: '192.0.2.7', connectionId: connection.id })).toMatchObject({ kind: 'refused', reason: 'invalid_response' });
      }
    });

    it('a connection made before its own callback goes through the shared one, for responses with its iss, until the stated day', async () => {
      const until = new Date(Date.now() + 90 * 86_400_000);
      await database.db.update(identityConnections).set({ legacyCallbackUntil: until }).where(eq(identityConnections.id, connection.id));
      const legacy = { ...connection, legacyCallbackUntil: until };
      try {
        const started = await beginFederatedSignIn(database.db, deps, legacy, tryOut());
        expect(new URL(started.location).searchParams.get('redirect_uri')).toBe(legacyCallbackUrl(PORTICO));
        const callback = await signInAtCompany(started.location, legacyCallbackUrl(PORTICO));
        const withoutIss = new URL(callback);
        withoutIss.searchParams.delete('iss');
        expect(await completeOidcCallback(database.db, deps, { cookieToken: started.token, url: withoutIss, ip: '192.0.2.7', connectionId: undefined })).toMatchObject({ kind: 'refused', reason: 'state_mismatch' });
        // After the stated day, not even with its iss.
        expect(await completeOidcCallback(database.db, deps, { cookieToken: started.token, url: callback, ip: '192.0.2.7', connectionId: undefined, now: new Date(until.getTime() + 1000) })).toMatchObject({ kind: 'refused', reason: 'state_mismatch' });
        expect(await completeOidcCallback(database.db, deps, { cookieToken: started.token, url: callback, ip: '192.0.2.7', connectionId: undefined })).toMatchObject({ kind: 'test' });
      } finally {
        await database.db.update(identityConnections).set({ legacyCallbackUntil: null }).where(eq(identityConnections.id, connection.id));
      }
    });
  });
});
