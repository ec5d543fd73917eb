// What SCIM's users and groups share (RFC 7644): the schemas' names, the context of a request, partial
// representations (§3.9), pagination and filters (§3.4.2), and each write as one organization operation of the
// directory's (lib/organizations/org-operation.ts).
import { and, count, eq, sql } from 'drizzle-orm';
import { runOrgOperation, type OrgOperationContext } from '../../organizations/org-operation';
import { findOrganizationById } from '../../organizations/organizations';
import type { AuditRecord } from '../../audit/events';
import { postgresErrorCode, type Database, type Queryable, type Transaction } from '../../db/client';
import { scimRefusal } from '../refusal-codes';

export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export const SCIM_MAX_RESULTS = 200;

export const SCIM_BODY_LIMIT = 1024 * 1024;

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';

export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';

const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

export const ENTERPRISE_USER_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

export interface ScimContext {
  db: Database;
  orgId: string;
  /** The base URL of this organization's SCIM service (…/scim/v2), for `meta.location`. */
  base: string;
  ip: string;
}

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

export function listResponse<T>(resources: T[], total: number, startIndex: number) {
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

export const text = (value: unknown, max: number): string | undefined => (typeof value === 'string' && value.trim() !== '' && value.length <= max && !/[\u0000-\u001f\u007f]/.test(value) ? value.trim() : undefined);

export const bool = (value: unknown): boolean | undefined => (typeof value === 'boolean' ? value : typeof value === 'string' && /^(true|false)$/i.test(value) ? value.toLowerCase() === 'true' : undefined);

/**
 * The organization operation (lib/organizations/org-operation.ts) each open provisioning transaction belongs to: its
 * events are written through it, as the directory (SCIM provisioning), like every other door's.
 */
const operations = new WeakMap<Queryable, OrgOperationContext>();

export function operationOf(tx: Queryable): OrgOperationContext {
  const operation = operations.get(tx);
  if (!operation) throw new Error('a SCIM change ran outside its provisioning operation');
  return operation;
}

export function audit(tx: Queryable, record: Omit<AuditRecord, 'orgId' | 'actor' | 'act'>) {
  return operationOf(tx).audit(record);
}

/**
 * Runs a write as one organization operation of the directory's (runOrgOperation, door `scim`): one transaction,
 * the organization's provisioning serialized (uniqueness checks hold under races).
 */
export async function provisioning<T>(ctx: ScimContext, work: (tx: Transaction) => Promise<T>): Promise<T> {
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
