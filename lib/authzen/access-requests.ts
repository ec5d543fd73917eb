// After a denial, a request: the AuthZEN Access Request and Approval Profile (working-group Draft 1, 2026), with
// Portico as both the decision point and the access request service, sharing one database (the profile's "lookup"
// pattern). A requestable denial carries a binding token; submitted back, it starts an access request in the
// approval central (kind sensitive_access on `/tools/<name>`, profile work), where the organization's policies,
// quorum, notifications and audit apply. The task is the central's request (`apr_…`); once approved, the result says
// "re-evaluate" with the grant as the approval, and evaluations answer true while the grant lasts.
import { createHash, createHmac } from 'node:crypto';
import canonicalize from 'canonicalize';
import { and, count, eq, gt, sql } from 'drizzle-orm';
import { approvalRequests } from '../db/schema';
import { jwtVerify, SignJWT } from 'jose';
import { approvalStatusFor, cancelApprovalRequest, createApprovalRequest, findApprovalRequest, MAX_CENTRAL_DURATION_SECONDS, type ApprovalRequest, type ApprovalStatus } from '../approvals/broker';
import { isApprovalRequestId } from '../approvals/central-urls';
import { Refusal } from '../refusals/refusal';
import type { Database, Queryable } from '../db/client';
import { approvalNotifier } from '../notifications/notify';
import { createEvaluator, toolGrantPath, type PdpCaller, type PdpDeps } from './decisions';
import { parseAction, parseEntity, type AuthzenEntity, type AuthzenEvaluation } from './requests';
import { centralRequestUrl } from '../approvals/central-urls';

/** How long a requestable denial may be turned into a request (the profile's `access_request.expires_at`). */
export const DENIAL_BINDING_SECONDS = 600;
/** Without `requested_until`, an hour; never longer than the central may grant. */
const DEFAULT_GRANT_SECONDS = 3600;
const BINDING_TYPE = 'portico-authzen-denial+jwt';

function bindingKey(atRestKey: Uint8Array): Uint8Array {
  return createHmac('sha256', atRestKey).update('portico authzen denial binding v1').digest();
}

/**
 * What a binding covers (the profile's exact-match baseline): the subject, resource and action as the PEP sent
 * them, less `subject.properties.act` (which a PEP may normalize), in RFC 8785 form, hashed.
 */
function bindingDigest(request: Pick<AuthzenEvaluation, 'subject' | 'resource' | 'action'>): string {
  const { act: _act, ...subjectProperties } = request.subject.properties ?? {};
  const subject = { ...request.subject, ...(request.subject.properties ? { properties: subjectProperties } : {}) };
  return createHash('sha256').update(canonicalize({ subject, resource: request.resource, action: request.action })!).digest('base64url');
}

/**
 * The binding token of a requestable denial: a JWS (HS256, a key derived from Portico's at-rest key) that only
 * Portico verifies — the PEP returns it unchanged and reads nothing in it, so no public key is published for it.
 */
export async function mintDenialBinding(deps: Pick<PdpDeps, 'issuer' | 'atRestKey'>, input: { evaluationId: string; appId: string; request: AuthzenEvaluation; expiresAt: Date }): Promise<string> {
  return new SignJWT({ app: input.appId, bind: bindingDigest(input.request) })
    .setProtectedHeader({ alg: 'HS256', typ: BINDING_TYPE })
    .setIssuer(deps.issuer)
    .setAudience(`${deps.issuer}/access/v1/requests`)
    .setJti(input.evaluationId)
    .setIssuedAt()
    .setExpirationTime(Math.floor(input.expiresAt.getTime() / 1000))
    .sign(bindingKey(deps.atRestKey));
}

type ProblemCode = 'not_requestable' | 'expired_denial' | 'invalid_denial_binding' | 'unknown_task' | 'invalid_task_state' | 'invalid_request';

/** The profile's errors (§ "Error Responses"): answered as RFC 9457 problem details with its type URNs. */
export function accessRequestProblem(code: ProblemCode, message: string, status: number): Refusal {
  return new Refusal({ status, code, text: message, domain: 'authzen' });
}

