// The SCIM schemas' attributes (RFC 7643 §3.1, §4, §8.7.1): what a directory may send, which Portico keeps, and
// attribute paths as PATCH and `attributes` name them.
import { and } from 'drizzle-orm';
import { scimRefusal } from '../refusal-codes';
import { ENTERPRISE_USER_SCHEMA, GROUP_SCHEMA, USER_SCHEMA, isObject } from './resources';

/**
 * Every attribute the schemas define, by resource, with its sub-attributes: what a directory may send. Portico keeps
 * some (`kept`); the others a server may ignore (RFC 7644 §3.3, §3.5.1), and Portico does, on POST, PUT and PATCH
 * alike — Entra ID's default mapping sends phone numbers, addresses and the enterprise extension on every change.
 * A name no schema Portico knows defines (a typo such as `userNme`) is refused; an attribute of an extension schema
 * Portico does not know (a directory's own `urn:…`) is ignored, as a POST always ignored it.
 */
export interface ResourceSchema {
  name: 'User' | 'Group';
  core: string;
  attributes: Record<string, readonly string[]>;
  extensions: Record<string, Record<string, readonly string[]>>;
  kept: ReadonlySet<string>;
}

const MULTI_VALUED_SUBS = ['value', 'display', 'type', 'primary', '$ref'];

const COMMON_ATTRIBUTES = { id: [], externalId: [], meta: ['resourceType', 'created', 'lastModified', 'location', 'version'], schemas: [] };

const MULTI_VALUED = new Set(['schemas', 'emails', 'phoneNumbers', 'ims', 'photos', 'addresses', 'groups', 'entitlements', 'roles', 'x509Certificates', 'members']);

export const NAME_KEPT = ['formatted', 'givenName', 'familyName'];

export const USER_RESOURCE: ResourceSchema = {
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

export const GROUP_RESOURCE: ResourceSchema = {
  name: 'Group',
  core: GROUP_SCHEMA,
  attributes: { ...COMMON_ATTRIBUTES, displayName: [], members: ['value', '$ref', 'type', 'display'] },
  extensions: {},
  kept: new Set(['displayName', 'members', 'externalId']),
};

/** An attribute path (RFC 7644 §3.10, §3.5.2): its schema, and the attribute, value filter and sub-attribute if any. */
export interface AttributePath {
  schema: string;
  /** The name as the schema spells it; none when the path is the schema itself (its attributes are the value's). */
  attribute?: string;
  filter?: string;
  sub?: string;
}

const named = (names: Iterable<string>, name: string) => [...names].find((candidate) => candidate.toLowerCase() === name.toLowerCase());

/**
 * Resolves a PATCH path or a body's attribute name, case-insensitively (RFC 7643 §2.1), with or without its schema's
 * URN. Undefined: an attribute of an extension schema Portico does not know. A name the resource's schemas do not
 * define, or a malformed path, is refused with `scimType` (invalidPath in a PATCH, invalidSyntax in a body).
 */
export function attributePath(raw: string, resource: ResourceSchema, scimType: 'invalidPath' | 'invalidSyntax'): AttributePath | undefined {
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
export function resourceBody(body: Record<string, unknown>, resource: ResourceSchema): Record<string, unknown> {
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
export function nameValue(value: Record<string, unknown>, scimType: 'invalidPath' | 'invalidSyntax'): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [key, part] of Object.entries(value)) {
    const sub = named(USER_RESOURCE.attributes.name!, key);
    if (!sub) throw scimRefusal(400, `name.${key.slice(0, 100)} is not an attribute of a User (RFC 7643).`, scimType);
    if (NAME_KEPT.includes(sub)) kept[sub] = part;
  }
  return kept;
}
