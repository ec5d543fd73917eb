// An app's permission catalog: what may be granted on it. Three sources, one list:
// - the baseline `mcp` ("use the app's tools"), which every member's token carries;
// - every scope the app's declared surface names (the kit's `requiredScopes` per tool);
// - scopes an admin added, each with a short human description.
// An admin may describe a declared scope, and retire any but the baseline: a retired permission leaves the catalog.
import { and, eq, sql } from 'drizzle-orm';
import { readCacheOf, type Queryable } from '../db/client';
import { appPermissions } from '../db/schema';
import { surfaceStateOf } from './surface';
import type { SurfaceTool } from '../../app-kit/surface';
import { DEFAULT_LOCALE, localized, translator } from '../i18n/catalogs';
import { commandRefusal } from '../organizations/refusal-codes';
import { catalogRefusal } from './refusal-codes';

export const BASELINE_SCOPE = 'mcp';

/** The baseline first, then by name: tokens, consent screens and explanations list scopes alike. */
export function sortScopes(scopes: Iterable<string>): string[] {
  return [...scopes].sort((a, b) => (a === BASELINE_SCOPE ? -1 : b === BASELINE_SCOPE ? 1 : a.localeCompare(b)));
}

/** RFC 6749 §3.3 scope tokens as Portico accepts them: 1-64 letters, digits or `: . _ -`. */
export const SCOPE_TOKEN = /^[A-Za-z0-9:._-]{1,64}$/;

export interface CatalogPermission {
  scope: string;
  /** The admin's words, or a description made from the tools that need it. */
  description: string;
  /** Where it comes from: the baseline, the app's declared surface, an admin. Declared and added may both be true. */
  baseline: boolean;
  declared: boolean;
  added: boolean;
  /** The declared tools that need it (from the surface). */
  tools: string[];
  retired: boolean;
  /** The description is Portico's words (the baseline's, or made from the tools), not an admin's: see `describedIn`. */
  portico: boolean;
}

/** Portico's own description of a catalog entry in a language: the baseline's, or the tools that need it. */
function porticoDescription(entry: { baseline: boolean; tools: readonly string[] }, locale: string = DEFAULT_LOCALE): string {
  const t = translator(locale, 'console.catalog');
  return entry.baseline ? t('baseline') : t('neededBy', { tools: entry.tools.join(', ') });
}

/** An entry's description as a person reads it: an admin's as written, Portico's in the person's language. */
export function describedIn(entry: Pick<CatalogPermission, 'description' | 'baseline' | 'tools' | 'portico'>, locale: string): string {
  return entry.portico ? porticoDescription(entry, locale) : entry.description;
}

function checkScope(scope: string): void {
  if (!SCOPE_TOKEN.test(scope)) throw catalogRefusal(localized('refusals.catalog.scopeToken'));
  if (scope === BASELINE_SCOPE) throw catalogRefusal(localized('refusals.catalog.baseline', { scope: BASELINE_SCOPE }));
}

function checkDescription(description: string): string {
  const trimmed = description.trim();
  if (trimmed.length < 1 || trimmed.length > 200) throw catalogRefusal(localized('refusals.catalog.description'));
  return trimmed;
}

/** What a catalog is made of: the tools the app declared and its admins' rows (read together, cached together). */
export interface CatalogSources {
  declaration: readonly SurfaceTool[] | null;
  rows: readonly { scope: string; description: string; added: boolean; retired: boolean }[];
}

/**
 * The app's declared tools and catalog rows, from the per-process read cache when they are there: every token
 * request and decision for the app reads them, and any change to either (by any instance) drops them at commit
 * (migration 0061's triggers notify the app's tag). Read directly inside a transaction.
 */
export async function catalogSourcesOf(db: Queryable, appId: string): Promise<CatalogSources> {
  const load = async (): Promise<CatalogSources> => {
    const [state, rows] = await Promise.all([surfaceStateOf(db, appId), db.select().from(appPermissions).where(eq(appPermissions.appId, appId))]);
    return { declaration: state.declaration, rows: rows.map((row) => ({ scope: row.scope, description: row.description, added: row.added, retired: Boolean(row.retiredAt) })) };
  };
  const cache = readCacheOf(db);
  return (cache ? await cache.read(`catalog:${appId}`, load, () => [`apps:${appId}`]) : undefined) ?? (await load());
}

