// Portico's AuthZEN decision point (OpenID AuthZEN Authorization API 1.0, final): who may ask (an app's own
// confidential client, for its own resources only), the metadata, the evaluation and evaluations APIs with their
// batch semantics, and what a decision's context carries. The decisions themselves: ./decisions.ts; the access
// requests a requestable denial leads to: ./access-requests.ts.
import { randomBytes } from 'node:crypto';
import { isAudited } from '../../app-kit/risk';
import { recordAuditEvent } from '../audit/events';
import type { ApprovalGrant } from '../approvals/broker';
import { matchesSecretHash } from '../clients/secrets';
import { basicCredentials } from '../http/basic-credentials';
import { loadClient } from '../clients/client-metadata';
import { findAppById } from '../clients/apps';
import type { Database } from '../db/client';
import { recordAuthzenDecision } from '../observability/metrics';
import { mintDenialBinding, DENIAL_BINDING_SECONDS } from './access-requests';
import { createEvaluator, type EvaluationOutcome, type PdpCaller, type PdpDeps } from './decisions';

export type { PdpCaller, PdpDeps };
import type { AuthzenBatch, AuthzenEvaluation, Parsed } from './requests';

export const AUTHZEN_PATHS = {
  configuration: '/.well-known/authzen-configuration',
  evaluation: '/access/v1/evaluation',
  evaluations: '/access/v1/evaluations',
  searchSubject: '/access/v1/search/subject',
  searchResource: '/access/v1/search/resource',
  searchAction: '/access/v1/search/action',
  requests: '/access/v1/requests',
} as const;

export const ACCESS_REQUEST_CAPABILITY = 'urn:openid:authzen:capability:access-request';

/** §9 PDP metadata, with the Access Request profile's endpoint (Draft 1). */
export function authzenConfiguration(issuer: string): Record<string, unknown> {
  return {
    // Portico's issuer is its PDP identifier: the document is at <issuer>/.well-known/authzen-configuration.
    policy_decision_point: issuer,
    access_evaluation_endpoint: `${issuer}${AUTHZEN_PATHS.evaluation}`,
    access_evaluations_endpoint: `${issuer}${AUTHZEN_PATHS.evaluations}`,
    search_subject_endpoint: `${issuer}${AUTHZEN_PATHS.searchSubject}`,
    search_resource_endpoint: `${issuer}${AUTHZEN_PATHS.searchResource}`,
    search_action_endpoint: `${issuer}${AUTHZEN_PATHS.searchAction}`,
    access_request_endpoint: `${issuer}${AUTHZEN_PATHS.requests}`,
    capabilities: [ACCESS_REQUEST_CAPABILITY],
  };
}

/** §"Transport": the PDP echoes the PEP's X-Request-ID in its response. */
export function requestIdHeaders(request: Request): Record<string, string> {
  const id = request.headers.get('x-request-id');
  return { 'Cache-Control': 'no-store', ...(id && id.length <= 256 && !/[\r\n]/.test(id) ? { 'X-Request-ID': id } : {}) };
}

/** An error in the AuthZEN binding's shape: its status and a message (a JSON object, as Portico's other APIs). */
export function authzenError(request: Request, status: number, error: string, description: string, headers: Record<string, string> = {}): Response {
  return Response.json({ error, error_description: description }, { status, headers: { ...requestIdHeaders(request), ...headers } });
}

const CHALLENGE = { 'WWW-Authenticate': 'Basic realm="portico-authzen", charset="UTF-8"' };

/**
 * The calling PEP: an app's confidential client, by HTTP Basic with its client id and secret (RFC 6749 §2.3.1, as an
 * RFC 7662 introspection caller). A disabled app, a revoked client, a public client or another organization's app's
 * client gets nothing.
 */
export async function authenticatePep(db: Database, request: Request): Promise<{ ok: true; caller: PdpCaller } | { ok: false; response: Response }> {
  const refuse = (description: string) => ({ ok: false as const, response: authzenError(request, 401, 'invalid_client', description, CHALLENGE) });
  const credentials = basicCredentials(request.headers.get('authorization'));
  if (!credentials) return refuse('authenticate with the app’s client id and secret (HTTP Basic, RFC 6749 §2.3.1)');
  const { clientId, secret } = credentials;
  // The client, its app's state and its secrets valid now, through the read cache the token endpoint uses (dropped
  // at once when the client, its secrets or its app change on any instance); the secret is compared in constant
  // time with every valid hash. (An unknown client id costs a statement a known one does not: client ids are not
  // secret.) Only an app's own confidential client passes: a public client has no secret to match.
  const loaded = await loadClient(db, clientId, 'portico-authzen');
  const valid = matchesSecretHash(secret, loaded?.secretHashesValidNow ?? []);
  const metadata = loaded?.metadata;
  if (!metadata || !valid || metadata.portico_kind !== 'app' || metadata.client_secret === undefined || metadata.portico_app_disabled || !metadata.portico_app_id) return refuse('client authentication failed');
  const app = await findAppById(db, metadata.portico_app_id);
  if (!app || app.disabledAt) return refuse('client authentication failed');
  return { ok: true, caller: { app, clientId, actor: { type: 'client', id: clientId, label: app.name } } };
}

