// The REST API's one wrapper: authenticate (Portico API bearer token), resolve the organization, authorize by the
// person's role there (an agent acting for them lends nothing and adds nothing), run the change in one transaction
// with its audit event, and answer every failure as JSON in OAuth's error shape, never a stack trace.
import { authorizeOrgOperation, runOrgOperation } from '@/lib/organizations/org-operation';
import type { MembershipRole, Organization } from '@/lib/organizations/organizations';
import type { OrgPermission } from '@/lib/organizations/permissions';
import { authenticateApiRequest, type ApiCaller } from '@/lib/mcp/authenticate';
import type { AuditRecord } from '@/lib/audit/events';
import type { Queryable } from '@/lib/db/client';
import { oauthError, readJsonObject } from '@/lib/http/errors';
import { Refusal } from '@/lib/refusals/refusal';
import { porticoConfirmationGate } from '@/lib/confirmations/store';
import { auditToolEvent } from '@/lib/mcp/audit';
import { findPorticoTool } from '@/lib/mcp/tools';
import { CONFIRMATION_TOKEN_PARAMETER } from '@/app-kit/risk';
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { db, runtime } from '@/lib/runtime';

export const MAX_API_BODY_BYTES = 16 * 1024;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    description: string,
  ) {
    super(description);
  }
}

export function apiError(status: number, error: string, description: string): Response {
  return oauthError(status, error, description);
}

export interface OrgRouteContext {
  caller: ApiCaller;
  org: Organization;
  role: MembershipRole;
  /** The request's transaction (or, for a route declared without one, the database itself). */
  tx: Queryable;
  params: Record<string, string | string[] | undefined>;
  /** The request's URL (its query string, for reads). */
  url: URL;
  /** The JSON body (objects only), read with a size cap. */
  body(): Promise<Record<string, unknown>>;
  audit(record: Omit<AuditRecord, 'orgId' | 'actor' | 'act'>): Promise<void>;
}

/**
 * `transaction: false` is for a handler that calls Portico over HTTP (its token endpoint): a transaction held
 * open across that call could wait on itself (the embedded database has one connection).
 */
/**
 * A route that does what one of Portico's critical MCP tools does goes through the same confirmation gate, so the
 * REST door cannot skip it: `tool` names the tool (its level, description and warning apply), `args` gives the
 * operation's arguments the token binds to.
 */
export interface RouteConfirmation {
  tool: string;
  args(params: OrgRouteContext['params'], body: Record<string, unknown>): Record<string, unknown>;
}

export function orgRoute(
  permission: OrgPermission,
  handler: (ctx: OrgRouteContext) => Promise<Response>,
  options: {
    transaction?: boolean;
    scopes?: readonly string[];
    confirm?: RouteConfirmation | ((params: OrgRouteContext['params']) => RouteConfirmation | undefined);
    /** Refusals this route says in its own words, by code (what the route's callers must not tell apart). */
    restated?: Readonly<Record<string, { status: number; error: string; description: string }>>;
    /**
     * The route's wire names for the fields a refusal may be about (`publicKey` → `public_key`): the answer's
     * description names the field before the words ("public_key: …"), as an input's refusal does.
     */
    fields?: Readonly<Record<string, string>>;
  } = {},
) {
  return async (request: Request, route: { params: Promise<Record<string, string | string[] | undefined>> }): Promise<Response> => {
    const { env, publicJwks } = runtime();
    const authentication = await authenticateApiRequest(request, { db: db(), issuer: env.PORTICO_ISSUER, publicJwks }, options.scopes);
    if (!authentication.ok) return authentication.response;
    const { caller } = authentication;
    const params = await route.params;
    let authorized: Awaited<ReturnType<typeof authorizeOrgOperation>>;
    try {
      authorized = await authorizeOrgOperation(db(), String(params.org ?? ''), caller.user, permission);
    } catch (error) {
      return refusalAnswer(error);
    }
    const { org, role } = authorized;

    const ip = clientIpFromHeaders(request.headers);
    // The body is read before the transaction opens: a slow client never holds a database connection.
    const bodyRead = request.method === 'GET' ? new ApiError(400, 'invalid_request', 'a GET has no body') : await readJsonBody(request);
    // Before the transaction: the challenge must be stored even though nothing else happens (and the embedded
    // database has one connection, which a transaction would hold).
    const confirmation = typeof options.confirm === 'function' ? options.confirm(params) : options.confirm;
    if (confirmation) {
      // A call without a JSON body (415) is a first call without a token; any other bad body is answered as such.
      if (bodyRead instanceof ApiError && bodyRead.status !== 415) return apiError(bodyRead.status, bodyRead.error, bodyRead.message);
      const held = await confirmationRefusal(confirmation, caller, params, bodyRead instanceof ApiError ? {} : bodyRead, ip);
      if (held) return held;
    }
    const actor = { person: caller.user, ip, door: 'rest' as const, agentId: caller.agentId ?? null, tokenClientId: caller.token.clientId };
    try {
      return await runOrgOperation(
        db(),
        { org, role, actor },
        // A refusal answered as a response writes no event; a change writes one.
        { audit: request.method === 'GET' ? 'none' : 'at_most_one', transaction: options.transaction !== false },
        ({ tx, audit }) =>
          handler({
            caller,
            org,
            role,
            tx,
            params,
            url: new URL(request.url),
            async body() {
              if (bodyRead instanceof ApiError) throw bodyRead;
              return bodyRead;
            },
            audit,
          }),
      );
    } catch (error) {
      if (error instanceof ApiError) return apiError(error.status, error.error, error.message);
      return refusalAnswer(error, options.restated, options.fields);
    }
  };
}