/** A refusal as problem details: the profile's own codes by their URN; the broker's (a full queue, say) by their code. */
export function problemResponse(problem: Refusal, headers: Record<string, string>): Response {
  const type = problem.domain === 'authzen' && problem.code !== 'invalid_request' ? `urn:openid:authzen:access-request:error:${problem.code}` : 'about:blank';
  return new Response(JSON.stringify({ type, title: problem.code, status: problem.status, detail: problem.message }), {
    status: problem.status,
    headers: { ...headers, 'Content-Type': 'application/problem+json' },
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The task in the profile's shape (§ "Access Request Response"), from the central's request and its status. */
export function taskOf(issuer: string, request: ApprovalRequest, status: ApprovalStatus, grant?: { id: string; grantedAt: Date; expiresAt: Date | null }): Record<string, unknown> {
  const statusEndpoint = `${issuer}/access/v1/requests/${request.id}`;
  const canonical = status === 'request_expired' ? 'expired' : status === 'grant_expired' || status === 'grant_revoked' ? 'approved' : status === 'unknown' ? 'failed' : status;
  const task = {
    id: request.id,
    status: canonical,
    status_endpoint: statusEndpoint,
    expires_at: request.expiresAt.toISOString(),
    links: { review: centralRequestUrl(request.id, issuer), ...(canonical === 'pending' ? { cancel: `${statusEndpoint}/cancel` } : {}) },
  };
  if (canonical !== 'approved' || !grant) return { task };
  return {
    task,
    // Re-evaluation is the one completion mode: the grant is the approval the PDP looks up (§ "Completion Semantics").
    result: { mode: 'reevaluate', approval: { id: grant.id, approved_at: grant.grantedAt.toISOString(), ...(grant.expiresAt ? { approved_until: grant.expiresAt.toISOString() } : {}) } },
  };
}

/**
 * Starts an access request from a requestable denial: the binding must be Portico's, unexpired, for this app and for
 * exactly this subject, resource and action; the evaluation must still deny only for want of an approval.
 */
export async function submitAccessRequest(deps: PdpDeps, caller: PdpCaller, body: Record<string, unknown>): Promise<{ task: Record<string, unknown>; request: ApprovalRequest }> {
  const invalid = (message: string) => accessRequestProblem('invalid_request', message, 400);
  if (body.items !== undefined) throw accessRequestProblem('not_requestable', 'bundled requests (items) are not supported: submit one request per denial', 400);
  const subject = parseEntity(body.subject, 'subject');
  if (!subject.ok) throw invalid(subject.error);
  const resource = parseEntity(body.resource, 'resource');
  if (!resource.ok) throw invalid(resource.error);
  const action = parseAction(body.action);
  if (!action.ok) throw invalid(action.error);
  const denial = body.denial;
  if (!isObject(denial) || typeof denial.binding_token !== 'string' || denial.binding_token.length > 4096) {
    throw accessRequestProblem('invalid_denial_binding', 'denial.binding_token is required: the one the denial’s access_request carried, unchanged', 400);
  }
  const request: AuthzenEvaluation = { subject: subject.value, resource: resource.value, action: action.value };
  const now = deps.now?.() ?? new Date();
  let claims: { app?: unknown; bind?: unknown; jti?: string };
  try {
    ({ payload: claims } = await jwtVerify(denial.binding_token, bindingKey(deps.atRestKey), {
      algorithms: ['HS256'],
      typ: BINDING_TYPE,
      issuer: deps.issuer,
      audience: `${deps.issuer}/access/v1/requests`,
      currentDate: now,
      requiredClaims: ['exp', 'jti'],
    }));
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_JWT_EXPIRED') throw accessRequestProblem('expired_denial', 'the denial may no longer be turned into a request: evaluate again', 400);
    throw accessRequestProblem('invalid_denial_binding', 'the binding token is not one Portico issued', 400);
  }
  if (claims.app !== caller.app.id || claims.bind !== bindingDigest(request)) {
    throw accessRequestProblem('invalid_denial_binding', 'the binding token is for another subject, resource, action or app', 400);
  }
  // Decided again now: a subject who lost the permission meanwhile, or already holds a grant, has nothing to request.
  const evaluator = createEvaluator(caller.app, deps);
  const outcome = await evaluator.evaluate(request);
  if (outcome.decision.allowed || outcome.decision.reason !== 'approval_required' || !outcome.subject?.personId || !outcome.operation?.tool) {
    throw accessRequestProblem('not_requestable', outcome.decision.allowed ? 'the evaluation already allows this: evaluate again' : 'this denial cannot be lifted by an approval', 400);
  }
  const requested = isObject(body.requested_access) ? body.requested_access.requested_until : undefined;
  let durationSeconds = DEFAULT_GRANT_SECONDS;
  if (requested !== undefined) {
    const until = typeof requested === 'string' ? Date.parse(requested) : Number.NaN;
    if (!Number.isFinite(until)) throw invalid('requested_access.requested_until must be an RFC 3339 timestamp');
    durationSeconds = Math.round((until - now.getTime()) / 1000);
    if (durationSeconds < 60 || durationSeconds > MAX_CENTRAL_DURATION_SECONDS) throw invalid(`requested_access.requested_until must be between one minute and ${MAX_CENTRAL_DURATION_SECONDS / 3600} hours from now`);
  }
  const justification = isObject(body.context) ? body.context.business_justification : undefined;
  if (justification !== undefined && (typeof justification !== 'string' || justification.trim().length === 0 || justification.length > 1000 || /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(justification))) {
    throw invalid('context.business_justification must be text of 1-1000 characters, without control characters');
  }
  const subjectUserId = outcome.subject.personId;
  const actor = outcome.subject.actor;
  const path = toolGrantPath(outcome.operation.tool);
  const appName = caller.app.name;
  const created = await deps.db.transaction(async (tx) => {
    // One pending request per person, actor and tool from an app: a denial submitted again (or several times at
    // once, or from a fresh denial) answers the request already waiting, so an app cannot flood operators or a
    // person's queue. The lock makes "look, then create" one step across instances.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`authzen-request:${caller.app.id}:${subjectUserId}`}, 0))`);
    const waiting = await pendingRequestOf(tx, { appId: caller.app.id, subjectUserId, actor, resource: path });
    if (waiting) return waiting;
    const fromApp = await pendingFromApp(tx, caller.clientId, subjectUserId);
    if (fromApp >= MAX_PENDING_PER_APP_AND_PERSON) throw accessRequestProblem('not_requestable', `this app already has ${MAX_PENDING_PER_APP_AND_PERSON} access requests waiting for this person`, 429);
    const reason = typeof justification === 'string' ? justification : `Requested by ${appName} after a denial: ${action.value.name} on ${resource.value.type} ${resource.value.id}`;
    // The broker's own transaction runs inside this one (a savepoint): its queue limits and audit apply unchanged.
    return createApprovalRequest(
      tx as unknown as Database,
      {
        orgId: caller.app.orgId,
        appId: caller.app.id,
        subjectUserId,
        ...(actor ? { actor } : {}),
        clientId: caller.clientId,
        kind: 'sensitive_access',
        resource: path,
        profile: 'work',
        durationSeconds,
        reason: reason.slice(0, 1000),
      },
      caller.actor,
      approvalNotifier({ issuer: deps.issuer, atRestKey: deps.atRestKey }),
    );
  });
  return { task: taskOf(deps.issuer, created, 'pending'), request: created };
}

/** Pending requests an app may have opened for one person through the decision point, at most. */
export const MAX_PENDING_PER_APP_AND_PERSON = 8;

async function pendingRequestOf(db: Queryable, input: { appId: string; subjectUserId: string; actor: string; resource: string }): Promise<ApprovalRequest | undefined> {
  const [row] = await db
    .select()
    .from(approvalRequests)
    .where(
      and(
        eq(approvalRequests.appId, input.appId),
        eq(approvalRequests.subjectUserId, input.subjectUserId),
        eq(approvalRequests.actor, input.actor),
        eq(approvalRequests.kind, 'sensitive_access'),
        eq(approvalRequests.resource, input.resource),
        eq(approvalRequests.state, 'pending'),
        gt(approvalRequests.expiresAt, sql`now()`),
      ),
    )
    .limit(1);
  return row;
}

/** Pending requests the app's own client opened for this person (through the decision point: MCP clients' are theirs). */
async function pendingFromApp(db: Queryable, clientId: string, subjectUserId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(approvalRequests)
    .where(and(eq(approvalRequests.clientId, clientId), eq(approvalRequests.subjectUserId, subjectUserId), eq(approvalRequests.state, 'pending'), gt(approvalRequests.expiresAt, sql`now()`)));
  return row?.n ?? 0;
}

/** The app's own request, or nothing: another app's task is unknown to it (the profile's `unknown_task`). */
async function ownRequest(db: Database, caller: PdpCaller, taskId: string): Promise<ApprovalRequest> {
  const request = isApprovalRequestId(taskId) ? await findApprovalRequest(db, taskId) : undefined;
  if (!request || request.appId !== caller.app.id || request.clientId !== caller.clientId) throw accessRequestProblem('unknown_task', 'no such access request of this app', 404);
  return request;
}

export async function accessRequestStatus(deps: PdpDeps, caller: PdpCaller, taskId: string): Promise<Record<string, unknown>> {
  const request = await ownRequest(deps.db, caller, taskId);
  const { status, grant } = await approvalStatusFor(deps.db, request.id, request.subjectUserId);
  return taskOf(deps.issuer, request, status, grant);
}

export async function cancelAccessRequest(deps: PdpDeps, caller: PdpCaller, taskId: string): Promise<Record<string, unknown>> {
  const request = await ownRequest(deps.db, caller, taskId);
  const { status } = await approvalStatusFor(deps.db, request.id, request.subjectUserId);
  if (status !== 'pending') throw accessRequestProblem('invalid_task_state', 'the access request is no longer pending', 409);
  const cancelled = await cancelApprovalRequest(deps.db, request.id, request.subjectUserId, caller.actor);
  return taskOf(deps.issuer, cancelled, 'cancelled');
}

export type { AuthzenEntity };
