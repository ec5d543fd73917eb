// The AuthZEN search APIs (§8), where Portico's data answers them: which members or agents of the app's organization
// may do an action on a resource; which of the app's tools a subject may call; which actions (the app's permissions,
// or `call` on a tool) a subject may take on a resource. Every result is one the evaluation API would answer true
// for now: each candidate is decided by the same evaluator. Portico does not know an app's own records (its todos),
// so a resource search of another type answers no results.
import { AGENT_ID } from '../util/agent-id';
import { and, asc, eq, gt, isNull } from 'drizzle-orm';
import { agents, memberships, users } from '../db/schema';
import { CALL_ACTION, createEvaluator, OWN_SUFFIX, TOOL_RESOURCE, type PdpCaller, type PdpDeps } from './decisions';
import { parseAction, parseEntity, parsePage, typeOnly, type Parsed } from './requests';
import { catalogSourcesOf, listPermissionCatalog } from '../clients/permission-catalog';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 200;
/** Candidates decided for one page at most: a page may come back short, with a token to go on. */
const SCAN_PER_PAGE = 200;

interface SearchAnswer {
  page: { next_token: string; count: number };
  results: Record<string, unknown>[];
}

function limitOf(limit: number | undefined): number {
  return Math.min(limit === undefined || limit === 0 ? DEFAULT_LIMIT : limit, MAX_LIMIT);
}

/** §8.2 Subject search: members (`user`) or agents (`agent`) of the organization, in id order, keyset-paged. */
export async function searchSubjects(deps: PdpDeps, caller: PdpCaller, body: Record<string, unknown>): Promise<Parsed<SearchAnswer>> {
  const subject = typeOnly(body.subject, 'subject');
  if (!subject.ok) return subject;
  const resource = parseEntity(body.resource, 'resource');
  if (!resource.ok) return resource;
  const action = parseAction(body.action);
  if (!action.ok) return action;
  const page = parsePage(body.page);
  if (!page.ok) return page;
  const limit = limitOf(page.value.limit);
  const after = page.value.token ?? '';
  const type = subject.value.type;
  if (type !== 'user' && type !== 'agent') return { ok: true, value: { page: { next_token: '', count: 0 }, results: [] } };
  // The token is the last id a page decided (a member's uuid, an agent's id): anything else was not given by this search.
  if (after && !(type === 'user' ? /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/ : AGENT_ID).test(after)) return { ok: false, error: 'page.token is not one this search gave' };
  const candidates =
    type === 'user'
      ? (
          await deps.db
            .select({ id: users.id })
            .from(memberships)
            .innerJoin(users, eq(users.id, memberships.userId))
            .where(and(eq(memberships.orgId, caller.app.orgId), isNull(users.disabledAt), after ? gt(users.id, after) : undefined))
            .orderBy(asc(users.id))
            .limit(SCAN_PER_PAGE)
        ).map((row) => row.id)
      : (
          await deps.db
            .select({ id: agents.id })
            .from(agents)
            .where(and(eq(agents.orgId, caller.app.orgId), isNull(agents.disabledAt), after ? gt(agents.id, after) : undefined))
            .orderBy(asc(agents.id))
            .limit(SCAN_PER_PAGE)
        ).map((row) => row.id);
  const evaluator = createEvaluator(caller.app, deps);
  const results: Record<string, unknown>[] = [];
  let last = '';
  for (const id of candidates) {
    last = id;
    const outcome = await evaluator.evaluate({ subject: { type, id }, resource: resource.value, action: action.value });
    if (outcome.decision.allowed) results.push({ type, id });
    if (results.length === limit) break;
  }
  const more = candidates.length === SCAN_PER_PAGE || (results.length === limit && last !== candidates[candidates.length - 1]);
  return { ok: true, value: { page: { next_token: more ? last : '', count: results.length }, results } };
}

/** §8.3 Resource search: the app's tools the subject may call. Other resource types: Portico holds none of them. */
export async function searchResources(deps: PdpDeps, caller: PdpCaller, body: Record<string, unknown>): Promise<Parsed<SearchAnswer>> {
  const subject = parseEntity(body.subject, 'subject');
  if (!subject.ok) return subject;
  const resource = typeOnly(body.resource, 'resource');
  if (!resource.ok) return resource;
  const action = parseAction(body.action);
  if (!action.ok) return action;
  const page = parsePage(body.page);
  if (!page.ok) return page;
  if (resource.value.type !== TOOL_RESOURCE || action.value.name !== CALL_ACTION) return { ok: true, value: { page: { next_token: '', count: 0 }, results: [] } };
  const evaluator = createEvaluator(caller.app, deps);
  const names = ((await catalogSourcesOf(deps.db, caller.app.id)).declaration ?? []).map((tool) => tool.name).sort();
  const allowed: string[] = [];
  for (const name of names) {
    if ((await evaluator.evaluate({ subject: subject.value, resource: { type: TOOL_RESOURCE, id: name }, action: action.value })).decision.allowed) allowed.push(name);
  }
  return { ok: true, value: paged(allowed.map((id) => ({ type: TOOL_RESOURCE, id })), page.value.token, limitOf(page.value.limit)) };
}

/** §8.4 Action search: `call` on a tool the subject may call; on another resource, the permissions that allow it. */
export async function searchActions(deps: PdpDeps, caller: PdpCaller, body: Record<string, unknown>): Promise<Parsed<SearchAnswer>> {
  const subject = parseEntity(body.subject, 'subject');
  if (!subject.ok) return subject;
  const resource = parseEntity(body.resource, 'resource');
  if (!resource.ok) return resource;
  const page = parsePage(body.page);
  if (!page.ok) return page;
  const evaluator = createEvaluator(caller.app, deps);
  const candidates =
    resource.value.type === TOOL_RESOURCE
      ? [CALL_ACTION]
      : [...new Set((await listPermissionCatalog(deps.db, caller.app.id)).filter((entry) => !entry.retired).map((entry) => (entry.scope.endsWith(OWN_SUFFIX) ? entry.scope.slice(0, -OWN_SUFFIX.length) : entry.scope)))].sort();
  const allowed: string[] = [];
  for (const name of candidates) {
    if ((await evaluator.evaluate({ subject: subject.value, resource: resource.value, action: { name } })).decision.allowed) allowed.push(name);
  }
  return { ok: true, value: paged(allowed.map((name) => ({ name })), page.value.token, limitOf(page.value.limit)) };
}

/** A short list, paged by position: the token is the index of the next result. */
function paged(results: Record<string, unknown>[], token: string | undefined, limit: number): SearchAnswer {
  const start = token && /^\d{1,6}$/.test(token) ? Number(token) : 0;
  const slice = results.slice(start, start + limit);
  const next = start + limit < results.length ? String(start + limit) : '';
  return { page: { next_token: next, count: slice.length }, results: slice };
}


