// SCIM 2.0 provisioning (RFC 7643 schemas, RFC 7644 protocol) for one organization: its directory (Entra ID, Okta,
// Google, …) creates, updates, deactivates and deletes the organization's people and groups here, with a bearer token
// the console shows once (its SHA-256 only is stored).
//
// Users are Portico accounts seen through the organization (scim_users: the userName and externalId the directory
// gave, whether it has them active). A User's address must be at one of the organization's verified domains: a
// directory cannot provision, or take into its organization, anybody else's people. Deactivating (active=false)
// or deleting a User ends the membership exactly like removing a member (removeMemberCommand in lib/organizations/member-commands.ts, run as an organization operation of the directory:
// grants, refresh tokens, teams, agents' use, back-channel logout to the apps); the account itself stays, as it
// may belong to other organizations. Groups are teams (scim_groups marks those the directory manages). Of what a
// directory sends, Portico keeps a User's userName, name (formatted, givenName, familyName), displayName, emails,
// active and externalId and a Group's displayName, members and externalId; every other attribute the schemas define
// (phone numbers, addresses, the enterprise extension, …) is accepted and ignored (the attributes section below).
import { createHash, randomBytes } from 'node:crypto';
import { and, asc, count, eq, inArray, isNotNull, sql, type SQL } from 'drizzle-orm';
import { addMember, findMembershipRole } from '../organizations/memberships';
import { removeMemberCommand } from '../organizations/member-commands';
import { runOrgOperation, type OrgOperationContext } from '../organizations/org-operation';
import { refusalOf } from '../refusals/refusal';
import { findOrganizationById } from '../organizations/organizations';
import { createUser, findUserByEmail, findUserById, normalizeEmail, type User } from '../accounts/users';
import type { AuditRecord } from '../audit/events';
import { postgresErrorCode, type Database, type Queryable, type Transaction } from '../db/client';
import { identityConnections, memberships, orgDomains, scimGroups, scimTokens, scimUsers, teamMembers, teams, users } from '../db/schema';
import { isUuid } from '../util/uuid';
import { domainOfEmail } from './connections';
import { scimRefusal } from './refusal-codes';

export const SCIM_TOKEN_PREFIX = 'scim_';
export const SCIM_MAX_RESULTS = 200;
export const SCIM_BODY_LIMIT = 1024 * 1024;
const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const ENTERPRISE_USER_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url');

// ---------------------------------------------------------------- attributes (RFC 7643 §3.1, §4, §8.7.1)

/**
 * Every attribute the schemas define, by resource, with its sub-attributes: what a directory may send. Portico keeps
 * some (`kept`); the others a server may ignore (RFC 7644 §3.3, §3.5.1), and Portico does, on POST, PUT and PATCH
 * alike — Entra ID's default mapping sends phone numbers, addresses and the enterprise extension on every change.
 * A name no schema Portico knows defines (a typo such as `userNme`) is refused; an attribute of an extension schema
 * Portico does not know (a directory's own `urn:…`) is ignored, as a POST always ignored it.
 */
interface ResourceSchema {
  name: 'User' | 'Group';
  core: string;
  attributes: Record<string, readonly string[]>;
  extensions: Record<string, Record<string, readonly string[]>>;
  kept: ReadonlySet<string>;
}

const MULTI_VALUED_SUBS = ['value', 'display', 'type', 'primary', '$ref'];
const COMMON_ATTRIBUTES = { id: [], externalId: [], meta: ['resourceType', 'created', 'lastModified', 'location', 'version'], schemas: [] };
const MULTI_VALUED = new Set(['schemas', 'emails', 'phoneNumbers', 'ims', 'photos', 'addresses', 'groups', 'entitlements', 'roles', 'x509Certificates', 'members']);
const NAME_KEPT = ['formatted', 'givenName', 'familyName'];

const USER_RESOURCE: ResourceSchema = {
  name: 'User',
  core: USER_SCHEMA,
  attributes: {
    ...COMMON_ATTRIBUTES,
    userName: [],
    name: [...NAME_KEPT, 'middleName', 'honorificPrefix', 'honorificSuffix'],
    displayName: [],
    nickName: [],
    profileUrl: [],
    title: [],
    userType: [],
    preferredLanguage: [],
    locale: [],
    timezone: [],
    active: [],
    password: [],
    emails: MULTI_VALUED_SUBS,
    phoneNumbers: MULTI_VALUED_SUBS,
    ims: MULTI_VALUED_SUBS,
    photos: MULTI_VALUED_SUBS,
    addresses: ['formatted', 'streetAddress', 'locality', 'region', 'postalCode', 'country', 'type', 'primary'],
    groups: MULTI_VALUED_SUBS,
    entitlements: MULTI_VALUED_SUBS,
    roles: MULTI_VALUED_SUBS,
    x509Certificates: MULTI_VALUED_SUBS,
  },
  extensions: {
    [ENTERPRISE_USER_SCHEMA]: { employeeNumber: [], costCenter: [], organization: [], division: [], department: [], manager: ['value', '$ref', 'displayName'] },
  },
  kept: new Set(['userName', 'name', 'displayName', 'active', 'emails', 'externalId']),
};

const GROUP_RESOURCE: ResourceSchema = {
  name: 'Group',
  core: GROUP_SCHEMA,
  attributes: { ...COMMON_ATTRIBUTES, displayName: [], members: ['value', '$ref', 'type', 'display'] },
  extensions: {},
  kept: new Set(['displayName', 'members', 'externalId']),
};

