// SCIM 2.0 as the directories send it: Microsoft Entra ID's provisioning with its default attribute mapping (the
// enterprise extension, phone numbers, addresses; "op": "Add" capitalised) and Okta's (a profile PUT, deactivation by
// PUT or a pathless PATCH, a group renamed with its id in the value), written out request by request through the
// real handler and answered 2xx with RFC 7643/7644 bodies; and what is still refused, with RFC 7644 §3.12's errors
// and nothing written.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../lib/accounts/organizations';
import { recordAuditEvent } from '../../lib/audit/events';
import { orgDomains, users } from '../../lib/db/schema';
import { issueScimToken } from '../../lib/identity/scim';
import { handleScimRequest } from '../../lib/identity/scim-http';
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

async function scim(method: string, path: string, body?: unknown): Promise<Answer> {
  const request = new Request(`${ISSUER}/scim/v2/${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/scim+json; charset=utf-8' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
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
});

describe('Microsoft Entra ID', () => {
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

describe('what is still refused', () => {
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
