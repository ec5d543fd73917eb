// The shapes of OpenID AuthZEN Authorization API 1.0 (final, January 2026) requests, read strictly: a required
// member missing or of the wrong type is a 400 naming it (§ "Transport": a missing required attribute is a 400);
// unknown members are ignored, as the specification requires of receivers.

/** §5.1 Subject / §5.2 Resource: `type` and `id` REQUIRED strings, `properties` an OPTIONAL object. */
export interface AuthzenEntity {
  type: string;
  id: string;
  properties?: Record<string, unknown>;
}

/** §5.3 Action: `name` REQUIRED, `properties` OPTIONAL. */
export interface AuthzenAction {
  name: string;
  properties?: Record<string, unknown>;
}

export interface AuthzenEvaluation {
  subject: AuthzenEntity;
  resource: AuthzenEntity;
  action: AuthzenAction;
  context?: Record<string, unknown>;
}

export const EVALUATIONS_SEMANTICS = ['execute_all', 'deny_on_first_deny', 'permit_on_first_permit'] as const;
export type EvaluationsSemantic = (typeof EVALUATIONS_SEMANTICS)[number];

/** The most evaluations one batch may carry: a page of a list view, not a crawl. */
export const MAX_EVALUATIONS = 500;
/** Identifiers and type names are short strings; an access token presented as a subject is the longest. */
const MAX_ID_LENGTH = 8192;
const MAX_TYPE_LENGTH = 128;

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function entityOf(value: unknown, what: 'subject' | 'resource'): Parsed<AuthzenEntity> {
  if (!isObject(value)) return { ok: false, error: `${what} is required: an object with "type" and "id"` };
  const { type, id, properties } = value;
  if (typeof type !== 'string' || type.length < 1 || type.length > MAX_TYPE_LENGTH) return { ok: false, error: `${what}.type is required: a string of 1-${MAX_TYPE_LENGTH} characters` };
  if (typeof id !== 'string' || id.length < 1 || id.length > MAX_ID_LENGTH) return { ok: false, error: `${what}.id is required: a non-empty string` };
  if (properties !== undefined && !isObject(properties)) return { ok: false, error: `${what}.properties must be an object` };
  return { ok: true, value: { type, id, ...(properties ? { properties } : {}) } };
}

function actionOf(value: unknown): Parsed<AuthzenAction> {
  if (!isObject(value)) return { ok: false, error: 'action is required: an object with "name"' };
  const { name, properties } = value;
  if (typeof name !== 'string' || name.length < 1 || name.length > MAX_TYPE_LENGTH) return { ok: false, error: `action.name is required: a string of 1-${MAX_TYPE_LENGTH} characters` };
  if (properties !== undefined && !isObject(properties)) return { ok: false, error: 'action.properties must be an object' };
  return { ok: true, value: { name, ...(properties ? { properties } : {}) } };
}

/** One Access Evaluation request (§6.1). */
export function parseEvaluation(value: unknown): Parsed<AuthzenEvaluation> {
  if (!isObject(value)) return { ok: false, error: 'the request must be a JSON object' };
  const subject = entityOf(value.subject, 'subject');
  if (!subject.ok) return subject;
  const resource = entityOf(value.resource, 'resource');
  if (!resource.ok) return resource;
  const action = actionOf(value.action);
  if (!action.ok) return action;
  if (value.context !== undefined && value.context !== null && !isObject(value.context)) return { ok: false, error: 'context must be an object' };
  return { ok: true, value: { subject: subject.value, resource: resource.value, action: action.value, ...(isObject(value.context) ? { context: value.context } : {}) } };
}

export interface AuthzenBatch {
  /** Each item after the top-level defaults were applied; an item that is still incomplete carries its error. */
  items: Parsed<AuthzenEvaluation>[];
  semantic: EvaluationsSemantic;
  /** No `evaluations` (or an empty array): the request is a single evaluation (§7.1, backwards compatible). */
  single: boolean;
}

/**
 * An Access Evaluations request (§7.1). The top-level `subject`, `action`, `resource` and `context` are defaults; a
 * key given in an item replaces the default whole (no merging of members). An item that ends up without a required
 * key is answered `decision: false` with its error, its neighbours still decided (§7.2.2: per-item errors).
 */
export function parseEvaluations(value: unknown): Parsed<AuthzenBatch> {
  if (!isObject(value)) return { ok: false, error: 'the request must be a JSON object' };
  const options = value.options;
  if (options !== undefined && !isObject(options)) return { ok: false, error: 'options must be an object' };
  const semantic = (options as Record<string, unknown> | undefined)?.evaluations_semantic ?? 'execute_all';
  if (!EVALUATIONS_SEMANTICS.includes(semantic as EvaluationsSemantic)) return { ok: false, error: `options.evaluations_semantic must be one of ${EVALUATIONS_SEMANTICS.join(', ')}` };
  const evaluations = value.evaluations;
  if (evaluations !== undefined && !Array.isArray(evaluations)) return { ok: false, error: 'evaluations must be an array' };
  if (!evaluations || evaluations.length === 0) {
    const single = parseEvaluation(value);
    if (!single.ok) return single;
    return { ok: true, value: { items: [single], semantic: semantic as EvaluationsSemantic, single: true } };
  }
  if (evaluations.length > MAX_EVALUATIONS) return { ok: false, error: `evaluations may hold at most ${MAX_EVALUATIONS} items` };
  const defaults = { subject: value.subject, resource: value.resource, action: value.action, context: value.context };
  const items = evaluations.map((item) => {
    if (!isObject(item)) return { ok: false as const, error: 'each evaluation must be an object' };
    const merged: Record<string, unknown> = { ...defaults };
    for (const key of ['subject', 'resource', 'action', 'context'] as const) if (item[key] !== undefined) merged[key] = item[key];
    return parseEvaluation(merged);
  });
  return { ok: true, value: { items, semantic: semantic as EvaluationsSemantic, single: false } };
}

/** Search requests (§8): the entity searched for gives only its `type`; its `id`, if sent, is ignored. */
export interface AuthzenPage {
  token?: string;
  limit?: number;
}

export function parsePage(value: unknown): Parsed<AuthzenPage> {
  if (value === undefined || value === null) return { ok: true, value: {} };
  if (!isObject(value)) return { ok: false, error: 'page must be an object' };
  const { token, limit } = value;
  if (token !== undefined && typeof token !== 'string') return { ok: false, error: 'page.token must be a string' };
  if (limit !== undefined && (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 0)) return { ok: false, error: 'page.limit must be a non-negative integer' };
  return { ok: true, value: { ...(token ? { token } : {}), ...(limit !== undefined ? { limit } : {}) } };
}

export function typeOnly(value: unknown, what: 'subject' | 'resource'): Parsed<{ type: string }> {
  if (!isObject(value) || typeof value.type !== 'string' || value.type.length < 1 || value.type.length > MAX_TYPE_LENGTH) return { ok: false, error: `${what}.type is required` };
  return { ok: true, value: { type: value.type } };
}

export { entityOf as parseEntity, actionOf as parseAction };