/** An attribute path (RFC 7644 §3.10, §3.5.2): its schema, and the attribute, value filter and sub-attribute if any. */
interface AttributePath {
  schema: string;
  /** The name as the schema spells it; none when the path is the schema itself (its attributes are the value's). */
  attribute?: string;
  filter?: string;
  sub?: string;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const named = (names: Iterable<string>, name: string) => [...names].find((candidate) => candidate.toLowerCase() === name.toLowerCase());

/**
 * Resolves a PATCH path or a body's attribute name, case-insensitively (RFC 7643 §2.1), with or without its schema's
 * URN. Undefined: an attribute of an extension schema Portico does not know. A name the resource's schemas do not
 * define, or a malformed path, is refused with `scimType` (invalidPath in a PATCH, invalidSyntax in a body).
 */
function attributePath(raw: string, resource: ResourceSchema, scimType: 'invalidPath' | 'invalidSyntax'): AttributePath | undefined {
  const refusal = () => scimRefusal(400, `${raw.slice(0, 100)} is not an attribute of a ${resource.name} (RFC 7643).`, scimType);
  const bracket = raw.indexOf('[');
  const head = (bracket === -1 ? raw : raw.slice(0, bracket)).toLowerCase();
  let schema = resource.core;
  let rest = raw;
  if (head.startsWith('urn:')) {
    const known = [resource.core, ...Object.keys(resource.extensions)].find((urn) => head === urn.toLowerCase() || head.startsWith(`${urn.toLowerCase()}:`));
    if (!known) {
      // The core schemas are SCIM's own: a name there that this resource lacks is a mistake, not an extension; an
      // extension's attribute is `urn:<namespace>:…:<attribute>`.
      if (head.startsWith('urn:ietf:params:scim:schemas:core:') || !/^urn:[a-z0-9][a-z0-9-]*:\S+:[a-z][\w-]*(\.[a-z$][\w$-]*)?$/.test(head)) throw refusal();
      return undefined;
    }
    schema = known;
    if (head === known.toLowerCase()) {
      if (bracket !== -1) throw refusal();
      return { schema };
    }
    rest = raw.slice(known.length + 1);
  }
  const match = /^([A-Za-z][\w-]*)(?:\[(.+)\])?(?:\.([A-Za-z$][\w$-]*))?$/.exec(rest);
  const attributes = schema === resource.core ? resource.attributes : resource.extensions[schema]!;
  const attribute = match ? named(Object.keys(attributes), match[1]!) : undefined;
  if (!match || !attribute || (match[2] !== undefined && !MULTI_VALUED.has(attribute))) throw refusal();
  const sub = match[3] === undefined ? undefined : named(attributes[attribute]!, match[3]);
  if (match[3] !== undefined && !sub) throw refusal();
  return { schema, attribute, ...(match[2] !== undefined ? { filter: match[2] } : {}), ...(sub ? { sub } : {}) };
}

/**
 * A POST or PUT body's attributes that Portico keeps, by their schema names; the others are left out (read-only
 * ones such as `id`, `meta` and `groups` too: RFC 7644 §3.5.1 ignores them), a name no schema defines is
 * invalidSyntax.
 */
function resourceBody(body: Record<string, unknown>, resource: ResourceSchema): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  const take = (key: string, value: unknown, wrapped = false) => {
    const target = attributePath(key, resource, 'invalidSyntax');
    if (!target || target.schema !== resource.core) return;
    if (target.attribute === undefined) {
      // The core schema's URN may wrap the attributes once; nested in itself it means nothing (and a deep nesting
      // would exhaust the stack: a 500 instead of an answer).
      if (wrapped) throw scimRefusal(400, `${resource.core} cannot wrap itself.`, 'invalidSyntax');
      if (isObject(value)) for (const [inner, innerValue] of Object.entries(value)) take(inner, innerValue, true);
      return;
    }
    if (target.filter !== undefined || target.sub !== undefined) throw scimRefusal(400, `${key.slice(0, 100)} is a path, not an attribute name.`, 'invalidSyntax');
    if (!resource.kept.has(target.attribute)) return;
    kept[target.attribute] = target.attribute === 'name' && isObject(value) ? nameValue(value, 'invalidSyntax') : value;
  };
  for (const [key, value] of Object.entries(body)) take(key, value);
  return kept;
}

/** A `name` value's sub-attributes that Portico keeps (formatted, givenName, familyName), by their schema names. */
function nameValue(value: Record<string, unknown>, scimType: 'invalidPath' | 'invalidSyntax'): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [key, part] of Object.entries(value)) {
    const sub = named(USER_RESOURCE.attributes.name!, key);
    if (!sub) throw scimRefusal(400, `name.${key.slice(0, 100)} is not an attribute of a User (RFC 7643).`, scimType);
    if (NAME_KEPT.includes(sub)) kept[sub] = part;
  }
  return kept;
}

/**
 * The attributes one PATCH operation targets (RFC 7644 §3.5.2): its path, or without one each attribute of its value
 * (Okta's `{"op": "replace", "value": {"active": false}}`; Entra ID may spell a key as a path, `name.givenName`).
 * Attributes of an extension Portico does not know are left out here.
 */
function operationTargets(operation: PatchOperation, resource: ResourceSchema): { target: AttributePath & { attribute: string }; value: unknown; path: string }[] {
  const targets: { target: AttributePath & { attribute: string }; value: unknown; path: string }[] = [];
  const add = (path: string, value: unknown, wrapped = false) => {
    const target = attributePath(path, resource, 'invalidPath');
    if (!target) return;
    if (target.attribute !== undefined) targets.push({ target: { ...target, attribute: target.attribute }, value, path });
    else if (target.schema !== resource.core) return; // a whole extension: nothing of it is kept
    else if (operation.op === 'remove') throw scimRefusal(400, `${path.slice(0, 100)}: remove names an attribute, not the whole ${resource.name}.`, 'invalidPath');
    else if (!isObject(value)) throw scimRefusal(400, `${path.slice(0, 100)}: the value is an object of the ${resource.name}'s attributes.`, 'invalidValue');
    // Once, as in resourceBody: the core schema nested in itself is refused, never followed down the stack.
    else if (wrapped) throw scimRefusal(400, `${resource.core} cannot wrap itself.`, 'invalidPath');
    else for (const [key, inner] of Object.entries(value)) add(key, inner, true);
  };
  if (operation.path !== undefined) add(operation.path, operation.value);
  else if (!isObject(operation.value)) throw scimRefusal(400, 'Without a path, value is an object of the attributes to change (RFC 7644 §3.5.2.1).', 'invalidValue');
  else for (const [key, value] of Object.entries(operation.value)) add(key, value);
  return targets;
}

/** `id` is read-only (RFC 7643 §3.1): the same id again changes nothing; another, or none, is a mutability error. */
function refuseIdChange(operation: PatchOperation, value: unknown, id: string): void {
  if (operation.op === 'remove' || typeof value !== 'string' || value.toLowerCase() !== id.toLowerCase()) {
    throw scimRefusal(400, 'id is read-only: it cannot be changed or removed (RFC 7643 §3.1).', 'mutability');
  }
}

// ---------------------------------------------------------------- tokens (console, through the org-operation kernel)

type TokenContext = Pick<OrgOperationContext, 'tx' | 'audit'> & { orgId: string; userId?: string };