/** The whole catalog, retired entries included (marked), baseline first, then by scope. */
export async function listPermissionCatalog(db: Queryable, appId: string): Promise<CatalogPermission[]> {
  const { declaration, rows } = await catalogSourcesOf(db, appId);
  const declared = new Map<string, string[]>();
  for (const tool of declaration ?? []) {
    for (const scope of tool.requiredScopes) declared.set(scope, [...(declared.get(scope) ?? []), tool.name]);
  }
  const byScope = new Map(rows.map((row) => [row.scope, row]));
  const scopes = new Set([...declared.keys(), ...rows.map((row) => row.scope)]);
  scopes.delete(BASELINE_SCOPE);
  const entries: CatalogPermission[] = [...scopes].sort().map((scope) => {
    const row = byScope.get(scope);
    const tools = declared.get(scope) ?? [];
    return {
      scope,
      description: row?.description ?? porticoDescription({ baseline: false, tools }),
      baseline: false,
      declared: tools.length > 0,
      added: row?.added ?? false,
      tools,
      retired: Boolean(row?.retired),
      portico: row?.description === undefined,
    };
  });
  // A row for a scope neither declared nor added is a description left over from a declaration: not in the catalog.
  const offered = entries.filter((entry) => entry.declared || entry.added);
  const baselineTools = declared.get(BASELINE_SCOPE) ?? [];
  return [
    { scope: BASELINE_SCOPE, description: porticoDescription({ baseline: true, tools: baselineTools }), baseline: true, declared: baselineTools.length > 0, added: false, tools: baselineTools, retired: false, portico: true },
    ...offered,
  ];
}

/** The scopes the app offers now (no retired ones). */
export async function offeredScopes(db: Queryable, appId: string): Promise<string[]> {
  return (await listPermissionCatalog(db, appId)).filter((entry) => !entry.retired).map((entry) => entry.scope);
}

/**
 * Grants (to a team, a person or an agent) name a permission the app offers now: anything else is refused, so an
 * admin never manages a grant that no token can carry.
 */
export async function refuseUnlessOffered(db: Queryable, app: { id: string; name: string }, scope: string): Promise<void> {
  if (!(await offeredScopes(db, app.id)).includes(scope)) {
    throw commandRefusal(400, localized('refusals.catalog.notOffered', { scope, app: app.name }), 'unknown_scope');
  }
}

/** Adds a permission (or describes a declared one, or brings back a retired one) with its description. */
export async function addPermission(db: Queryable, appId: string, input: { scope: string; description: string }): Promise<{ created: boolean }> {
  checkScope(input.scope);
  const description = checkDescription(input.description);
  const [existing] = await db.select().from(appPermissions).where(and(eq(appPermissions.appId, appId), eq(appPermissions.scope, input.scope)));
  if (existing) {
    await db
      .update(appPermissions)
      .set({ description, added: true, retiredAt: null })
      .where(and(eq(appPermissions.appId, appId), eq(appPermissions.scope, input.scope)));
    return { created: false };
  }
  await db.insert(appPermissions).values({ appId, scope: input.scope, description, added: true });
  return { created: true };
}

/** Changes the description of a permission in the catalog (declared or added). */
export async function describePermission(db: Queryable, appId: string, input: { scope: string; description: string }): Promise<void> {
  checkScope(input.scope);
  const description = checkDescription(input.description);
  const entry = (await listPermissionCatalog(db, appId)).find((permission) => permission.scope === input.scope);
  if (!entry) throw catalogRefusal(localized('refusals.catalog.notInCatalog', { scope: input.scope }));
  await db
    .insert(appPermissions)
    .values({ appId, scope: input.scope, description, added: false })
    .onConflictDoUpdate({ target: [appPermissions.appId, appPermissions.scope], set: { description } });
}

/** Retires a permission: it leaves the catalog. The baseline cannot be retired. */
export async function retirePermission(db: Queryable, appId: string, scope: string): Promise<void> {
  checkScope(scope);
  const entry = (await listPermissionCatalog(db, appId)).find((permission) => permission.scope === scope);
  if (!entry || entry.retired) throw catalogRefusal(localized('refusals.catalog.notActive', { scope }));
  await db
    .insert(appPermissions)
    .values({ appId, scope, description: entry.description.slice(0, 200), added: entry.added, retiredAt: sql`now()` })
    .onConflictDoUpdate({ target: [appPermissions.appId, appPermissions.scope], set: { retiredAt: sql`now()` } });
}

/** Brings a retired permission back. */
export async function restorePermission(db: Queryable, appId: string, scope: string): Promise<void> {
  const updated = await db
    .update(appPermissions)
    .set({ retiredAt: null })
    .where(and(eq(appPermissions.appId, appId), eq(appPermissions.scope, scope)))
    .returning({ scope: appPermissions.scope });
  if (updated.length === 0) throw catalogRefusal(localized('refusals.catalog.notRetired', { scope }));
}

