// SAML 2.0 connections: Portico's service provider (through @node-saml/node-saml) against a test IdP built from that
// library's own signing helper: a signed assertion signs the person in (the account made, linked by the IdP's
// entity ID + NameID); an unsigned one, one signed by another key, one for another audience or recipient, one that
// expired, one answering another sign-in, a replayed assertion ID and a Response continued in another browser are
// refused.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization, type Organization } from '../../lib/organizations/organizations';
import { runOrgOperation } from '../../lib/organizations/org-operation';
import { Refusal as CommandRefusal } from '../../lib/refusals/refusal';
import { addMember, findMembershipRole } from '../../lib/organizations/memberships';
import { createUser, findUserByEmail, type User } from '../../lib/accounts/users';
import { auditEvents, externalIdentities, orgDomains } from '../../lib/db/schema';
import { createSamlConnection, setConnectionEnabled, type IdentityConnection } from '../../lib/identity/connections';
import { type FederationDeps } from '../../lib/identity/federation/core';
import { beginFederatedSignIn } from '../../lib/identity/federation/begin';
import { fetchIdpMetadata } from '../../lib/identity/saml-metadata';
import { acceptSamlResponse, finishSamlSignIn, samlAcsUrl, samlEntityId, samlMetadata } from '../../lib/identity/federation/saml';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { readAuthnRequest, samlKeyPair, samlResponse, type SamlKeyPair, type SamlResponseInput } from '../support/saml-idp';

const PORTICO = 'https://portico.test';
const IDP = 'https://idp.company-saml.test/metadata';