/** Makes the organization's SCIM token (replacing the one it had): the token, to be shown once. */
export async function issueScimToken(ctx: TokenContext): Promise<string> {
  const token = `${SCIM_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  const replaced = await ctx.tx.delete(scimTokens).where(eq(scimTokens.orgId, ctx.orgId)).returning({ id: scimTokens.id });
  await ctx.tx.insert(scimTokens).values({ orgId: ctx.orgId, tokenHash: sha256(token), createdBy: ctx.userId ?? null });
  await ctx.audit({ action: 'identity.scim_token_issued', subject: { type: 'scim_token', id: ctx.orgId }, details: { replaced: replaced.length > 0 } });
  return token;
}

export async function revokeScimToken(ctx: TokenContext): Promise<void> {
  const removed = await ctx.tx.delete(scimTokens).where(eq(scimTokens.orgId, ctx.orgId)).returning({ id: scimTokens.id });
  await ctx.audit({ action: 'identity.scim_token_revoked', subject: { type: 'scim_token', id: ctx.orgId }, details: { existed: removed.length > 0 } });
}

export async function scimTokenOf(db: Queryable, orgId: string): Promise<{ createdAt: Date; lastUsedAt: Date | null } | undefined> {
  const [row] = await db.select({ createdAt: scimTokens.createdAt, lastUsedAt: scimTokens.lastUsedAt }).from(scimTokens).where(eq(scimTokens.orgId, orgId)).limit(1);
  return row;
}

/** The organization a bearer token provisions, or undefined (RFC 7644 §2: 401 then). */
export async function organizationOfScimToken(db: Queryable, authorization: string | null): Promise<string | undefined> {
  const match = /^Bearer\s+(scim_[A-Za-z0-9_-]{43})$/i.exec(authorization?.trim() ?? '');
  if (!match) return undefined;
  const [row] = await db
    .update(scimTokens)
    .set({ lastUsedAt: sql`now()` })
    .where(eq(scimTokens.tokenHash, sha256(match[1]!)))
    .returning({ orgId: scimTokens.orgId });
  return row?.orgId;
}

// ---------------------------------------------------------------- resources

export interface ScimContext {
  db: Database;
  orgId: string;
  /** The base URL of this organization's SCIM service (…/scim/v2), for `meta.location`. */
  base: string;
  ip: string;
}

type ScimUserRow = typeof scimUsers.$inferSelect & { email: string; name: string; givenName: string | null; familyName: string | null };

function userResource(ctx: ScimContext, row: ScimUserRow) {
  return {
    schemas: [USER_SCHEMA],
    id: row.userId,
    ...(row.externalId ? { externalId: row.externalId } : {}),
    userName: row.userName,
    // name.formatted and displayName are both the name the person is shown as (one value in Portico); the parts are
    // what the directory last gave.
    name: { formatted: row.name, ...(row.givenName ? { givenName: row.givenName } : {}), ...(row.familyName ? { familyName: row.familyName } : {}) },
    displayName: row.name,
    emails: [{ value: row.email, type: 'work', primary: true }],
    active: row.active,
    meta: { resourceType: 'User', created: row.createdAt.toISOString(), lastModified: row.updatedAt.toISOString(), location: `${ctx.base}/Users/${row.userId}`, version: `W/"${row.updatedAt.getTime()}"` },
  };
}

/** A Group; its members read only when the response shows them (a large group's cost, RFC 7644 §3.9). */
async function groupResource(ctx: ScimContext, db: Queryable, team: { id: string; name: string; createdAt: Date }, scim: typeof scimGroups.$inferSelect, view: Projection = {}) {
  const members = !shows(view, 'members')
    ? undefined
    : await db
        .select({ userId: teamMembers.userId, email: users.email })
        .from(teamMembers)
        .innerJoin(users, eq(users.id, teamMembers.userId))
        .where(eq(teamMembers.teamId, team.id))
        .orderBy(asc(users.email));
  return {
    schemas: [GROUP_SCHEMA],
    id: team.id,
    ...(scim.externalId ? { externalId: scim.externalId } : {}),
    displayName: team.name,
    ...(members ? { members: members.map((member) => ({ value: member.userId, display: member.email, $ref: `${ctx.base}/Users/${member.userId}`, type: 'User' })) } : {}),
    meta: { resourceType: 'Group', created: team.createdAt.toISOString(), lastModified: scim.updatedAt.toISOString(), location: `${ctx.base}/Groups/${team.id}`, version: `W/"${scim.updatedAt.getTime()}"` },
  };
}

// ---------------------------------------------------------------- partial representations (RFC 7644 §3.9)

/**
 * Which attributes a response holds: only those `attributes` names, or all but those `excludedAttributes` names
 * (standard attribute notation, §3.10: `members`, `name.givenName`, `urn:…:User:userName`; case-insensitive). Each
 * name is its path, lower-cased: [attribute] or [attribute, sub-attribute].
 */
export interface Projection {
  only?: string[][];
  without?: string[][];
}

/** Returned whatever either parameter says: `id` ("returned": "always", RFC 7643 §3.1) and `schemas`, without which no resource is one (RFC 7643 §3). */
const ALWAYS_RETURNED = new Set(['id', 'schemas']);

export function projection(params: URLSearchParams): Projection {
  const names = (parameter: string) =>
    params
      .getAll(parameter)
      .flatMap((value) => value.split(','))
      .map((name) => name.trim().replace(/^urn:ietf:params:scim:schemas:core:2\.0:(User|Group):/i, '').toLowerCase())
      .filter((name) => name !== '')
      .map((name) => name.split('.').slice(0, 2));
  const [only, without] = [names('attributes'), names('excludedAttributes')];
  if (only.length > 0 && without.length > 0) throw scimRefusal(400, 'attributes and excludedAttributes are mutually exclusive (RFC 7644 §3.9).', 'invalidSyntax');
  return { ...(only.length > 0 ? { only } : {}), ...(without.length > 0 ? { without } : {}) };
}

/** Whether a response with this view holds the attribute (or some of its sub-attributes). */
export function shows(view: Projection, attribute: string): boolean {
  const name = attribute.toLowerCase();
  if (ALWAYS_RETURNED.has(name)) return true;
  if (view.only) return view.only.some((path) => path[0] === name);
  return !view.without?.some((path) => path.length === 1 && path[0] === name);
}

/** The resource as the view shows it. */
export function project<T extends Record<string, unknown>>(resource: T, view: Projection): Partial<T> {
  if (!view.only && !view.without) return resource;
  const shown: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(resource)) {
    const name = key.toLowerCase();
    if (ALWAYS_RETURNED.has(name)) {
      shown[key] = value;
      continue;
    }
    const paths = (view.only ?? view.without!).filter((path) => path[0] === name);
    if (view.only ? paths.length === 0 : paths.some((path) => path.length === 1)) continue;
    const subs = new Set(paths.map((path) => path[1]!).filter(Boolean));
    if (view.only ? !paths.some((path) => path.length === 1) : subs.size > 0) {
      // Some of its sub-attributes, in a complex value or in each of a multi-valued one's.
      const keep = (item: unknown) => (isObject(item) ? Object.fromEntries(Object.entries(item).filter(([sub]) => subs.has(sub.toLowerCase()) === Boolean(view.only))) : item);
      const part = Array.isArray(value) ? value.map(keep) : keep(value);
      if (isObject(part) && Object.keys(part).length === 0) continue;
      shown[key] = part;
    } else shown[key] = value;
  }
  return shown as Partial<T>;
}

function listResponse<T>(resources: T[], total: number, startIndex: number) {
  return { schemas: [LIST_SCHEMA], totalResults: total, startIndex, itemsPerPage: resources.length, Resources: resources };
}

/** RFC 7644 §3.4.2.4: startIndex is 1-based (less than 1 is 1); count is non-negative (capped here). */
export function pagination(params: URLSearchParams): { startIndex: number; count: number } {
  const start = Number.parseInt(params.get('startIndex') ?? '1', 10);
  const wanted = Number.parseInt(params.get('count') ?? String(SCIM_MAX_RESULTS), 10);
  return { startIndex: Number.isFinite(start) && start > 1 ? start : 1, count: Number.isFinite(wanted) ? Math.min(Math.max(wanted, 0), SCIM_MAX_RESULTS) : SCIM_MAX_RESULTS };
}

/**
 * The filters provisioning clients send (RFC 7644 §3.4.2.2): `<attribute> eq "<value>"` on the attributes that
 * identify a resource. Anything else is refused as invalidFilter rather than answered wrongly.
 */
export function parseEqFilter(filter: string | null, attributes: readonly string[]): { attribute: string; value: string } | undefined {
  if (filter === null || filter.trim() === '') return undefined;
  const match = /^\s*([A-Za-z][A-Za-z0-9.]*)\s+eq\s+"((?:[^"\\]|\\.)*)"\s*$/i.exec(filter);
  const attribute = match ? attributes.find((name) => name.toLowerCase() === match[1]!.toLowerCase()) : undefined;
  if (!match || !attribute) throw scimRefusal(400, `Only these filters are supported: ${attributes.map((name) => `${name} eq "…"`).join(', ')}.`, 'invalidFilter');
  let value: string;
  try {
    value = JSON.parse(`"${match[2]}"`) as string;
  } catch {
    throw scimRefusal(400, 'The filter\'s value is not a valid quoted string.', 'invalidFilter');
  }
  // A value no identifier can hold (NUL, which PostgreSQL text cannot store, or half of a surrogate pair, which is
  // no character): refused as the filter it is (RFC 7644 §3.12), never passed on to the database.
  if (/\u0000/.test(value) || !value.isWellFormed()) throw scimRefusal(400, 'The filter\'s value holds a character that no identifier has.', 'invalidFilter');
  return { attribute, value };
}

function scimUsersQuery(db: Queryable, where: SQL | undefined) {
  return db
    .select({ scim: scimUsers, email: users.email, name: users.name, givenName: users.givenName, familyName: users.familyName })
    .from(scimUsers)
    .innerJoin(users, eq(users.id, scimUsers.userId))
    .where(where);
}

const toRow = (row: { scim: typeof scimUsers.$inferSelect; email: string; name: string; givenName: string | null; familyName: string | null }): ScimUserRow => ({
  ...row.scim,
  email: row.email,
  name: row.name,
  givenName: row.givenName,
  familyName: row.familyName,
});

export async function listUsers(ctx: ScimContext, params: URLSearchParams) {
  const filter = parseEqFilter(params.get('filter'), ['userName', 'externalId', 'emails.value']);
  const { startIndex, count: limit } = pagination(params);
  const where = and(
    eq(scimUsers.orgId, ctx.orgId),
    filter?.attribute === 'userName' ? sql`lower(${scimUsers.userName}) = lower(${filter.value})` : undefined,
    filter?.attribute === 'externalId' ? eq(scimUsers.externalId, filter.value) : undefined,
    filter?.attribute === 'emails.value' ? eq(users.email, normalizeEmail(filter.value)) : undefined,
  );
  const [{ total } = { total: 0 }] = await ctx.db.select({ total: count() }).from(scimUsers).innerJoin(users, eq(users.id, scimUsers.userId)).where(where);
  const rows = limit === 0 ? [] : await scimUsersQuery(ctx.db, where).orderBy(asc(scimUsers.createdAt), asc(scimUsers.userId)).limit(limit).offset(startIndex - 1);
  return listResponse(rows.map((row) => userResource(ctx, toRow(row))), total, startIndex);
}

async function scimUserOf(db: Queryable, orgId: string, id: string): Promise<ScimUserRow> {
  const [row] = isUuid(id) ? await scimUsersQuery(db, and(eq(scimUsers.orgId, orgId), eq(scimUsers.userId, id))).limit(1) : [];
  if (!row) throw scimRefusal(404, `No User ${id.slice(0, 100)} in this organization.`);
  return toRow(row);
}

export async function getUser(ctx: ScimContext, id: string) {
  return userResource(ctx, await scimUserOf(ctx.db, ctx.orgId, id));
}

/** What a User body says, checked: RFC 7643 §4.1 (userName required; the primary email, else userName as one). */
interface UserFields {
  userName: string;
  externalId: string | null;
  email: string;
  /** The name the person is shown as (users.name): name.formatted, else the parts, else displayName. */
  name: string;
  givenName: string | null;
  familyName: string | null;
  active: boolean;
}

const text = (value: unknown, max: number): string | undefined => (typeof value === 'string' && value.trim() !== '' && value.length <= max && !/[\u0000-\u001f\u007f]/.test(value) ? value.trim() : undefined);
const bool = (value: unknown): boolean | undefined => (typeof value === 'boolean' ? value : typeof value === 'string' && /^(true|false)$/i.test(value) ? value.toLowerCase() === 'true' : undefined);

/** A part of a name (name.givenName, name.familyName): a string of at most 100 characters; null, empty or blank clears it. */
function namePart(value: unknown, label: string): string | null {
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) return null;
  const part = text(value, 100);
  if (part === undefined) throw scimRefusal(400, `${label} must be a string of at most 100 characters.`, 'invalidValue');
  return part;
}

/** A display name (displayName, name.formatted): a string of at most 200 characters; null, empty or blank is none. */
function displayValue(value: unknown, label: string): string | undefined {
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) return undefined;
  const display = text(value, 200);
  if (display === undefined) throw scimRefusal(400, `${label} must be a string of at most 200 characters.`, 'invalidValue');
  return display;
}

const fullName = (givenName: string | null, familyName: string | null): string | undefined => [givenName, familyName].filter(Boolean).join(' ') || undefined;

/**
 * A User's fields from a body (POST, PUT, or the state a PATCH left). What the body leaves out stays as `current`
 * has it; `keepName` false makes the display name follow the body alone (a PATCH that removed it or whose parts
 * changed a name made of them).
 */
function userFields(body: Record<string, unknown>, current?: UserFields, keepName = true): UserFields {
  const userName = text(body.userName, 320) ?? (body.userName === undefined ? current?.userName : undefined);
  if (!userName) throw scimRefusal(400, 'userName is required: a non-empty string of at most 320 characters.', 'invalidValue');
  const emails = Array.isArray(body.emails) ? (body.emails as { value?: unknown; primary?: unknown }[]) : [];
  const primary = emails.find((email) => email?.primary === true) ?? emails[0];
  const email = text(primary?.value, 320) ?? (emails.length === 0 && /^[^\s@]+@[^\s@]+$/.test(userName) ? userName : undefined) ?? current?.email;
  if (!email || !/^[^\s@]+@[^\s@]+$/.test(email)) throw scimRefusal(400, 'A User needs an email address (emails[primary].value, or a userName that is one).', 'invalidValue');
  if (body.name !== undefined && body.name !== null && (typeof body.name !== 'object' || Array.isArray(body.name))) {
    throw scimRefusal(400, 'name is a complex attribute: { formatted, givenName, familyName }.', 'invalidValue');
  }
  // RFC 7644 §3.5.1: a name left out of a PUT is not asserted (the parts stay); a name given is the whole of it.
  const name = body.name as { formatted?: unknown; givenName?: unknown; familyName?: unknown } | null | undefined;
  const givenName = name === undefined ? (current?.givenName ?? null) : namePart(name?.givenName, 'name.givenName');
  const familyName = name === undefined ? (current?.familyName ?? null) : namePart(name?.familyName, 'name.familyName');
  const [formatted, displayName] = [displayValue(name?.formatted, 'name.formatted'), displayValue(body.displayName, 'displayName')];
  const display = formatted ?? fullName(givenName, familyName) ?? displayName ?? (keepName ? current?.name : undefined) ?? email.split('@')[0]!;
  const active = body.active === undefined ? (current?.active ?? true) : bool(body.active);
  if (active === undefined) throw scimRefusal(400, 'active must be a boolean.', 'invalidValue');
  const externalId = body.externalId === undefined ? (current?.externalId ?? null) : body.externalId === null ? null : (text(body.externalId, 300) ?? null);
  return { userName, externalId, email: normalizeEmail(email), name: display, givenName, familyName, active };
}

async function refuseOutsideDomains(db: Queryable, orgId: string, email: string): Promise<void> {
  const domain = domainOfEmail(email);
  const [held] = domain
    ? await db
        .select({ id: orgDomains.id })
        .from(orgDomains)
        .where(and(eq(orgDomains.orgId, orgId), eq(orgDomains.domain, domain), isNotNull(orgDomains.verifiedAt)))
        .limit(1)
    : [];
  if (!held) throw scimRefusal(400, `The address ${email.slice(0, 320)} is not at one of this organization's verified domains: a directory provisions only its own people.`, 'invalidValue');
}

