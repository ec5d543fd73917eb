// The AuthZEN doors' one answer: each route file names its operation; authentication of the PEP, the body's cap and
// shape, the X-Request-ID echo and every refusal's shape are decided here, once.
import { localKeys } from '../mcp/authenticate';
import { parseJsonObject, readJsonObject } from '../http/errors';
import { hitRateLimit, type RateLimitRule } from '../rate-limit/fixed-window';
import { Refusal } from '../refusals/refusal';
import { db, runtime } from '../runtime';
import { accessRequestStatus, cancelAccessRequest, problemResponse, submitAccessRequest } from './access-requests';
import { authenticatePep, authzenError, evaluateBatch, requestIdHeaders, type PdpCaller, type PdpDeps } from './pdp';
import { parseEvaluation, parseEvaluations } from './requests';
import { searchActions, searchResources, searchSubjects } from './search';

/** A batch of 500 evaluations with defaults fits; nothing larger is read. */
export const AUTHZEN_BODY_LIMIT = 512 * 1024;
const BODY_LIMIT = AUTHZEN_BODY_LIMIT;

function pdpDeps(): PdpDeps {
  const { env, publicJwks, atRestKey } = runtime();
  return { db: db(), issuer: env.PORTICO_ISSUER, keys: localKeys(publicJwks), atRestKey };
}

type Operation = (deps: PdpDeps, caller: PdpCaller, body: Record<string, unknown>) => Promise<{ status?: number; body: unknown; headers?: Record<string, string> }>;

/** The costly doors, per asking client: a search decides many candidates, a request notifies operators. */
export const AUTHZEN_SEARCHES_PER_CLIENT: RateLimitRule = { name: 'authzen:search:client', limit: 120, windowSeconds: 60 };
export const AUTHZEN_REQUESTS_PER_CLIENT: RateLimitRule = { name: 'authzen:request:client', limit: 60, windowSeconds: 60 };

async function answer(request: Request, operation: Operation, readsBody = true, limit?: RateLimitRule, bodyText?: string): Promise<Response> {
  const deps = pdpDeps();
  const headers = requestIdHeaders(request);
  const authenticated = await authenticatePep(deps.db, request);
  if (!authenticated.ok) return authenticated.response;
  if (limit) {
    const state = await hitRateLimit(deps.db, limit, authenticated.caller.clientId);
    if (state.limited) return authzenError(request, 429, 'slow_down', 'too many requests from this client: try again later', { 'Retry-After': String(state.retryAfterSeconds) });
  }
  let body: Record<string, unknown> = {};
  if (readsBody) {
    if (!(request.headers.get('content-type') ?? '').toLowerCase().startsWith('application/json')) return authzenError(request, 415, 'invalid_request', 'send the request as application/json');
    // server.ts hands the body over already read (capped at the same size); Next's route reads it here.
    const read = bodyText !== undefined ? parseJsonObject(bodyText) : await readJsonObject(request, BODY_LIMIT);
    if (!read.ok) return authzenError(request, read.status, 'invalid_request', read.description);
    body = read.value;
  }
  try {
    const result = await operation(deps, authenticated.caller, body);
    return Response.json(result.body, { status: result.status ?? 200, headers: { ...headers, ...result.headers } });
  } catch (error) {
    if (error instanceof BadRequest) return authzenError(request, 400, 'invalid_request', error.message);
    if (error instanceof Refusal) return problemResponse(error, headers);
    throw error;
  }
}

/** A request the API cannot read (a required member missing, say): 400 with what is wrong. */
export class BadRequest extends Error {}

export const evaluationRoute = (request: Request, bodyText?: string) =>
  answer(request, async (deps, caller, body) => {
    // One decision: members this API does not define here (`evaluations`, `options`) are ignored, as §"Transport" asks.
    const single = parseEvaluation(body);
    if (!single.ok) throw new BadRequest(single.error);
    return { body: await evaluateBatch(deps, caller, { items: [single], semantic: 'execute_all', single: true }) };
  }, true, undefined, bodyText);

export const evaluationsRoute = (request: Request, bodyText?: string) =>
  answer(request, async (deps, caller, body) => {
    const batch = parseEvaluations(body);
    if (!batch.ok) throw new BadRequest(batch.error);
    return { body: await evaluateBatch(deps, caller, batch.value) };
  }, true, undefined, bodyText);

export const searchRoute = (kind: 'subject' | 'resource' | 'action') => (request: Request) =>
  answer(request, async (deps, caller, body) => {
    const search = kind === 'subject' ? searchSubjects : kind === 'resource' ? searchResources : searchActions;
    const result = await search(deps, caller, body);
    if (!result.ok) throw new BadRequest(result.error);
    return { body: result.value };
  }, true, AUTHZEN_SEARCHES_PER_CLIENT);

export const accessRequestSubmitRoute = (request: Request) =>
  answer(request, async (deps, caller, body) => {
    const { task } = await submitAccessRequest(deps, caller, body);
    const status = (task.task as { status_endpoint: string }).status_endpoint;
    return { status: 202, body: task, headers: { Location: status } };
  }, true, AUTHZEN_REQUESTS_PER_CLIENT);

export const accessRequestStatusRoute = (request: Request, taskId: string) => answer(request, async (deps, caller) => ({ body: await accessRequestStatus(deps, caller, taskId) }), false);

export const accessRequestCancelRoute = (request: Request, taskId: string) => answer(request, async (deps, caller) => ({ body: await cancelAccessRequest(deps, caller, taskId) }), false);
