// SCIM 2.0 as the directories send it: Microsoft Entra ID's provisioning with its default attribute mapping (the
// enterprise extension, phone numbers, addresses; "op": "Add" capitalised) and Okta's (a profile PUT, deactivation by
// PUT or a pathless PATCH, a group renamed with its id in the value), written out request by request through the
// real handler and answered 2xx with RFC 7643/7644 bodies; and what is still refused, with RFC 7644 §3.12's errors
// and nothing written.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../lib/organizations/organizations';
import { recordAuditEvent } from '../../lib/audit/events';
import { orgDomains, users } from '../../lib/db/schema';
import { issueScimToken } from '../../lib/identity/scim/tokens';
import { handleScimRequest } from '../../lib/identity/scim/http';
import { openTestDatabase, type TestDatabase } from '../support/databases';

const ISSUER = 'https://portico.test';
const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

type Answer = { status: number; body: Record<string, unknown> };

let database: TestDatabase;
let token: string;

/** A request as a directory sends it; a body given as a string is sent as it is (JSON.stringify cannot nest 20,000 deep). */
async function scim(method: string, path: string, body?: unknown): Promise<Answer> {
  const request = new Request(`${ISSUER}/scim/v2/${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/scim+json; charset=utf-8' } : {}) },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const url = new URL(request.url);
  const response = await handleScimRequest(database.db, request, { issuer: ISSUER, path: url.pathname.replace(/^\/scim\/v2\/?/, '').split('/').filter(Boolean).map(decodeURIComponent), ip: '192.0.2.9' });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

const account = async (id: string) => (await database.db.select().from(users).where(eq(users.id, id)))[0]!;

beforeAll(async () => {
  database = await openTestDatabase();
  const org = await createOrganization(database.db, { slug: 'contoso', name: 'Contoso' });
  await database.db.insert(orgDomains).values({ orgId: org.id, domain: 'contoso.example', verificationToken: 'x', verifiedAt: new Date(), verifiedBy: 'dns' });
  token = await database.db.transaction((tx) => issueScimToken({ tx, orgId: org.id, audit: (record) => recordAuditEvent(tx, { ...record, orgId: org.id, actor: { type: 'operator_cli', label: 'test' } }) }));
});

afterAll(async () => {
  await database?.close();
});

describe('Okta', () => {
  it('creates a User and updates its profile by PUT: name.givenName and name.familyName are kept and returned', async () => {
    // Okta's "Create User" request, as its SCIM 2.0 reference writes it (password and groups included).
    const created = await scim('POST', 'Users', {
      schemas: [USER],
      userName: 'test.user@contoso.example',
      name: { givenName: 'Test', familyName: 'User' },
      emails: [{ primary: true, value: 'test.user@contoso.example', type: 'work' }],
      displayName: 'Test User',
      locale: 'en-US',
      externalId: '00ujl29u0le5T6Aj10h7',
      groups: [],
      password: '1mz050nq',
      active: true,
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(created.body).toMatchObject({ schemas: [USER], userName: 'test.user@contoso.example', name: { formatted: 'Test User', givenName: 'Test', familyName: 'User' }, displayName: 'Test User', active: true });
    expect(await account(id)).toMatchObject({ name: 'Test User', givenName: 'Test', familyName: 'User', passwordHash: null });

    // Okta's "Update a specific User (PUT)": the whole User again, with its id, groups and meta.
    const put = await scim('PUT', `Users/${id}`, {
      schemas: [USER],
      id,
      userName: 'test.user@contoso.example',
      name: { givenName: 'Another', familyName: 'User' },
      emails: [{ primary: true, value: 'test.user@contoso.example', type: 'work' }],
      displayName: 'Another User',
      locale: 'en-US',
      externalId: '00ujl29u0le5T6Aj10h7',
      groups: [],
      active: true,
      meta: { resourceType: 'User', created: '2026-01-01T00:00:00.000Z', lastModified: '2026-01-01T00:00:00.000Z' },
    });
    expect(put).toMatchObject({ status: 200, body: { id, name: { formatted: 'Another User', givenName: 'Another', familyName: 'User' }, displayName: 'Another User' } });
    expect((await scim('GET', `Users/${id}`)).body).toMatchObject({ name: { formatted: 'Another User', givenName: 'Another', familyName: 'User' } });
    expect(await account(id)).toMatchObject({ name: 'Another User', givenName: 'Another', familyName: 'User' });
  });

  it('deactivates by PUT (active: false in the whole User), reactivates, and deactivates by a PATCH without a path', async () => {
    const created = await scim('POST', 'Users', {
      schemas: [USER],
      userName: 'leaver@contoso.example',
      name: { givenName: 'Lee', familyName: 'Ver' },
      emails: [{ primary: true, value: 'leaver@contoso.example', type: 'work' }],
      displayName: 'Lee Ver',
      locale: 'en-US',
      externalId: '00ujl29u0le5T6Aj10h8',
      groups: [],
      password: 'xk3l0q9z',
      active: true,
    });
    const id = created.body.id as string;
    const whole = { schemas: [USER], id, userName: 'leaver@contoso.example', name: { givenName: 'Lee', familyName: 'Ver' }, emails: [{ primary: true, value: 'leaver@contoso.example', type: 'work' }], displayName: 'Lee Ver', locale: 'en-US', externalId: '00ujl29u0le5T6Aj10h8', groups: [] };
    expect(await scim('PUT', `Users/${id}`, { ...whole, active: false, meta: created.body.meta })).toMatchObject({ status: 200, body: { id, active: false } });
    expect(await scim('PUT', `Users/${id}`, { ...whole, active: true })).toMatchObject({ status: 200, body: { active: true } });
    // Okta's "Update a specific User (PATCH)": deactivation.
    expect(await scim('PATCH', `Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'replace', value: { active: false } }] })).toMatchObject({ status: 200, body: { id, active: false } });
  });

  it('pushes a group: create, rename with its id in the value, members in and out, delete', async () => {
    const member = (await scim('POST', 'Users', { schemas: [USER], userName: 'guide@contoso.example', name: { givenName: 'Gil', familyName: 'Uide' }, emails: [{ primary: true, value: 'guide@contoso.example', type: 'work' }], active: true })).body.id as string;
    const created = await scim('POST', 'Groups', { schemas: [GROUP], displayName: 'Test SCIMv2', members: [] });
    expect(created).toMatchObject({ status: 201, body: { schemas: [GROUP], displayName: 'Test SCIMv2', members: [] } });
    const id = created.body.id as string;
    // Okta's "Update a specific Group name": a replace without a path, the group's own id beside the new name.
    const renamed = await scim('PATCH', `Groups/${id}`, { schemas: [PATCH], Operations: [{ op: 'replace', value: { id, displayName: 'Test SCIMv2 Guides' } }] });
    expect(renamed).toMatchObject({ status: 200, body: { id, displayName: 'Test SCIMv2 Guides' } });
    const added = await scim('PATCH', `Groups/${id}`, { schemas: [PATCH], Operations: [{ op: 'add', path: 'members', value: [{ value: member, display: 'guide@contoso.example' }] }] });
    expect(added).toMatchObject({ status: 200, body: { members: [{ value: member, display: 'guide@contoso.example' }] } });
    const removed = await scim('PATCH', `Groups/${id}`, { schemas: [PATCH], Operations: [{ op: 'remove', path: `members[value eq "${member}"]` }] });
    expect(removed).toMatchObject({ status: 200, body: { members: [] } });
    expect((await scim('DELETE', `Groups/${id}`)).status).toBe(204);
  });
});