function grantOf(outcome: EvaluationOutcome): ApprovalGrant | undefined {
  return 'grant' in outcome ? outcome.grant : undefined;
}

/** A decision in the API's shape: `decision`, and a `context` only when it says something the PEP can act on. */
type Decision = { decision: boolean; context?: Record<string, unknown> };

async function answerOf(outcome: EvaluationOutcome, request: AuthzenEvaluation, caller: PdpCaller, deps: PdpDeps): Promise<Decision> {
  const { decision } = outcome;
  const approvalContext = (grant: ApprovalGrant) => ({
    approval: { id: grant.id, approved_at: grant.grantedAt.toISOString(), ...(grant.expiresAt ? { approved_until: grant.expiresAt.toISOString() } : {}) },
  });
  const grant = grantOf(outcome);
  if (decision.allowed) return grant ? { decision: true, context: approvalContext(grant) } : { decision: true };
  if (decision.reason !== 'approval_required' || !('subject' in outcome) || !outcome.subject || !outcome.operation?.tool) return { decision: false };
  // An agent acting as itself has no person to request for: the denial says why, and nothing can be requested (the
  // MCP gate asks an operator to confirm each such call instead).
  if (!outcome.subject.personId) return { decision: false, context: { reason: 'approval_required' } };
  // approval_required and otherwise allowed: a requestable denial (AuthZEN Access Request profile, Draft 1 §5).
  const now = deps.now?.() ?? new Date();
  const evaluationId = `eval_${randomBytes(16).toString('base64url')}`;
  const expiresAt = new Date(now.getTime() + DENIAL_BINDING_SECONDS * 1000);
  const bindingToken = await mintDenialBinding(deps, { evaluationId, appId: caller.app.id, request, expiresAt });
  const presented = 'presentedApproval' in outcome ? outcome.presentedApproval : undefined;
  return {
    decision: false,
    context: {
      evaluation_id: evaluationId,
      evaluated_at: now.toISOString(),
      // A re-evaluation whose approval no longer applies says so, and that a new request may be made (§8.2).
      reason: presented === 'not_applicable' ? (grant ? 'approval_expired' : 'approval_unverifiable') : 'approval_required',
      ...(presented === 'not_applicable' ? { next_action: 'request' } : {}),
      access_request: { endpoint: `${deps.issuer}${AUTHZEN_PATHS.requests}`, template: 'portico_central', expires_at: expiresAt.toISOString(), binding_token: bindingToken },
    },
  };
}

/** Decisions from caution up are audited, like tool calls; safe ones are counted only (the metrics). */
async function auditDecision(deps: PdpDeps, caller: PdpCaller, request: AuthzenEvaluation, outcome: EvaluationOutcome, answer: Decision): Promise<void> {
  const level = outcome.operation?.level ?? 'safe';
  recordAuthzenDecision(answer.decision, level);
  if (!isAudited(level) || !outcome.subject) return;
  const subject = outcome.subject;
  await recordAuditEvent(deps.db, {
    orgId: caller.app.orgId,
    actor: caller.actor,
    action: 'authzen.evaluated',
    subject: subject.kind === 'person' ? { type: 'person', id: subject.personId!, label: subject.label } : { type: 'agent', id: subject.actor, label: subject.label },
    appId: caller.app.id,
    clientId: caller.clientId,
    act: subject.kind === 'agent' && subject.personId ? subject.actor : null,
    details: {
      resource: { type: request.resource.type, id: request.resource.id },
      action: request.action.name,
      level,
      decision: answer.decision,
      reason: answer.decision ? (grantOf(outcome) ? 'granted' : 'allowed') : (answer.context?.reason ?? ('reason' in outcome.decision ? outcome.decision.reason : 'denied')),
      ...(answer.context?.evaluation_id ? { evaluationId: answer.context.evaluation_id } : {}),
      ...(answer.decision && grantOf(outcome) ? { grantId: grantOf(outcome)!.id } : {}),
    },
  });
}

/** One evaluation, answered and audited. */
export async function evaluateOne(deps: PdpDeps, caller: PdpCaller, evaluator: ReturnType<typeof createEvaluator>, request: AuthzenEvaluation): Promise<Decision> {
  const outcome = await evaluator.evaluate(request);
  const answer = await answerOf(outcome, request, caller, deps);
  await auditDecision(deps, caller, request, outcome, answer);
  return answer;
}

/** §7: the batch, in order, with its semantic; after a short circuit nothing more is evaluated nor returned. */
export async function evaluateBatch(deps: PdpDeps, caller: PdpCaller, batch: AuthzenBatch): Promise<Decision | { evaluations: Decision[] }> {
  const evaluator = createEvaluator(caller.app, deps);
  if (batch.single) return evaluateOne(deps, caller, evaluator, (batch.items[0] as Extract<Parsed<AuthzenEvaluation>, { ok: true }>).value);
  const evaluations: Decision[] = [];
  for (const item of batch.items) {
    const answer: Decision = item.ok ? await evaluateOne(deps, caller, evaluator, item.value) : { decision: false, context: { error: { status: 400, message: item.error } } };
    evaluations.push(answer);
    if (batch.semantic === 'deny_on_first_deny' && !answer.decision) break;
    if (batch.semantic === 'permit_on_first_permit' && answer.decision) break;
  }
  return { evaluations };
}