/** The role a provisioned person gets: the default role of the connection that signs in their domain, else member. */
async function provisionedRole(db: Queryable, orgId: string, email: string): Promise<'member' | 'admin'> {
  const domain = domainOfEmail(email);
  if (!domain) return 'member';
  const [row] = await db
    .select({ role: identityConnections.defaultRole })
    .from(orgDomains)
    .innerJoin(identityConnections, eq(identityConnections.id, orgDomains.connectionId))
    .where(and(eq(orgDomains.orgId, orgId), eq(orgDomains.domain, domain)))
    .limit(1);
  return row?.role === 'admin' ? 'admin' : 'member';
}

/**
 * The organization operation (lib/organizations/org-operation.ts) each open provisioning transaction belongs to: its
 * events are written through it, as the directory (SCIM provisioning), like every other door's.
 */
const operations = new WeakMap<Queryable, OrgOperationContext>();

function operationOf(tx: Queryable): OrgOperationContext {
  const operation = operations.get(tx);
  if (!operation) throw new Error('a SCIM change ran outside its provisioning operation');
  return operation;
}

function audit(tx: Queryable, _ctx: ScimContext, record: Omit<AuditRecord, 'orgId' | 'actor' | 'act'>) {
  return operationOf(tx).audit(record);
}

/**
 * Runs a write as one organization operation of the directory's (runOrgOperation, door `scim`): one transaction,
 * the organization's provisioning serialized (uniqueness checks hold under races).
 */