describe('SAML 2.0 connections', () => {
  let database: TestDatabase;
  let deps: FederationDeps;
  let org: Organization;
  let owner: User;
  let connection: IdentityConnection;
  let keys: SamlKeyPair;
  let otherKeys: SamlKeyPair;

  const asOwner = <T>(work: Parameters<typeof runOrgOperation<T>>[3]) => runOrgOperation(database.db, { org, role: 'owner', actor: { person: owner, ip: '192.0.2.1', door: 'console' } }, { audit: 'exactly_one' }, work);

  /** Portico's redirect, read by the IdP; the IdP's Response, built from it with `change`; the ACS; the finish step. */
  async function signIn(change: (request: ReturnType<typeof readAuthnRequest>) => Partial<SamlResponseInput> = () => ({}), options: { finishWith?: (token: string, relayState: string) => string } = {}) {
    const started = await beginFederatedSignIn(database.db, deps, connection, { surface: 'sign_in', mfaRequested: false, signIn: { surface: 'console', events: { surface: 'console', ip: '192.0.2.9' } } });
    const request = readAuthnRequest(started.location);
    const base: SamlResponseInput = {
      idpEntityId: IDP,
      keys,
      inResponseTo: request.id,
      acs: request.acs,
      audience: request.issuer,
      nameId: 'saml-employee-1',
      attributes: { email: 'ines@saml-company.test', name: 'Inês', groups: ['staff'] },
    };
    const input = { ...base, ...change(request) };
    const response = samlResponse(input);
    const accepted = await acceptSamlResponse(database.db, deps, { connectionId: connection.id, samlResponse: response, relayState: request.relayState, ip: '192.0.2.9' });
    const outcome = accepted === 'accepted' ? await finishSamlSignIn(database.db, options.finishWith ? options.finishWith(started.token, request.relayState) : started.token, '192.0.2.9') : undefined;
    return { accepted, outcome, response, request, started };
  }

  beforeAll(async () => {
    database = await openTestDatabase();
    deps = { outbound: { allowLoopback: true }, atRestKey: randomBytes(32), issuer: PORTICO };
    keys = samlKeyPair();
    otherKeys = samlKeyPair('someone-else');
    org = await createOrganization(database.db, { slug: `saml-${randomBytes(3).toString('hex')}`, name: 'SAML Company' });
    owner = await createUser(database.db, { email: `owner-${randomBytes(3).toString('hex')}@elsewhere.test`, name: 'Owner', passwordHash: null });
    await addMember(database.db, { orgId: org.id, userId: owner.id, role: 'owner' });
    const [domain] = await database.db.insert(orgDomains).values({ orgId: org.id, domain: 'saml-company.test', verificationToken: 'x', verifiedAt: new Date(), verifiedBy: 'https' }).returning();
    connection = await asOwner(({ tx, audit }) =>
      createSamlConnection(
        { tx, audit, orgId: org.id },
        { name: 'Company SAML', entityId: IDP, ssoUrl: 'https://idp.company-saml.test/sso', certificates: keys.certificate, defaultRole: 'admin', emailClaim: 'email', nameClaim: 'name', groupsClaim: 'groups', domainIds: [domain!.id] },
        { allowHttp: false },
      ),
    );
    connection = await asOwner(({ tx, audit }) => setConnectionEnabled({ tx, audit, orgId: org.id }, connection.id, true));
  });
  afterAll(async () => {
    await database?.close();
  });

  it('refuses a connection without a readable certificate; publishes its service provider metadata', async () => {
    const refused = await asOwner(({ tx, audit }) =>
      createSamlConnection({ tx, audit, orgId: org.id }, { name: 'Broken', entityId: IDP, ssoUrl: 'https://idp.example/sso', certificates: '-----BEGIN CERTIFICATE-----\nnot a cert\n-----END CERTIFICATE-----', defaultRole: 'member', emailClaim: 'email', nameClaim: 'name', groupsClaim: 'groups', domainIds: [] }, { allowHttp: false }),
    ).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(CommandRefusal);
    expect((refused as CommandRefusal).code).toBe('certificates');
    const metadata = samlMetadata(deps, connection);
    expect(metadata).toContain(`entityID="${samlEntityId(PORTICO, connection.id)}"`);
    expect(metadata).toContain(samlAcsUrl(PORTICO, connection.id));
    expect(metadata).toContain('WantAssertionsSigned="true"');
  });

  it('signs in with a signed assertion: the account is made and linked to the entity ID + NameID', async () => {
    const { accepted, outcome } = await signIn();
    expect(accepted).toBe('accepted');
    expect(outcome).toMatchObject({ kind: 'signed_in', amr: ['fed', 'pwd'], user: { email: 'ines@saml-company.test', name: 'Inês' } });
    if (outcome?.kind !== 'signed_in') return;
    expect(outcome.user.emailVerifiedAt).not.toBeNull();
    expect(await findMembershipRole(database.db, org.id, outcome.user.id)).toBe('admin');
    expect(await database.db.select().from(externalIdentities).where(eq(externalIdentities.userId, outcome.user.id))).toMatchObject([{ issuer: IDP, subject: 'saml-employee-1' }]);
    // Again, the same person.
    expect((await signIn()).outcome).toMatchObject({ kind: 'signed_in', user: { id: outcome.user.id } });
  });

  it('refuses an unsigned assertion, another key, another audience, another recipient or destination, an expired one', async () => {
    const refusals: [string, (request: ReturnType<typeof readAuthnRequest>) => Partial<SamlResponseInput>][] = [
      ['unsigned', () => ({ sign: false, nameId: 'x-unsigned', attributes: { email: 'x1@saml-company.test' } })],
      ['another key', () => ({ keys: otherKeys, nameId: 'x-key', attributes: { email: 'x2@saml-company.test' } })],
      ['another audience', () => ({ audience: 'https://other-sp.example', nameId: 'x-aud', attributes: { email: 'x3@saml-company.test' } })],
      ['another recipient', () => ({ recipient: 'https://other-sp.example/acs', nameId: 'x-rcpt', attributes: { email: 'x4@saml-company.test' } })],
      ['another destination', () => ({ destination: 'https://other-sp.example/acs', nameId: 'x-dest', attributes: { email: 'x5@saml-company.test' } })],
      ['expired', () => ({ notBefore: new Date('2020-01-01T00:00:00Z'), notOnOrAfter: new Date('2020-01-01T00:05:00Z'), nameId: 'x-old', attributes: { email: 'x6@saml-company.test' } })],
      ['another sign-in', () => ({ inResponseTo: '_someone-elses-request', nameId: 'x-irt', attributes: { email: 'x7@saml-company.test' } })],
      ['a transient NameID', () => ({ nameIdFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient', nameId: '_t1', attributes: { email: 'x8@saml-company.test' } })],
      // Signed with the connection's key, but issued by another entity (one IdP installation signing for several tenants).
      ['another issuer in the signed assertion', () => ({ assertionIssuer: 'https://other-tenant.company-saml.test', nameId: 'x-iss', attributes: { email: 'x9@saml-company.test' } })],
      ['another issuer on the Response', () => ({ responseIssuer: 'https://other-tenant.company-saml.test', nameId: 'x-riss', attributes: { email: 'x10@saml-company.test' } })],
      // The signed assertion answers another request (or none: IdP-initiated) though the Response names this one.
      ['an assertion answering another request', () => ({ assertionInResponseTo: '_someone-elses-request', nameId: 'x-airt', attributes: { email: 'x11@saml-company.test' } })],
      ['an unsolicited assertion', () => ({ assertionInResponseTo: null, nameId: 'x-unsol', attributes: { email: 'x12@saml-company.test' } })],
    ];
    for (const [why, change] of refusals) {
      const { accepted } = await signIn(change);
      expect(accepted, why).toBe('invalid_response');
    }
    for (let index = 1; index <= 12; index += 1) expect(await findUserByEmail(database.db, `x${index}@saml-company.test`)).toBeUndefined();
  });

  it('spends a refused assertion: its ID is not accepted again, even in a Response that would pass', async () => {
    const assertionId = `_unsolicited${randomBytes(8).toString('hex')}`;
    expect((await signIn(() => ({ assertionId, assertionInResponseTo: null }))).accepted).toBe('invalid_response');
    expect((await signIn(() => ({ assertionId }))).accepted).toBe('invalid_response');
    expect((await signIn()).accepted).toBe('accepted');
  });

  it('accepts an assertion ID once, even for another sign-in; the same Response posted twice once', async () => {
    const assertionId = `_replayed${randomBytes(8).toString('hex')}`;
    const first = await signIn(() => ({ assertionId }));
    expect(first.accepted).toBe('accepted');
    // The same assertion ID in a new Response that answers a new request: refused.
    expect((await signIn(() => ({ assertionId }))).accepted).toBe('invalid_response');
    // The very same Response posted again: its sign-in is no longer waiting for one.
    expect(await acceptSamlResponse(database.db, deps, { connectionId: connection.id, samlResponse: first.response, relayState: first.request.relayState, ip: '192.0.2.9' })).toBe('expired');
    // Two posts of one Response at once: one is accepted.
    const started = await beginFederatedSignIn(database.db, deps, connection, { surface: 'sign_in', mfaRequested: false, signIn: { surface: 'console', events: { surface: 'console', ip: '192.0.2.9' } } });
    const request = readAuthnRequest(started.location);
    const response = samlResponse({ idpEntityId: IDP, keys, inResponseTo: request.id, acs: request.acs, audience: request.issuer, nameId: 'saml-employee-1', attributes: { email: 'ines@saml-company.test' } });
    const both = await Promise.all([0, 1].map(() => acceptSamlResponse(database.db, deps, { connectionId: connection.id, samlResponse: response, relayState: request.relayState, ip: '192.0.2.9' })));
    expect(both.filter((result) => result === 'accepted')).toHaveLength(1);
  });

  it('continues a posted Response only in the browser that started the sign-in', async () => {
    const { accepted, outcome } = await signIn(() => ({}), { finishWith: () => 'B'.repeat(43) });
    expect(accepted).toBe('accepted');
    expect(outcome).toMatchObject({ kind: 'refused', reason: 'expired' });
    // The RelayState only names the sign-in: a browser that sets it as its cookie (it is in every URL) finishes nothing.
    const fromUrl = await signIn(() => ({}), { finishWith: (_token, relayState) => relayState });
    expect(fromUrl.accepted).toBe('accepted');
    expect(fromUrl.request.relayState).not.toBe(fromUrl.started.token);
    expect(fromUrl.outcome).toMatchObject({ kind: 'refused', reason: 'expired' });
  });

  it("a connection made from the IdP's metadata (samlify's, fetched by URL) sends people to its SSO URL and takes its signed assertions", async () => {
    const { IdentityProvider, Constants } = await import('samlify');
    const metadata = IdentityProvider({
      entityID: 'https://idp.from-metadata.test/entity',
      signingCert: keys.certificate,
      singleSignOnService: [
        { Binding: Constants.namespace.binding.post, Location: 'https://idp.from-metadata.test/sso/post' },
        { Binding: Constants.namespace.binding.redirect, Location: 'https://idp.from-metadata.test/sso?idpid=C01' },
      ],
      singleLogoutService: [{ Binding: Constants.namespace.binding.redirect, Location: 'https://idp.from-metadata.test/slo' }],
    }).getMetadata();
    const server = createServer((_request, response) => response.writeHead(200, { 'content-type': 'application/samlmetadata+xml' }).end(metadata));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metadata?key=not-for-the-audit-log`;
    const read = await fetchIdpMetadata({ allowLoopback: true }, url, 'metadataUrl').finally(() => server.close());
    const fields = { name: 'From metadata', entityId: '', ssoUrl: '', certificates: '', defaultRole: 'member' as const, emailClaim: 'email', nameClaim: 'name', groupsClaim: 'groups', domainIds: [] };
    const made = await asOwner(({ tx, audit }) => createSamlConnection({ tx, audit, orgId: org.id }, fields, { allowHttp: false, metadata: { ...read, field: 'metadataUrl', source: 'url', url } }));
    expect(made).toMatchObject({ samlIdpEntityId: 'https://idp.from-metadata.test/entity', samlSsoUrl: 'https://idp.from-metadata.test/sso?idpid=C01' });
    // The audit says where the metadata came from, without the URL's query.
    const [event] = await database.db.select().from(auditEvents).where(and(eq(auditEvents.subjectId, made.id), eq(auditEvents.action, 'identity.connection_created')));
    expect(event?.details).toMatchObject({ metadata: 'url', metadataUrl: url.replace(/\?.*$/, '') });
    expect(JSON.stringify(event?.details)).not.toContain('not-for-the-audit-log');

    const original = connection;
    connection = await asOwner(({ tx, audit }) => setConnectionEnabled({ tx, audit, orgId: org.id }, made.id, true));
    try {
      const { accepted, started } = await signIn(() => ({ idpEntityId: 'https://idp.from-metadata.test/entity', nameId: 'from-metadata-1' }));
      // The AuthnRequest's parameters join the query the IdP's SSO URL already has.
      expect(new URL(started.location).searchParams.get('idpid')).toBe('C01');
      expect(started.location.startsWith('https://idp.from-metadata.test/sso?')).toBe(true);
      expect(accepted).toBe('accepted');
      // Signed by a key the metadata did not name: refused.
      expect((await signIn(() => ({ idpEntityId: 'https://idp.from-metadata.test/entity', keys: otherKeys, nameId: 'from-metadata-2' }))).accepted).toBe('invalid_response');
    } finally {
      connection = original;
    }

    // A value typed wins over the metadata's; a bad value the metadata gave is refused next to the metadata's field.
    const typed = await asOwner(({ tx, audit }) =>
      createSamlConnection({ tx, audit, orgId: org.id }, { ...fields, name: 'Typed wins', ssoUrl: 'https://idp.from-metadata.test/other-sso' }, { allowHttp: false, metadata: { ...read, field: 'metadataXml', source: 'xml' } }),
    );
    expect(typed.samlSsoUrl).toBe('https://idp.from-metadata.test/other-sso');
    const refused = (await asOwner(({ tx, audit }) =>
      createSamlConnection({ tx, audit, orgId: org.id }, { ...fields, name: 'Plain http' }, { allowHttp: false, metadata: { ...read, ssoUrl: 'http://idp.from-metadata.test/sso', field: 'metadataXml', source: 'xml' } }),
    ).catch((error: unknown) => error)) as CommandRefusal;
    expect(refused).toBeInstanceOf(CommandRefusal);
    expect(refused.code).toBe('metadataXml');
  });
});
