// Portico's answers to AuthZEN evaluations: the facts an evaluation needs read from Portico's model (who the
// subject is, what they hold on the asking app, what the operation needs and at which risk level, which approval
// grant lasts now), then the one decision rule every door applies (app-kit/decision.ts).
//
// The vocabulary (docs/permissions.md, "Asking Portico from any app"):
// - subject: `user` (id: Portico's `sub`, or the member's email), `agent` (id: `agt_…`; decided as its connection to
//   the app acts: own mode = its direct grants, delegated = its person's, narrowed), or `access_token` (id: an
//   access token Portico issued for this app; decided for its `sub` and `act`, never beyond its `scope`);
// - resource `tool` (id: a tool the app declared) with action `call`: the tool's permissions and risk level;
// - any other resource type, with an action named after a permission of the app's catalog: that permission. A
//   permission granted as `<name>:own` covers `<name>` on resources the subject owns (`properties.ownerID` or
//   `properties.owner` equal to the subject's id or email).
import { AGENT_ID } from '../util/agent-id';
import { createHash } from 'node:crypto';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { resourcePathCovers } from '../../app-kit/resource-path';
import type { JWTVerifyGetKey } from 'jose';
import { decideOperation, type OperationDecision } from '../../app-kit/decision';
import { verifyAccessToken } from '../../app-kit/protected-resource';
import { isRiskLevel, type RiskLevel } from '../../app-kit/risk';
import { findActiveGrant, type ApprovalGrant } from '../approvals/broker';
import { BASELINE_SCOPE, catalogSourcesOf, listPermissionCatalog, type CatalogPermission } from '../clients/permission-catalog';
import type { App } from '../clients/apps';
import type { Database, Queryable } from '../db/client';
import type { AuditActor } from '../audit/events';
import { agentConnections, agents, approvalGrants, memberships, users } from '../db/schema';
import { effectivePermissionsOfAgent, effectivePermissionsOfDelegation, effectivePermissionsOfPerson } from '../organizations/effective-permissions';
import { findAccountInOrganization } from '../organizations/memberships';
import { normalizeEmail } from '../util/email';
import { isUuid } from '../util/uuid';
import type { AuthzenEntity, AuthzenEvaluation } from './requests';

export const TOOL_RESOURCE = 'tool';
export const CALL_ACTION = 'call';
/** A permission granted in this form covers the permission it names on what the subject owns. */
export const OWN_SUFFIX = ':own';
/** Grant ids are the broker's (`apg_…`): anything else names no grant, and never reaches a query. */
const GRANT_ID = /^apg_[A-Za-z0-9_-]{24}$/;

/** Who an evaluation is about, as Portico knows them. */
export interface DecidedSubject {
  kind: 'person' | 'agent';
  /** The person approvals are for: the member, or the person a delegated agent acts for; absent for an own-mode agent. */
  personId?: string;
  /** The agent acting (delegated), or acting as itself (own); '' for a person. Approval grants are per actor. */
  actor: string;
  /** What they hold on this app now. */
  held: Set<string>;
  /** The identifiers a resource's owner may be named by. */
  owners: Set<string>;
  /** For the audit trail. */
  label: string;
}

/** What an operation needs: its permissions and risk level, and whether ownership may stand in for a permission. */
export interface Operation {
  required: string[];
  level: RiskLevel;
  /** A tool: approval grants and access requests are about it (`/tools/<name>`). */
  tool?: string;
  /** The permission may be held in its `:own` form for a resource the subject owns. */
  ownable: boolean;
}

export type EvaluationOutcome =
  | { decision: OperationDecision; subject: DecidedSubject; operation: Operation; grant?: ApprovalGrant; presentedApproval?: 'applies' | 'not_applicable' }
  /** The subject is nobody Portico knows in the app's organization, or the operation is none the app offers. */
  | { decision: { allowed: false; reason: 'unknown_subject' | 'unknown_operation' }; subject?: DecidedSubject; operation?: Operation };