async function provisioning<T>(ctx: ScimContext, work: (tx: Transaction) => Promise<T>): Promise<T> {
  const org = await findOrganizationById(ctx.db, ctx.orgId);
  if (!org) throw scimRefusal(404, 'This organization no longer exists.');
  try {
    return await runOrgOperation(ctx.db, { org, role: null, actor: { door: 'scim', ip: ctx.ip } }, { audit: 'one_or_more' }, async (operation) => {
      const tx = operation.tx as Transaction;
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`portico:scim:${ctx.orgId}`}))`);
      operations.set(tx, operation);
      return work(tx);
    });
  } catch (error) {
    if (postgresErrorCode(error) === '23505') throw scimRefusal(409, 'A resource with this identity already exists.', 'uniqueness');
    throw error;
  }
}

async function refuseTakenUserName(tx: Queryable, orgId: string, userName: string, except?: string): Promise<void> {
  const [taken] = await tx
    .select({ userId: scimUsers.userId })
    .from(scimUsers)
    .where(and(eq(scimUsers.orgId, orgId), sql`lower(${scimUsers.userName}) = lower(${userName})`, except ? sql`${scimUsers.userId} <> ${except}` : undefined))
    .limit(1);
  if (taken) throw scimRefusal(409, `userName ${userName.slice(0, 320)} is already provisioned.`, 'uniqueness');
}

/** POST /Users (RFC 7644 §3.3). */
export async function createScimUser(ctx: ScimContext, body: Record<string, unknown>) {
  const fields = userFields(resourceBody(body, USER_RESOURCE));
  return provisioning(ctx, async (tx) => {
    await refuseOutsideDomains(tx, ctx.orgId, fields.email);
    await refuseTakenUserName(tx, ctx.orgId, fields.userName);
    let user = await findUserByEmail(tx, fields.email);
    const created = !user;
    if (user) {
      const [already] = await tx.select({ userId: scimUsers.userId }).from(scimUsers).where(and(eq(scimUsers.orgId, ctx.orgId), eq(scimUsers.userId, user.id))).limit(1);
      if (already) throw scimRefusal(409, `${fields.email} is already provisioned.`, 'uniqueness');
    } else {
      // The domain is verified: the organization controls this mailbox.
      user = await createUser(tx, { email: fields.email, name: fields.name, givenName: fields.givenName, familyName: fields.familyName, passwordHash: null, emailVerified: true });
    }
    await tx.insert(scimUsers).values({ orgId: ctx.orgId, userId: user.id, userName: fields.userName, externalId: fields.externalId, active: fields.active, createdByProvisioning: created });
    if (fields.active) await startMembership(tx, ctx, user, fields.email);
    await audit(tx, ctx, { action: 'scim.user_created', subject: { type: 'person', id: user.id, label: user.email }, details: { userName: fields.userName, accountCreated: created, active: fields.active } });
    return userResource(ctx, await scimUserOf(tx, ctx.orgId, user.id));
  });
}

/** Applies a User's new state: the account's name and address, the SCIM row, and the membership (active or not). */
async function applyUser(tx: Transaction, ctx: ScimContext, current: ScimUserRow, next: UserFields): Promise<ScimUserRow> {
  if (next.userName.toLowerCase() !== current.userName.toLowerCase()) await refuseTakenUserName(tx, ctx.orgId, next.userName, current.userId);
  if (next.email !== current.email) {
    await refuseOutsideDomains(tx, ctx.orgId, next.email);
    const owner = await findUserByEmail(tx, next.email);
    if (owner && owner.id !== current.userId) throw scimRefusal(409, `${next.email} belongs to another account.`, 'uniqueness');
  }
  const user = await findUserById(tx, current.userId);
  if (!user) throw scimRefusal(404, `No User ${current.userId}.`);
  // The account's own name and address are the directory's to change only while the account belongs to this
  // organization alone: a person who is also a member elsewhere keeps theirs (the User still says what the directory sent).
  const [elsewhere] = await tx
    .select({ orgId: memberships.orgId })
    .from(memberships)
    .where(and(eq(memberships.userId, user.id), sql`${memberships.orgId} <> ${ctx.orgId}`))
    .limit(1);
  if (elsewhere && next.email !== current.email) throw scimRefusal(400, 'This person belongs to other organizations too: their address is theirs to change, not the directory\'s.', 'mutability');
  if (!elsewhere) await tx.update(users).set({ name: next.name, givenName: next.givenName, familyName: next.familyName, email: next.email }).where(eq(users.id, user.id));
  await tx
    .update(scimUsers)
    .set({ userName: next.userName, externalId: next.externalId, active: next.active, updatedAt: sql`now()` })
    .where(and(eq(scimUsers.orgId, ctx.orgId), eq(scimUsers.userId, user.id)));
  let action = 'scim.user_updated';
  const details: Record<string, unknown> = { userName: next.userName };
  if (current.active && !next.active) {
    action = 'scim.user_deactivated';
    Object.assign(details, await endMembership(tx, ctx, user));
  } else if (!current.active && next.active) {
    action = 'scim.user_reactivated';
    await startMembership(tx, ctx, user, next.email);
  }
  await audit(tx, ctx, { action, subject: { type: 'person', id: user.id, label: next.email }, details });
  return scimUserOf(tx, ctx.orgId, user.id);
}

/**
 * The membership ends as when an admin removes the member (grants, refresh tokens, teams, agents' use, logout tokens
 * to the apps) — refused for the organization's only owner, which would leave it without one.
 */
async function endMembership(tx: Transaction, ctx: ScimContext, user: User) {
  const role = await findMembershipRole(tx, ctx.orgId, user.id);
  if (!role) return { wasMember: false };
  const operation = operationOf(tx);
  // The member command every door uses: its lock, the last-owner rule, the grants it ends, and member.removed in
  // the organization's vocabulary (its webhooks hear it, whoever removed the person). A directory may remove an owner
  // (an admin's own directory is the authority on who works there), never the only one.
  try {
    const ended = await removeMemberCommand({ tx, org: operation.org, mayTransferOwnership: true, audit: operation.audit }, user.id);
    return { wasMember: true, role, grantsRevoked: ended.grantsRevoked, teamsLeft: ended.teamsLeft, agentsLeft: ended.agentsLeft };
  } catch (error) {
    if (refusalOf(error, 'command')?.text?.key === 'refusals.members.lastOwner') throw scimRefusal(409, "The organization's only owner cannot be deactivated by provisioning.", 'mutability');
    throw error;
  }
}

/** Makes the person a member (if not one), said as member.added (its webhooks hear it) with how. */
async function startMembership(tx: Transaction, ctx: ScimContext, user: User, email: string): Promise<void> {
  if (await findMembershipRole(tx, ctx.orgId, user.id)) return;
  const role = await provisionedRole(tx, ctx.orgId, email);
  await addMember(tx, { orgId: ctx.orgId, userId: user.id, role });
  await audit(tx, ctx, { action: 'member.added', subject: { type: 'person', id: user.id, label: user.email }, details: { role } });
}

/** PUT /Users/{id} (RFC 7644 §3.5.1): the whole resource replaced. */
export async function replaceScimUser(ctx: ScimContext, id: string, body: Record<string, unknown>) {
  return provisioning(ctx, async (tx) => {
    const current = await scimUserOf(tx, ctx.orgId, id);
    const next = userFields(resourceBody(body, USER_RESOURCE), { ...current, active: true });
    return userResource(ctx, await applyUser(tx, ctx, current, next));
  });
}

interface PatchOperation {
  op: 'add' | 'replace' | 'remove';
  path?: string;
  value?: unknown;
}

/** A PatchOp body (RFC 7644 §3.5.2), its operations checked; `op` is case-insensitive (directories send "Replace"). */
export function patchOperations(body: Record<string, unknown>): PatchOperation[] {
  if (!Array.isArray(body.schemas) || !body.schemas.includes(PATCH_SCHEMA)) throw scimRefusal(400, `A PATCH body is a ${PATCH_SCHEMA}.`, 'invalidSyntax');
  const operations = body.Operations;
  if (!Array.isArray(operations) || operations.length === 0 || operations.length > 1000) throw scimRefusal(400, 'Operations must be a non-empty array.', 'invalidSyntax');
  return operations.map((operation: { op?: unknown; path?: unknown; value?: unknown }) => {
    const op = typeof operation?.op === 'string' ? operation.op.toLowerCase() : '';
    if (op !== 'add' && op !== 'replace' && op !== 'remove') throw scimRefusal(400, 'op must be add, replace or remove.', 'invalidSyntax');
    if (operation.path !== undefined && (typeof operation.path !== 'string' || operation.path.length > 300)) throw scimRefusal(400, 'path must be a string.', 'invalidPath');
    if (op === 'remove' && operation.path === undefined) throw scimRefusal(400, 'A remove operation needs a path (RFC 7644 §3.5.2.2).', 'noTarget');
    return { op, path: operation.path as string | undefined, value: operation.value };
  });
}

/**
 * PATCH /Users/{id}: the attributes Portico keeps (active, userName, name, displayName, externalId, emails) change;
 * the others a directory sends are ignored, `id` may only be repeated.
 */
export async function patchScimUser(ctx: ScimContext, id: string, body: Record<string, unknown>) {
  const operations = patchOperations(body);
  return provisioning(ctx, async (tx) => {
    const current = await scimUserOf(tx, ctx.orgId, id);
    const state: Record<string, unknown> = { userName: current.userName, externalId: current.externalId, emails: [{ value: current.email, primary: true }], active: current.active };
    // The name the person is shown as (name.formatted and displayName are one value here), undefined once removed.
    let display: string | undefined = current.name;
    let displayWritten = false;
    let givenName = current.givenName;
    let familyName = current.familyName;
    for (const operation of operations) {
      for (const { target, value, path } of operationTargets(operation, USER_RESOURCE)) {
        const { attribute, sub } = target;
        if (target.schema !== USER_SCHEMA || !USER_RESOURCE.kept.has(attribute)) {
          if (attribute === 'id') refuseIdChange(operation, value, current.userId);
          else if (attribute === 'groups') throw scimRefusal(400, 'groups is read-only on a User: membership changes go to the Group (RFC 7643 §4.1.2).', 'mutability');
          continue; // not kept: an extension's, phone numbers, addresses, … — and meta, which a server ignores (RFC 7643 §3.1)
        }
        if (attribute === 'name' && sub !== undefined && !NAME_KEPT.includes(sub)) continue;
        if (attribute === 'emails' && sub !== undefined && sub !== 'value') continue;
        const key = sub === undefined ? attribute : `${attribute}.${sub}`;
        if (operation.op === 'remove') {
          if (key === 'externalId') state.externalId = null;
          else if (key === 'name.givenName') givenName = null;
          else if (key === 'name.familyName') familyName = null;
          else if (key === 'displayName' || key === 'name.formatted' || key === 'name') {
            [display, displayWritten] = [undefined, true];
            if (key === 'name') [givenName, familyName] = [null, null];
          } else throw scimRefusal(400, `${path.slice(0, 100)} cannot be removed.`, 'mutability');
        } else if (key === 'active') state.active = value;
        else if (key === 'userName') state.userName = value;
        else if (key === 'externalId') state.externalId = value;
        else if (key === 'displayName' || key === 'name.formatted') [display, displayWritten] = [displayValue(value, path), true];
        else if (key === 'name.givenName') givenName = namePart(value, 'name.givenName');
        else if (key === 'name.familyName') familyName = namePart(value, 'name.familyName');
        else if (key === 'name') {
          // RFC 7644 §3.5.2.1, §3.5.2.3: the sub-attributes given replace theirs; the others stay.
          if (!isObject(value)) throw scimRefusal(400, 'name is a complex attribute: { formatted, givenName, familyName }.', 'invalidValue');
          const parts = nameValue(value, 'invalidPath');
          if ('formatted' in parts) [display, displayWritten] = [displayValue(parts.formatted, 'name.formatted'), true];
          if ('givenName' in parts) givenName = namePart(parts.givenName, 'name.givenName');
          if ('familyName' in parts) familyName = namePart(parts.familyName, 'name.familyName');
        } else {
          // emails, emails[type eq "work"], emails[type eq "work"].value: the address Portico keeps is the one given.
          state.emails = Array.isArray(value) ? value : [{ value: isObject(value) ? value.value : value, primary: true }];
        }
      }
    }
    // A display name made of the parts follows them, unless the operations set it themselves.
    const madeOfParts = current.name === fullName(current.givenName, current.familyName);
    if (!displayWritten && madeOfParts && (givenName !== current.givenName || familyName !== current.familyName)) display = undefined;
    state.name = { formatted: display, givenName, familyName };
    const next = userFields(state, current, display !== undefined);
    return userResource(ctx, await applyUser(tx, ctx, current, next));
  });
}

/** DELETE /Users/{id} (RFC 7644 §3.6): the person leaves the organization; the account stays (it may be elsewhere). */
export async function deleteScimUser(ctx: ScimContext, id: string): Promise<void> {
  await provisioning(ctx, async (tx) => {
    const current = await scimUserOf(tx, ctx.orgId, id);
    const user = await findUserById(tx, current.userId);
    const ended = user ? await endMembership(tx, ctx, user) : {};
    await tx.delete(scimUsers).where(and(eq(scimUsers.orgId, ctx.orgId), eq(scimUsers.userId, current.userId)));
    await audit(tx, ctx, { action: 'scim.user_deleted', subject: { type: 'person', id: current.userId, label: current.email }, details: { userName: current.userName, ...ended } });
  });
}

// ---------------------------------------------------------------- groups (teams)

async function scimGroupOf(db: Queryable, orgId: string, id: string) {
  const [row] = isUuid(id)
    ? await db
        .select({ team: teams, scim: scimGroups })
        .from(scimGroups)
        .innerJoin(teams, eq(teams.id, scimGroups.teamId))
        .where(and(eq(scimGroups.orgId, orgId), eq(scimGroups.teamId, id)))
        .limit(1)
    : [];
  if (!row) throw scimRefusal(404, `No Group ${id.slice(0, 100)} in this organization.`);
  return row;
}

export async function listGroups(ctx: ScimContext, params: URLSearchParams, view: Projection = {}) {
  const filter = parseEqFilter(params.get('filter'), ['displayName', 'externalId']);
  const { startIndex, count: limit } = pagination(params);
  const where = and(
    eq(scimGroups.orgId, ctx.orgId),
    filter?.attribute === 'displayName' ? sql`lower(${teams.name}) = lower(${filter.value})` : undefined,
    filter?.attribute === 'externalId' ? eq(scimGroups.externalId, filter.value) : undefined,
  );
  const [{ total } = { total: 0 }] = await ctx.db.select({ total: count() }).from(scimGroups).innerJoin(teams, eq(teams.id, scimGroups.teamId)).where(where);
  const rows = limit === 0 ? [] : await ctx.db.select({ team: teams, scim: scimGroups }).from(scimGroups).innerJoin(teams, eq(teams.id, scimGroups.teamId)).where(where).orderBy(asc(teams.createdAt), asc(teams.id)).limit(limit).offset(startIndex - 1);
  const resources = [];
  for (const row of rows) resources.push(await groupResource(ctx, ctx.db, row.team, row.scim, view));
  return listResponse(resources, total, startIndex);
}

export async function getGroup(ctx: ScimContext, id: string, view: Projection = {}) {
  const row = await scimGroupOf(ctx.db, ctx.orgId, id);
  return groupResource(ctx, ctx.db, row.team, row.scim, view);
}

/** The members a Group body names: provisioned, active Users of this organization (by their id). */
async function memberIds(tx: Queryable, orgId: string, members: unknown): Promise<string[]> {
  if (members === undefined || members === null) return [];
  if (!Array.isArray(members) || members.length > 10_000) throw scimRefusal(400, 'members must be an array of { value: <User id> }.', 'invalidValue');
  const ids = [...new Set(members.map((member: { value?: unknown }) => (typeof member?.value === 'string' ? member.value : '')))];
  if (ids.some((memberId) => !isUuid(memberId))) throw scimRefusal(400, 'Each member is { value: <User id> } of a provisioned User.', 'invalidValue');
  if (ids.length === 0) return [];
  const known = await tx
    .select({ userId: scimUsers.userId })
    .from(scimUsers)
    .where(and(eq(scimUsers.orgId, orgId), inArray(scimUsers.userId, ids), eq(scimUsers.active, true)));
  if (known.length !== ids.length) throw scimRefusal(400, 'A member is not an active User provisioned in this organization.', 'invalidValue');
  return ids;
}

function groupName(value: unknown): string {
  const name = text(value, 100);
  if (!name) throw scimRefusal(400, 'displayName is required: a non-empty string of at most 100 characters.', 'invalidValue');
  return name;
}

async function refuseTakenTeamName(tx: Queryable, orgId: string, name: string, except?: string) {
  const [taken] = await tx
    .select({ id: teams.id })
    .from(teams)
    .where(and(eq(teams.orgId, orgId), sql`lower(${teams.name}) = lower(${name})`, except ? sql`${teams.id} <> ${except}` : undefined))
    .limit(1);
  if (taken) throw scimRefusal(409, `A team called ${name} already exists.`, 'uniqueness');
}

async function setMembers(tx: Queryable, teamId: string, ids: string[]) {
  await tx.delete(teamMembers).where(and(eq(teamMembers.teamId, teamId), ids.length > 0 ? sql`${teamMembers.userId} not in (${sql.join(ids.map((id) => sql`${id}::uuid`), sql`, `)})` : undefined));
  if (ids.length > 0) await tx.insert(teamMembers).values(ids.map((userId) => ({ teamId, userId }))).onConflictDoNothing();
}

export async function createScimGroup(ctx: ScimContext, request: Record<string, unknown>) {
  const body = resourceBody(request, GROUP_RESOURCE);
  const name = groupName(body.displayName);
  return provisioning(ctx, async (tx) => {
    await refuseTakenTeamName(tx, ctx.orgId, name);
    const ids = await memberIds(tx, ctx.orgId, body.members);
    const [team] = await tx.insert(teams).values({ orgId: ctx.orgId, name }).returning();
    const [scim] = await tx.insert(scimGroups).values({ teamId: team!.id, orgId: ctx.orgId, externalId: text(body.externalId, 300) ?? null }).returning();
    await setMembers(tx, team!.id, ids);
    await audit(tx, ctx, { action: 'scim.group_created', subject: { type: 'team', id: team!.id, label: name }, details: { members: ids.length } });
    return groupResource(ctx, tx, team!, scim!);
  });
}

export async function replaceScimGroup(ctx: ScimContext, id: string, request: Record<string, unknown>) {
  const body = resourceBody(request, GROUP_RESOURCE);
  const name = groupName(body.displayName);
  return provisioning(ctx, async (tx) => {
    const row = await scimGroupOf(tx, ctx.orgId, id);
    await refuseTakenTeamName(tx, ctx.orgId, name, row.team.id);
    const ids = await memberIds(tx, ctx.orgId, body.members);
    const [team] = await tx.update(teams).set({ name }).where(eq(teams.id, row.team.id)).returning();
    const [scim] = await tx.update(scimGroups).set({ externalId: body.externalId === undefined ? row.scim.externalId : (text(body.externalId, 300) ?? null), updatedAt: sql`now()` }).where(eq(scimGroups.teamId, row.team.id)).returning();
    await setMembers(tx, row.team.id, ids);
    await audit(tx, ctx, { action: 'scim.group_updated', subject: { type: 'team', id: row.team.id, label: name }, details: { members: ids.length } });
    return groupResource(ctx, tx, team!, scim!);
  });
}

/**
 * PATCH /Groups/{id}: displayName, externalId, and members added, removed (`members[value eq "…"]`) or replaced;
 * `id` may only be repeated (Okta's rename sends it in the value), `meta` and `schemas` are ignored.
 */
export async function patchScimGroup(ctx: ScimContext, id: string, body: Record<string, unknown>) {
  const operations = patchOperations(body);
  return provisioning(ctx, async (tx) => {
    const row = await scimGroupOf(tx, ctx.orgId, id);
    let name = row.team.name;
    let externalId = row.scim.externalId;
    const current = (await tx.select({ userId: teamMembers.userId }).from(teamMembers).where(eq(teamMembers.teamId, row.team.id))).map((member) => member.userId);
    const members = new Set(current);
    for (const operation of operations) {
      for (const { target, value, path } of operationTargets(operation, GROUP_RESOURCE)) {
        const { attribute, filter, sub } = target;
        if (attribute === 'id') refuseIdChange(operation, value, row.team.id);
        else if (attribute === 'meta' || attribute === 'schemas') continue; // the server's own (RFC 7643 §3.1)
        else if (attribute === 'displayName') {
          if (operation.op === 'remove') throw scimRefusal(400, 'displayName cannot be removed: a Group has one.', 'mutability');
          name = groupName(value);
        } else if (attribute === 'externalId') externalId = operation.op === 'remove' ? null : (text(value, 300) ?? null);
        else if (attribute === 'members' && sub === undefined && filter !== undefined) {
          // Okta's `members[value eq "<id>"]`, to remove one member.
          if (operation.op !== 'remove') throw scimRefusal(400, `${path.slice(0, 100)}: a value filter on members is for remove only here.`, 'invalidPath');
          const one = /^\s*value\s+eq\s+"([^"]*)"\s*$/i.exec(filter);
          if (!one) throw scimRefusal(400, 'Members are removed by `members[value eq "<User id>"]` only.', 'invalidFilter');
          members.delete(one[1]!);
        } else if (attribute === 'members' && sub === undefined && operation.op === 'remove') {
          if (value === undefined) members.clear();
          else for (const member of Array.isArray(value) ? value : []) members.delete(String((member as { value?: unknown })?.value ?? ''));
        } else if (attribute === 'members' && sub === undefined) {
          const ids = await memberIds(tx, ctx.orgId, value);
          if (operation.op === 'replace') members.clear();
          for (const memberId of ids) members.add(memberId);
        } else throw scimRefusal(400, `${path.slice(0, 100)}: members change as a whole or by members[value eq "<User id>"].`, 'invalidPath');
      }
    }
    if (name !== row.team.name) await refuseTakenTeamName(tx, ctx.orgId, name, row.team.id);
    const [team] = await tx.update(teams).set({ name }).where(eq(teams.id, row.team.id)).returning();
    const [scim] = await tx.update(scimGroups).set({ externalId, updatedAt: sql`now()` }).where(eq(scimGroups.teamId, row.team.id)).returning();
    await setMembers(tx, row.team.id, [...members]);
    await audit(tx, ctx, { action: 'scim.group_updated', subject: { type: 'team', id: row.team.id, label: name }, details: { members: members.size } });
    return groupResource(ctx, tx, team!, scim!);
  });
}

export async function deleteScimGroup(ctx: ScimContext, id: string): Promise<void> {
  await provisioning(ctx, async (tx) => {
    const row = await scimGroupOf(tx, ctx.orgId, id);
    await tx.delete(teams).where(eq(teams.id, row.team.id));
    await audit(tx, ctx, { action: 'scim.group_deleted', subject: { type: 'team', id: row.team.id, label: row.team.name } });
  });
}

// ---------------------------------------------------------------- discovery (RFC 7644 §4)

export function serviceProviderConfig(base: string) {
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
    documentationUri: `${base.replace(/\/scim\/v2$/, '')}/docs/accounts#scim`,
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: SCIM_MAX_RESULTS },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [{ type: 'oauthbearertoken', name: 'Bearer token', description: 'The organization’s SCIM token, made in Settings → Identity (shown once).', primary: true }],
    meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
  };
}