describe('Microsoft Entra ID', () => {
  it('provisions a User with the default attribute mapping and updates it attribute by attribute: what Portico does not keep is accepted and ignored', async () => {
    const upn = 'barbara@contoso.example';
    // Entra ID looks the person up first, then creates them.
    expect((await scim('GET', `Users?filter=${encodeURIComponent(`userName eq "${upn}"`)}`)).body).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'], totalResults: 0, Resources: [] });
    const manager = (await scim('POST', 'Users', { schemas: [USER, ENTERPRISE], externalId: 'd2f7c6a0-3d1b-4c8e-9a61-0f1e2d3c4b5a', userName: 'mallory@contoso.example', active: true, emails: [{ primary: true, type: 'work', value: 'mallory@contoso.example' }], meta: { resourceType: 'User' }, name: { formatted: 'Mallory Manager', familyName: 'Manager', givenName: 'Mallory' }, roles: [] })).body.id as string;
    const created = await scim('POST', 'Users', {
      schemas: [USER, ENTERPRISE],
      externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
      userName: upn,
      active: true,
      addresses: [{ type: 'work', formatted: 'Building 4', streetAddress: '1 Microsoft Way', locality: 'Redmond', region: 'WA', postalCode: '98052', country: 'US', primary: false }],
      displayName: 'Barbara Jensen',
      emails: [{ primary: true, type: 'work', value: upn }],
      meta: { resourceType: 'User' },
      name: { formatted: 'Barbara Jensen', familyName: 'Jensen', givenName: 'Barbara' },
      phoneNumbers: [
        { type: 'work', value: '+1 425 555 0100' },
        { type: 'mobile', value: '+1 425 555 0101' },
        { type: 'fax', value: '+1 425 555 0102' },
      ],
      preferredLanguage: 'en-US',
      roles: [],
      title: 'Tour Guide',
      [ENTERPRISE]: { employeeNumber: '701984', department: 'Tour Operations', costCenter: '4130', organization: 'Contoso', division: 'Travel' },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(created.body).toMatchObject({ schemas: [USER], id, externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef', userName: upn, active: true, name: { formatted: 'Barbara Jensen', givenName: 'Barbara', familyName: 'Jensen' }, emails: [{ value: upn, primary: true }] });
    // Nothing is said back that Portico does not keep (RFC 7644 §3.3: the server may ignore what it was sent).
    for (const dropped of ['phoneNumbers', 'addresses', 'title', 'preferredLanguage', 'roles', ENTERPRISE]) expect(created.body).not.toHaveProperty([dropped]);

    // The changes Entra ID sends when the source attributes change, one PATCH per change as it batches them.
    const changes = [
      [{ op: 'Add', path: `${ENTERPRISE}:manager`, value: manager }],
      [
        { op: 'Replace', path: `${ENTERPRISE}:department`, value: 'Guided Tours' },
        { op: 'Replace', path: `${ENTERPRISE}:employeeNumber`, value: '701985' },
        { op: 'Add', path: 'phoneNumbers[type eq "work"].value', value: '+1 425 555 0199' },
        { op: 'Replace', path: 'addresses[type eq "work"].locality', value: 'Bellevue' },
        { op: 'Replace', path: 'addresses[type eq "work"].country', value: 'CA' },
        { op: 'Replace', path: 'title', value: 'Senior Tour Guide' },
      ],
      [
        { op: 'Replace', path: 'displayName', value: 'Barbara J Jensen' },
        { op: 'Replace', path: 'name.formatted', value: 'Barbara J Jensen' },
        { op: 'Add', path: 'phoneNumbers[type eq "mobile"].value', value: '+1 425 555 0198' },
      ],
      [{ op: 'Remove', path: `${ENTERPRISE}:manager`, value: [{ value: manager }] }],
    ];
    for (const Operations of changes) {
      const patched = await scim('PATCH', `Users/${id}`, { schemas: [PATCH], Operations });
      expect(patched, JSON.stringify(Operations)).toMatchObject({ status: 200, body: { schemas: [USER], id, userName: upn, active: true } });
      expect(patched.body).not.toHaveProperty([ENTERPRISE]);
      expect(patched.body).not.toHaveProperty(['phoneNumbers']);
    }
    expect((await scim('GET', `Users/${id}`)).body).toMatchObject({ displayName: 'Barbara J Jensen', name: { formatted: 'Barbara J Jensen', givenName: 'Barbara', familyName: 'Jensen' } });
    expect(await account(id)).toMatchObject({ name: 'Barbara J Jensen', email: upn });
  });

  it('accepts the same attributes in a PATCH without a path, and a directory extension of its own', async () => {
    const id = (await scim('POST', 'Users', { schemas: [USER], userName: 'pathless@contoso.example' })).body.id as string;
    const patched = await scim('PATCH', `Users/${id}`, {
      schemas: [PATCH],
      Operations: [
        { op: 'Replace', value: { 'name.givenName': 'Pat', 'name.familyName': 'Less', [`${ENTERPRISE}:department`]: 'Sales', [ENTERPRISE]: { manager: { value: id } }, phoneNumbers: [{ type: 'work', value: '+1 425 555 0111' }] } },
        { op: 'Add', path: 'urn:ietf:params:scim:schemas:extension:contoso:2.0:User:badgeNumber', value: '1138' },
      ],
    });
    expect(patched).toMatchObject({ status: 200, body: { name: { formatted: 'pathless', givenName: 'Pat', familyName: 'Less' } } });
  });

  it('provisions a group: looks it up and reads it with excludedAttributes=members, which leave the members out', async () => {
    const member = (await scim('POST', 'Users', { schemas: [USER, ENTERPRISE], externalId: '6f1c0e2a-9b8d-4c7e-a5f4-3b2a1c0d9e8f', userName: 'gina@contoso.example', active: true, emails: [{ primary: true, type: 'work', value: 'gina@contoso.example' }], meta: { resourceType: 'User' }, name: { formatted: 'Gina Ray', familyName: 'Ray', givenName: 'Gina' }, roles: [] })).body.id as string;
    const lookup = `Groups?excludedAttributes=members&filter=${encodeURIComponent('displayName eq "Night Tours"')}`;
    expect((await scim('GET', lookup)).body).toMatchObject({ totalResults: 0, Resources: [] });
    const created = await scim('POST', 'Groups', {
      schemas: [GROUP, 'http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/Group'],
      externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159',
      displayName: 'Night Tours',
      meta: { resourceType: 'Group' },
    });
    expect(created).toMatchObject({ status: 201, body: { schemas: [GROUP], externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159', displayName: 'Night Tours', members: [] } });
    const id = created.body.id as string;
    expect(await scim('PATCH', `Groups/${id}`, { schemas: [PATCH], Operations: [{ op: 'Add', path: 'members', value: [{ $ref: null, value: member }] }] })).toMatchObject({ status: 200, body: { members: [{ value: member }] } });

    // Entra ID's reads: the group by id, and by name, without its members.
    for (const answer of [(await scim('GET', `Groups/${id}?excludedAttributes=members`)).body, ((await scim('GET', lookup)).body.Resources as Record<string, unknown>[])[0]!]) {
      expect(answer).toMatchObject({ schemas: [GROUP], id, externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159', displayName: 'Night Tours', meta: { resourceType: 'Group', location: `${ISSUER}/scim/v2/Groups/${id}` } });
      expect(answer).not.toHaveProperty(['members']);
    }
    expect(await scim('PATCH', `Groups/${id}`, { schemas: [PATCH], Operations: [{ op: 'Replace', path: 'displayName', value: 'Night Tours (EMEA)' }, { op: 'Remove', path: 'members', value: [{ $ref: null, value: member }] }] })).toMatchObject({ status: 200, body: { displayName: 'Night Tours (EMEA)', members: [] } });
    expect((await scim('GET', `Groups/${id}`)).body).toMatchObject({ id, members: [] });
  });

  it('patches the parts of a name: kept, and a display name made of them follows them', async () => {
    const created = await scim('POST', 'Users', { schemas: [USER], userName: 'carol@contoso.example', name: { givenName: 'Carol', familyName: 'Q' } });
    const id = created.body.id as string;
    expect(created.body).toMatchObject({ name: { formatted: 'Carol Q', givenName: 'Carol', familyName: 'Q' }, displayName: 'Carol Q' });
    // Entra ID sends one attribute per operation, "Replace" once it had a value, "Add" when it had none.
    const patched = await scim('PATCH', `Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'Replace', path: 'name.familyName', value: 'Quinn' }] });
    expect(patched).toMatchObject({ status: 200, body: { name: { formatted: 'Carol Quinn', givenName: 'Carol', familyName: 'Quinn' }, displayName: 'Carol Quinn' } });
    // A display name of its own (name.formatted, Join(" ", givenName, surname) in Entra's mapping) is the directory's word.
    const formatted = await scim('PATCH', `Users/${id}`, {
      schemas: [PATCH],
      Operations: [
        { op: 'Replace', path: 'name.givenName', value: 'Caroline' },
        { op: 'Replace', path: 'name.formatted', value: 'Dr. Caroline Quinn' },
      ],
    });
    expect(formatted.body).toMatchObject({ name: { formatted: 'Dr. Caroline Quinn', givenName: 'Caroline', familyName: 'Quinn' }, displayName: 'Dr. Caroline Quinn' });
    // A later part no longer changes it; a part removed is gone.
    const removed = await scim('PATCH', `Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'Remove', path: 'name.givenName' }, { op: 'Add', path: 'name.familyName', value: 'Quinn-Smith' }] });
    expect(removed.body).toMatchObject({ name: { formatted: 'Dr. Caroline Quinn', familyName: 'Quinn-Smith' }, displayName: 'Dr. Caroline Quinn' });
    expect((removed.body.name as Record<string, unknown>).givenName).toBeUndefined();
    expect(await account(id)).toMatchObject({ name: 'Dr. Caroline Quinn', givenName: null, familyName: 'Quinn-Smith' });
  });
});

describe('attributes and excludedAttributes (RFC 7644 §3.9)', () => {
  it('shape every User and Group a response holds, GET single or list and the answers to writes; id and schemas always stay', async () => {
    const user = await scim('POST', 'Users?excludedAttributes=meta,emails', { schemas: [USER], userName: 'view@contoso.example', externalId: 'v-1', name: { givenName: 'Vi', familyName: 'Ew' } });
    expect(user.status).toBe(201);
    expect(Object.keys(user.body).sort()).toEqual(['active', 'displayName', 'externalId', 'id', 'name', 'schemas', 'userName']);
    const id = user.body.id as string;

    expect((await scim('GET', `Users/${id}?attributes=userName,name.givenName`)).body).toEqual({ schemas: [USER], id, userName: 'view@contoso.example', name: { givenName: 'Vi' } });
    expect((await scim('GET', `Users/${id}?attributes=${encodeURIComponent(`${USER}:userName`)},EMAILS.VALUE`)).body).toEqual({ schemas: [USER], id, userName: 'view@contoso.example', emails: [{ value: 'view@contoso.example' }] });
    const without = (await scim('GET', `Users/${id}?excludedAttributes=id,schemas,meta,name.familyName,emails.primary`)).body;
    expect(without).toMatchObject({ schemas: [USER], id, name: { formatted: 'Vi Ew', givenName: 'Vi' }, emails: [{ value: 'view@contoso.example', type: 'work' }] });
    expect(without).not.toHaveProperty(['meta']);
    expect(without).not.toHaveProperty(['name', 'familyName']);
    expect(without).not.toHaveProperty(['emails', 0, 'primary']);

    const list = await scim('GET', `Users?filter=${encodeURIComponent('externalId eq "v-1"')}&attributes=active`);
    expect(list.body).toEqual({ schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'], totalResults: 1, startIndex: 1, itemsPerPage: 1, Resources: [{ schemas: [USER], id, active: true }] });
    expect((await scim('PATCH', `Users/${id}?attributes=displayName`, { schemas: [PATCH], Operations: [{ op: 'replace', path: 'name.familyName', value: 'Ewing' }] })).body).toEqual({ schemas: [USER], id, displayName: 'Vi Ewing' });

    const group = (await scim('POST', 'Groups', { schemas: [GROUP], displayName: 'Viewers', members: [{ value: id }] })).body.id as string;
    expect((await scim('GET', `Groups/${group}?attributes=members.value`)).body).toEqual({ schemas: [GROUP], id: group, members: [{ value: id }] });
    expect((await scim('GET', `Groups?attributes=displayName&filter=${encodeURIComponent('displayName eq "Viewers"')}`)).body).toMatchObject({ Resources: [{ schemas: [GROUP], id: group, displayName: 'Viewers' }] });
    expect(((await scim('GET', `Groups?attributes=displayName&filter=${encodeURIComponent('displayName eq "Viewers"')}`)).body.Resources as Record<string, unknown>[])[0]).not.toHaveProperty(['members']);
    expect((await scim('PUT', `Groups/${group}?excludedAttributes=members`, { schemas: [GROUP], displayName: 'Viewers', members: [] })).body).not.toHaveProperty(['members']);
  });

  it('both at once are invalidSyntax', async () => {
    expect(await scim('GET', 'Users?attributes=userName&excludedAttributes=emails')).toMatchObject({ status: 400, body: { schemas: [ERROR], scimType: 'invalidSyntax' } });
    expect(await scim('GET', 'Groups?attributes=displayName&excludedAttributes=members')).toMatchObject({ status: 400, body: { scimType: 'invalidSyntax' } });
  });
});

describe('what is still refused', () => {
  it('a name no schema defines (a typo of a kept attribute), in a PATCH path or value or a POST body: invalidPath / invalidSyntax, nothing written', async () => {
    const id = (await scim('POST', 'Users', { schemas: [USER], userName: 'typo@contoso.example', name: { givenName: 'Ty', familyName: 'Po' } })).body.id as string;
    const paths = [
      'userNme',
      'name.givnName',
      `${USER}:userNme`,
      `${ENTERPRISE}:departmnt`,
      `${ENTERPRISE}:manager.valu`,
      'phoneNumbers[type eq "work"].valu',
      'addresses[type eq "work"].city',
      'userName[type eq "work"]',
      `${GROUP}:displayName`,
      'emails[type eq "work"',
      '',
      'urn:',
      'a'.repeat(300),
      'name\u0000',
    ];
    for (const path of paths) {
      const refused = await scim('PATCH', `Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'replace', path: 'displayName', value: 'Changed' }, { op: 'replace', path, value: 'x' }] });
      expect(refused, path).toMatchObject({ status: 400, body: { schemas: [ERROR], status: '400', scimType: 'invalidPath' } });
    }
    expect(await scim('PATCH', `Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'replace', value: { displayName: 'Changed', userNme: 'x' } }] })).toMatchObject({ status: 400, body: { scimType: 'invalidPath' } });
    expect(await scim('PATCH', `Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'replace', path: 'name', value: { givenName: 'Changed', givnName: 'x' } }] })).toMatchObject({ status: 400, body: { scimType: 'invalidPath' } });
    expect(await account(id)).toMatchObject({ name: 'Ty Po', givenName: 'Ty', familyName: 'Po' });

    expect(await scim('POST', 'Users', { schemas: [USER], userName: 'typo2@contoso.example', displayNme: 'Typo' })).toMatchObject({ status: 400, body: { scimType: 'invalidSyntax' } });
    expect(await scim('POST', 'Users', { schemas: [USER], userName: 'typo2@contoso.example', name: { givnName: 'Typo' } })).toMatchObject({ status: 400, body: { scimType: 'invalidSyntax' } });
    expect(await scim('PUT', `Users/${id}`, { schemas: [USER], userName: 'typo@contoso.example', 'name.givenName': 'Typo' })).toMatchObject({ status: 400, body: { scimType: 'invalidSyntax' } });
    expect((await scim('GET', `Users?filter=${encodeURIComponent('userName eq "typo2@contoso.example"')}`)).body).toMatchObject({ totalResults: 0 });
    expect(await scim('POST', 'Groups', { schemas: [GROUP], displayNme: 'Typo' })).toMatchObject({ status: 400, body: { scimType: 'invalidSyntax' } });
  });

  it('id is read-only: the same id again is ignored, another one (or removing it) is mutability; groups on a User is mutability', async () => {
    const user = (await scim('POST', 'Users', { schemas: [USER], userName: 'fixed@contoso.example' })).body.id as string;
    const group = (await scim('POST', 'Groups', { schemas: [GROUP], displayName: 'Fixed' })).body.id as string;
    const other = '00000000-0000-4000-8000-000000000000';
    expect(await scim('PATCH', `Users/${user}`, { schemas: [PATCH], Operations: [{ op: 'replace', value: { id: user.toUpperCase(), displayName: 'Fixed Point' } }] })).toMatchObject({ status: 200, body: { id: user, displayName: 'Fixed Point' } });
    for (const [resource, id] of [['Users', user], ['Groups', group]] as const) {
      for (const operation of [{ op: 'replace', value: { id: other, displayName: 'Moved' } }, { op: 'replace', path: 'id', value: other }, { op: 'remove', path: 'id' }, { op: 'replace', path: 'id', value: 42 }]) {
        expect(await scim('PATCH', `${resource}/${id}`, { schemas: [PATCH], Operations: [operation] }), `${resource} ${JSON.stringify(operation)}`).toMatchObject({ status: 400, body: { scimType: 'mutability' } });
      }
    }
    expect((await scim('GET', `Users/${user}`)).body).toMatchObject({ id: user, displayName: 'Fixed Point' });
    expect((await scim('GET', `Groups/${group}`)).body).toMatchObject({ id: group, displayName: 'Fixed' });
    expect(await scim('PATCH', `Users/${user}`, { schemas: [PATCH], Operations: [{ op: 'add', path: 'groups', value: [{ value: group }] }] })).toMatchObject({ status: 400, body: { scimType: 'mutability' } });
    // A PUT's read-only values are ignored (RFC 7644 §3.5.1): the id in the URL is the User's.
    expect(await scim('PUT', `Users/${user}`, { schemas: [USER], id: other, userName: 'fixed@contoso.example', groups: [{ value: group }] })).toMatchObject({ status: 200, body: { id: user } });
  });

  it('a remove without a path is noTarget; a value without a path that is not an object is invalidValue', async () => {
    const id = (await scim('POST', 'Users', { schemas: [USER], userName: 'target@contoso.example' })).body.id as string;
    expect(await scim('PATCH', `Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'remove' }] })).toMatchObject({ status: 400, body: { scimType: 'noTarget' } });
    expect(await scim('PATCH', `Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'replace', value: 'False' }] })).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
    expect(await scim('PATCH', `Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'replace', path: USER, value: ['x'] }] })).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
  });

  it('the core schema wrapping itself, once or 20,000 deep (under the size cap), is refused, never a 500 from an exhausted stack', async () => {
    const id = (await scim('POST', 'Users', { schemas: [USER], userName: 'deep@contoso.example' })).body.id as string;
    // Written out as text: the nesting is the point.
    const nested = (depth: number, inner: string) => `${`"${USER}":{`.repeat(depth)}${inner}${'}'.repeat(depth)}`;
    // Once is what directories send; twice already means nothing.
    expect(await scim('POST', 'Users', `{"schemas":["${USER}"],${nested(1, '"userName":"once@contoso.example"')}}`)).toMatchObject({ status: 201 });
    for (const depth of [2, 20_000]) {
      expect(await scim('POST', 'Users', `{"schemas":["${USER}"],"userName":"deep-${depth}@contoso.example",${nested(depth, '"displayName":"x"')}}`)).toMatchObject({ status: 400, body: { scimType: 'invalidSyntax' } });
      expect(await scim('PATCH', `Users/${id}`, `{"schemas":["${PATCH}"],"Operations":[{"op":"replace","value":{${nested(depth, '"displayName":"x"')}}}]}`)).toMatchObject({ status: 400, body: { scimType: 'invalidPath' } });
    }
  });

  it('values no text column holds (NUL, half a surrogate pair) in kept, ignored or unknown attributes: never a 500', async () => {
    for (const [index, bad] of ['\u0000', '\ud800'].entries()) {
      const answers = [
        await scim('POST', 'Users', { schemas: [USER], userName: `odd${index}@contoso.example`, name: { givenName: `a${bad}b`, familyName: `c${bad}` }, phoneNumbers: [{ value: bad }], [`x${bad}`]: 1 }),
        await scim('POST', 'Users', { schemas: [USER], userName: `odd${index}@contoso.example`, name: { givenName: `a${bad}b`, familyName: `c${bad}`, formatted: `d${bad}` }, phoneNumbers: [{ value: bad }], [ENTERPRISE]: { department: bad } }),
      ];
      const id = answers[1]!.body.id as string | undefined;
      if (id) answers.push(await scim('PATCH', `Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'Replace', path: `name.givenName`, value: `e${bad}` }, { op: 'Add', path: `phoneNumbers[type eq "${bad}"].value`, value: bad }] }));
      for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(500);
    }
  });

  it('a name part that is not a short string is invalidValue, and nothing of the request is written', async () => {
    const id = (await scim('POST', 'Users', { schemas: [USER], userName: 'dan@contoso.example', name: { givenName: 'Dan', familyName: 'Brown' } })).body.id as string;
    const refused = await scim('PATCH', `Users/${id}`, {
      schemas: [PATCH],
      Operations: [
        { op: 'replace', path: 'displayName', value: 'Daniel Brown' },
        { op: 'replace', path: 'name.familyName', value: 'B'.repeat(101) },
      ],
    });
    expect(refused).toMatchObject({ status: 400, body: { schemas: [ERROR], status: '400', scimType: 'invalidValue' } });
    expect(await scim('PATCH', `Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'replace', path: 'name', value: 'Dan Brown' }] })).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
    expect(await scim('POST', 'Users', { schemas: [USER], userName: 'erin@contoso.example', name: { givenName: { first: 'Erin' } } })).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
    expect(await account(id)).toMatchObject({ name: 'Dan Brown', givenName: 'Dan', familyName: 'Brown' });
  });
});