/**
 * The REST door's one answer to a refusal: OAuth's shape with the refusal's status and code (lib/http/errors.ts), its
 * English words, after the field's wire name when the route names it; a code the route restates in its own. Anything
 * else is thrown on (a 500 without a stack trace).
 */
function refusalAnswer(error: unknown, restated: Readonly<Record<string, { status: number; error: string; description: string }>> = {}, fields: Readonly<Record<string, string>> = {}): Response {
  if (!(error instanceof Refusal)) throw error;
  const own = restated[error.code];
  if (own) return apiError(own.status, own.error, own.description);
  const field = error.field !== undefined && Object.hasOwn(fields, error.field) ? fields[error.field] : undefined;
  return apiError(error.status, error.code, field ? `${field}: ${error.message}` : error.message);
}

/** Undefined when the call may run (not approval_required, or a valid confirmation token); else the 428 answer. */
async function confirmationRefusal(confirmation: RouteConfirmation, caller: ApiCaller, params: OrgRouteContext['params'], body: Record<string, unknown>, ip: string): Promise<Response | undefined> {
  const tool = findPorticoTool(confirmation.tool);
  if (!tool) throw new Error(`the route names the unknown tool ${confirmation.tool}`);
  const riskLevel = runtime().riskLevels[tool.name] ?? tool.riskLevel;
  const args = { ...confirmation.args(params, body), ...(body[CONFIRMATION_TOKEN_PARAMETER] !== undefined ? { [CONFIRMATION_TOKEN_PARAMETER]: body[CONFIRMATION_TOKEN_PARAMETER] } : {}) };
  const { env } = runtime();
  const decision = await porticoConfirmationGate(db(), {
    issuer: env.PORTICO_ISSUER,
    mode: env.PORTICO_CONFIRMATION_MODE,
    // The REST door answers programs in OAuth's shape: its error_description and challenge text stay English
    // (docs/i18n.md); the confirmation page the person opens is in their language.
    locale: async () => 'en',
  }).check(
    { name: tool.name, description: tool.description, riskLevel, warning: tool.warning },
    args,
    { subject: caller.user.id, actor: caller.agentId, clientId: caller.token.clientId },
  );
  if (decision.run) return undefined;
  const noStore = { 'Cache-Control': 'no-store' };
  // RFC 6585 §3: 428 until the call may run (waiting: the token stays valid; denied: it is spent).
  if (decision.outcome === 'waiting') return Response.json({ error: 'waiting_for_confirmation', error_description: decision.text, tool: tool.name }, { status: 428, headers: noStore });
  if (decision.outcome === 'denied') return Response.json({ error: 'confirmation_denied', error_description: decision.text, tool: tool.name }, { status: 403, headers: noStore });
  const { [CONFIRMATION_TOKEN_PARAMETER]: _token, ...callArguments } = args;
  await auditToolEvent(db(), ip, caller)({ tool: tool.name, riskLevel, outcome: 'challenge_issued', subject: caller.user.id, actor: caller.agentId, clientId: caller.token.clientId, arguments: callArguments });
  const { challenge } = decision;
  return Response.json(
    {
      error: 'confirmation_required',
      error_description: challenge.text,
      tool: tool.name,
      confirmation_token: challenge.token,
      expires_at: challenge.expiresAt.toISOString(),
      ...(challenge.confirmationUrl ? { confirmation_url: challenge.confirmationUrl } : {}),
    },
    { status: 428, headers: noStore },
  );
}

async function readJsonBody(request: Request): Promise<Record<string, unknown> | ApiError> {
  if (!(request.headers.get('content-type') ?? '').toLowerCase().startsWith('application/json')) return new ApiError(415, 'invalid_request', 'send JSON (Content-Type: application/json)');
  const read = await readJsonObject(request, MAX_API_BODY_BYTES);
  return read.ok ? read.value : new ApiError(read.status, 'invalid_request', read.description);
}