export function resourceTypes(base: string) {
  const types = [
    { id: 'User', name: 'User', endpoint: '/Users', schema: USER_SCHEMA, description: 'A person of the organization' },
    { id: 'Group', name: 'Group', endpoint: '/Groups', schema: GROUP_SCHEMA, description: 'A team of the organization' },
  ].map((type) => ({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'], ...type, meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/${type.id}` } }));
  return listResponse(types, types.length, 1);
}

const attribute = (name: string, type: string, extra: Record<string, unknown> = {}) => ({ name, type, multiValued: false, required: false, caseExact: false, mutability: 'readWrite', returned: 'default', uniqueness: 'none', ...extra });

export function schemas(base: string) {
  const list = [
    {
      id: USER_SCHEMA,
      name: 'User',
      description: 'User Account',
      attributes: [
        attribute('userName', 'string', { required: true, uniqueness: 'server' }),
        attribute('name', 'complex', { subAttributes: [attribute('formatted', 'string'), attribute('givenName', 'string'), attribute('familyName', 'string')] }),
        attribute('displayName', 'string'),
        attribute('emails', 'complex', { multiValued: true, subAttributes: [attribute('value', 'string'), attribute('type', 'string'), attribute('primary', 'boolean')] }),
        attribute('active', 'boolean'),
        attribute('externalId', 'string', { caseExact: true }),
      ],
    },
    {
      id: GROUP_SCHEMA,
      name: 'Group',
      description: 'Group',
      attributes: [
        attribute('displayName', 'string', { required: true, uniqueness: 'server' }),
        attribute('members', 'complex', { multiValued: true, subAttributes: [attribute('value', 'string', { mutability: 'immutable' }), attribute('display', 'string', { mutability: 'readOnly' })] }),
        attribute('externalId', 'string', { caseExact: true }),
      ],
    },
  ].map((schema) => ({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'], ...schema, meta: { resourceType: 'Schema', location: `${base}/Schemas/${schema.id}` } }));
  return listResponse(list, list.length, 1);
}