/** The path an approval grant for a tool is about (the broker's sensitive-access paths; app-kit/resource-path.ts). */
export function toolGrantPath(tool: string): string {
  return `/tools/${tool}`;
}

export interface EvaluatorDeps {
  db: Queryable;
  issuer: string;
  /** Portico's public keys: a subject presented as an access token is verified with them. */
  keys: JWTVerifyGetKey;
}

/** What the decision point's doors need: the evaluator's, with the database that writes and the at-rest key. */
export interface PdpDeps extends EvaluatorDeps {
  db: Database;
  atRestKey: Uint8Array;
  now?: () => Date;
}

/** The app whose client asks, authenticated; every decision is about this app's resources only. */
export interface PdpCaller {
  app: App;
  clientId: string;
  actor: AuditActor;
}

/**
 * Evaluations for one asking app, with what they read kept for the length of one HTTP request (a batch asks about
 * one subject many times). Beyond it, only rows the read cache keeps (the app's catalog, a person's account and
 * membership: dropped at commit by any instance's change); grants are read at every request, so a revoked grant or a
 * removed member counts at once.
 */
export function createEvaluator(app: App, deps: EvaluatorDeps) {
  const { db } = deps;
  let catalog: Promise<CatalogPermission[]> | undefined;
  let tools: Promise<Map<string, { level: RiskLevel; required: string[] }>> | undefined;
  const subjects = new Map<string, Promise<DecidedSubject | undefined>>();
  const catalogOf = () => (catalog ??= listPermissionCatalog(db, app.id));
  const toolsOf = () =>
    (tools ??= catalogSourcesOf(db, app.id).then(
      (sources) => new Map((sources.declaration ?? []).filter((tool) => isRiskLevel(tool.riskLevel)).map((tool) => [tool.name, { level: tool.riskLevel, required: [...tool.requiredScopes] }])),
    ));

  async function person(userId: string | undefined, email: string | undefined): Promise<{ id: string; email: string } | undefined> {
    if (userId) {
      // By id: the person and their membership through the read cache, as every token request reads them.
      const account = await findAccountInOrganization(db, userId, app.orgId);
      return account?.member && !account.user.disabledAt ? { id: account.user.id, email: account.user.email } : undefined;
    }
    const [row] = await db
      .select({ id: users.id, email: users.email })
      .from(users)
      .innerJoin(memberships, and(eq(memberships.userId, users.id), eq(memberships.orgId, app.orgId)))
      .where(and(eq(users.email, email!), isNull(users.disabledAt)))
      .limit(1);
    return row;
  }

  async function personSubject(userId: string | undefined, email: string | undefined): Promise<DecidedSubject | undefined> {
    const found = await person(userId, email);
    if (!found) return undefined;
    const held = await effectivePermissionsOfPerson(db, { orgId: app.orgId, appId: app.id, userId: found.id }, await catalogOf());
    return { kind: 'person', personId: found.id, actor: '', held: new Set(held.map((permission) => permission.scope)), owners: new Set([found.id, found.email]), label: found.email };
  }

  /** An agent of the app's organization, decided as its connection to this app acts (none: it holds nothing here). */
  /**
   * `actingFor`: a token's `sub` when its `act` names this agent (the connection must be delegated, for that person);
   * `ownToken`: a token whose `sub` is the agent itself (the connection must still be own mode).
   */
  async function agentSubject(agentId: string, actingFor?: string, ownToken = false): Promise<DecidedSubject | undefined> {
    if (!AGENT_ID.test(agentId)) return undefined;
    const [row] = await db
      .select({ agent: agents, connection: agentConnections })
      .from(agents)
      .leftJoin(agentConnections, and(eq(agentConnections.agentId, agents.id), eq(agentConnections.appId, app.id)))
      .where(and(eq(agents.id, agentId), eq(agents.orgId, app.orgId)))
      .limit(1);
    if (!row || row.agent.disabledAt) return undefined;
    const { agent, connection } = row;
    // An agent acts in an app only through its connection to it: without one it is nobody here.
    if (!connection) return undefined;
    if (connection.mode === 'delegated' && connection.delegateUserId) {
      // A token's `act` names the agent for its `sub`: the connection must be for that very person.
      if (ownToken || (actingFor !== undefined && actingFor !== connection.delegateUserId)) return undefined;
      const found = await person(connection.delegateUserId, undefined);
      if (!found) return undefined;
      const held = await effectivePermissionsOfDelegation(db, { orgId: app.orgId, appId: app.id, userId: found.id, narrowTo: connection.narrowedTo });
      return { kind: 'agent', personId: found.id, actor: agent.id, held: new Set(held.map((permission) => permission.scope)), owners: new Set([found.id, found.email]), label: agent.name };
    }
    if (actingFor !== undefined || connection.mode !== 'own') return undefined;
    const held = await effectivePermissionsOfAgent(db, { orgId: app.orgId, appId: app.id, agentId: agent.id });
    return { kind: 'agent', actor: agent.id, held: new Set(held.map((permission) => permission.scope)), owners: new Set([agent.id]), label: agent.name };
  }

  /** A token Portico issued for this app: its subject and actor, held to what the token carries as well. */
  async function tokenSubject(jwt: string): Promise<DecidedSubject | undefined> {
    const check = await verifyAccessToken(jwt, { resource: app.identity, issuer: deps.issuer, audience: app.identity, scopesSupported: [] }, deps.keys);
    if (!check.ok) return undefined;
    const { token } = check;
    // A token that carries authorization details (a CIBA approval, RFC 9396) serves only that one action, never as
    // the subject of other decisions (as the kit's gate refuses it: app-kit/protected-resource.ts).
    if (token.claims.authorization_details !== undefined) return undefined;
    const decided = token.actor ? await agentSubject(token.actor, token.subject) : isUuid(token.subject) ? await personSubject(token.subject, undefined) : await agentSubject(token.subject, undefined, true);
    if (!decided) return undefined;
    const carried = new Set(token.scopes);
    return { ...decided, held: new Set([...decided.held].filter((scope) => carried.has(scope))) };
  }

  function subjectOf(entity: AuthzenEntity): Promise<DecidedSubject | undefined> {
    const key = `${entity.type}\n${entity.type === 'access_token' ? createHash('sha256').update(entity.id).digest('base64url') : entity.id}`;
    let found = subjects.get(key);
    if (!found) {
      if (entity.type === 'user') found = isUuid(entity.id) ? personSubject(entity.id, undefined) : /@/.test(entity.id as string) ? personSubject(undefined, normalizeEmail(entity.id as string)) : Promise.resolve(undefined);
      else if (entity.type === 'agent') found = agentSubject(entity.id);
      else if (entity.type === 'access_token') found = tokenSubject(entity.id);
      else found = Promise.resolve(undefined);
      subjects.set(key, found);
    }
    return found;
  }

  async function operationOf(resource: AuthzenEntity, action: { name: string }): Promise<Operation | undefined> {
    if (resource.type === TOOL_RESOURCE) {
      if (action.name !== CALL_ACTION) return undefined;
      const tool = (await toolsOf()).get(resource.id);
      return tool ? { required: tool.required, level: tool.level, tool: resource.id, ownable: false } : undefined;
    }
    // The baseline every member holds is no decision about anything: as an action it would only tell who is a member.
    const offered = (await catalogOf()).filter((entry) => !entry.retired && entry.scope !== BASELINE_SCOPE).map((entry) => entry.scope);
    if (!offered.includes(action.name) && !offered.includes(`${action.name}${OWN_SUFFIX}`)) return undefined;
    return { required: [action.name], level: 'safe', ownable: true };
  }

  /** The grant an approval reference (AuthZEN Access Request profile: `context.approval`) names, if it applies here. */
  async function presentedGrant(reference: unknown, subject: DecidedSubject, tool: string): Promise<{ applies: boolean; grant?: ApprovalGrant }> {
    const id = (reference as { id?: unknown } | null)?.id;
    if (typeof id !== 'string' || !GRANT_ID.test(id) || !subject.personId) return { applies: false };
    const [named] = await db
      .select({ grant: approvalGrants, active: sql<boolean>`${approvalGrants.revokedAt} is null and (${approvalGrants.expiresAt} is null or ${approvalGrants.expiresAt} > now())` })
      .from(approvalGrants)
      .where(and(eq(approvalGrants.id, id), eq(approvalGrants.appId, app.id)))
      .limit(1);
    // Only the subject's own (same person, same actor) grant for this tool counts; anything else is not theirs to show.
    if (!named || named.grant.subjectUserId !== subject.personId || named.grant.actor !== subject.actor) return { applies: false };
    const { grant } = named;
    const covers = grant.kind === 'sensitive_access' && grant.profile === 'work' && grant.resource !== null && resourcePathCovers(grant.resource, toolGrantPath(tool));
    if (!covers) return { applies: false };
    return { applies: named.active, grant };
  }

  return {
    subjectOf,
    operationOf,
    async evaluate(request: AuthzenEvaluation): Promise<EvaluationOutcome> {
      const [subject, operation] = await Promise.all([subjectOf(request.subject), operationOf(request.resource, request.action)]);
      if (!subject) return { decision: { allowed: false, reason: 'unknown_subject' }, ...(operation ? { operation } : {}) };
      if (!operation) return { decision: { allowed: false, reason: 'unknown_operation' }, subject };
      let held: Iterable<string> = subject.held;
      if (operation.ownable && ownsResource(subject, request.resource)) {
        // `<name>:own` stands for `<name>` here, on what the subject owns.
        held = [...subject.held, ...[...subject.held].filter((scope) => scope.endsWith(OWN_SUFFIX)).map((scope) => scope.slice(0, -OWN_SUFFIX.length))];
      }
      const first = decideOperation({ held, required: operation.required, level: operation.level });
      if (first.allowed || first.reason !== 'approval_required' || !operation.tool || !subject.personId) return { decision: first, subject, operation };
      // approval_required, and the subject may otherwise do it: an operator's grant that lasts now approves it.
      const reference = request.context?.approval;
      if (reference !== undefined && reference !== null) {
        const presented = await presentedGrant(reference, subject, operation.tool);
        if (presented.applies) return { decision: decideOperation({ held, required: operation.required, level: operation.level, approval: 'granted' }), subject, operation, grant: presented.grant!, presentedApproval: 'applies' };
        return { decision: first, subject, operation, ...(presented.grant ? { grant: presented.grant } : {}), presentedApproval: 'not_applicable' };
      }
      const grant = await findActiveGrant(db, { appId: app.id, subjectUserId: subject.personId, actor: subject.actor, kind: 'sensitive_access', resource: toolGrantPath(operation.tool), profile: 'work' });
      if (grant) return { decision: decideOperation({ held, required: operation.required, level: operation.level, approval: 'granted' }), subject, operation, grant };
      return { decision: first, subject, operation };
    },
  };
}

export type Evaluator = ReturnType<typeof createEvaluator>;

/** The resource names the subject as its owner (`properties.ownerID`, as the AuthZEN interop's todo app, or `owner`). */
function ownsResource(subject: DecidedSubject, resource: AuthzenEntity): boolean {
  const owner = resource.properties?.ownerID ?? resource.properties?.owner;
  if (typeof owner !== 'string' || owner.length === 0) return false;
  return subject.owners.has(owner) || subject.owners.has(normalizeEmail(owner));
}
