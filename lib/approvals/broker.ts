// The approval broker: it alone decides whether access exists. Requests are persistent (`apr_…`), queue limits
// hold under concurrency (advisory locks, then counts, in one transaction), a decision, its grant and its audit
// event are written in one transaction, and a request gets at most one grant (a unique index, whatever races).
// Nothing a client sends can produce an approval: only decideApprovalRequest does, called by an operator's channel.
import { normalizeResourcePath, resourcePathCovers } from '../../app-kit/resource-path';
import { isApprovalRequestId } from './central-urls';
import { createHash, randomBytes } from 'node:crypto';
import { and, count, eq, gt, isNull, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import canonicalize from 'canonicalize';
import { recordAuditEvent, type AuditActor } from '../audit/events';
import type { Database, Queryable } from '../db/client';
import { approvalGrants, approvalRequests, approvalVotes, apps, memberships, users } from '../db/schema';
import { mayDecideRequest, mayRevokeGrant, requestDeciding, requestValues } from './operators';
import { governingPolicy, policyKindOf, REQUEST_TTL_SECONDS } from './policies';
import { localized } from '../i18n/catalogs';
import { approvalRefusal } from './refusal-codes';

export const APPROVAL_CONTRACT_VERSION = 1;
export const MAX_PENDING_PER_SUBJECT = 64;
export const MAX_PENDING_PER_INSTALLATION = 256;
/** The longest grant an operator may approve in the central; longer (or permanent) ones go to the CLI. */
export const MAX_CENTRAL_DURATION_SECONDS = 8 * 3600;
export const MAX_DURATION_SECONDS = 30 * 24 * 3600;

export type ApprovalRequest = typeof approvalRequests.$inferSelect;
export type ApprovalGrant = typeof approvalGrants.$inferSelect;
export type ApprovalKind = ApprovalRequest['kind'];
export type ApprovalProfile = NonNullable<ApprovalRequest['profile']>;


/** The subject still belongs to the organization and is enabled: otherwise their requests and grants count for nothing. */
function subjectInGood(orgId: AnyColumn, subjectUserId: AnyColumn): SQL {
  return sql`exists (select 1 from ${memberships} sm join ${users} su on su.id = sm.user_id where sm.org_id = ${orgId} and sm.user_id = ${subjectUserId} and su.disabled_at is null)`;
}

/**
 * What else happens in the transaction that makes or ends a request: the notifications (lib/notifications/), given
 * by the door that has the mail's context. Throwing rolls the change back.
 */
export interface ApprovalNotifier {
  requested(tx: Queryable, request: ApprovalRequest): Promise<void>;
}

export interface NewApprovalRequest {
  orgId: string;
  appId: string;
  subjectUserId: string;
  /** The agent asking for the person, if any. */
  actor?: string;
  clientId: string;
  kind: ApprovalKind;
  resource?: string;
  profile?: ApprovalProfile;
  /** Null: permanent. */
  durationSeconds: number | null;
  reason: string;
}


/** Broad: the root, or a pattern. Such a request is never decided in the central. */
export function isBroadResource(resource: string): boolean {
  return resource === '/' || resource.includes('*');
}

/** Temporary and specific requests may be decided in the central; permanent, broad or elevated ones only by the CLI. */
export function isCentralEligible(input: Pick<NewApprovalRequest, 'kind' | 'resource' | 'durationSeconds'>): boolean {
  return input.kind === 'sensitive_access' && input.resource !== undefined && !isBroadResource(input.resource) && input.durationSeconds !== null && input.durationSeconds <= MAX_CENTRAL_DURATION_SECONDS;
}

/**
 * Whether a policy lets the central decide what it otherwise would not: an organization that wrote a policy for
 * permanent, broad or root requests named their deciders; a read or write request longer than the central's 8 hours
 * only when the policy caps its grant within them.
 */
function policyOpensCentral(kind: ReturnType<typeof policyKindOf>, maxGrantSeconds: number | null): boolean {
  if (kind === 'permanent' || kind === 'root' || kind === 'protected') return true;
  return maxGrantSeconds !== null && maxGrantSeconds <= MAX_CENTRAL_DURATION_SECONDS;
}

/** SHA-256 over the request's immutable fields (RFC 8785 form): what an operator saw is what gets decided. */
export function requestFingerprint(request: Pick<ApprovalRequest, 'id' | 'orgId' | 'appId' | 'subjectUserId' | 'actor' | 'clientId' | 'kind' | 'resource' | 'profile' | 'durationSeconds' | 'reason'>): string {
  const { id, orgId, appId, subjectUserId, actor, clientId, kind, resource, profile, durationSeconds, reason } = request;
  return createHash('sha256').update(canonicalize({ id, orgId, appId, subjectUserId, actor, clientId, kind, resource, profile, durationSeconds, reason })!).digest('base64url');
}

function lockKey(scope: string, id: string) {
  return sql`pg_advisory_xact_lock(hashtextextended(${`${scope}:${id}`}, 0))`;
}

/**
 * Creates a pending request, unless the subject has 64 pending unexpired requests or the installation 256. Both
 * counts are taken under advisory locks (installation first, then subject, always in that order), so concurrent
 * requests cannot overshoot; expiry and cancellation free space at once.
 */
export async function createApprovalRequest(db: Database, input: NewApprovalRequest, actor: AuditActor, notifier?: ApprovalNotifier): Promise<ApprovalRequest> {
  const reason = input.reason.trim();
  if (reason.length < 1 || reason.length > 1000) throw approvalRefusal('invalid_request', localized('approvals.refusals.reasonLength'));
  if (input.durationSeconds !== null && (!Number.isInteger(input.durationSeconds) || input.durationSeconds < 60 || input.durationSeconds > MAX_DURATION_SECONDS)) {
    throw approvalRefusal('invalid_request', localized('approvals.refusals.durationRange', { max: String(MAX_DURATION_SECONDS) }));
  }
  // A path is normalized once, here: the request, its fingerprint, the decision and the grant all hold that form.
  let resource: string | null = null;
  if (input.kind === 'sensitive_access') {
    if (input.resource === undefined) throw approvalRefusal('invalid_request', localized('approvals.refusals.resourceMissing'));
    const normalized = normalizeResourcePath(input.resource);
    if (!normalized.ok) throw approvalRefusal('invalid_request', normalized.error);
    resource = normalized.path;
    if (!input.profile) throw approvalRefusal('invalid_request', localized('approvals.refusals.profileMissing'));
  }
  const id = `apr_${randomBytes(18).toString('base64url')}`;
  const fields = {
    id,
    orgId: input.orgId,
    appId: input.appId,
    subjectUserId: input.subjectUserId,
    actor: input.actor ?? '',
    clientId: input.clientId,
    kind: input.kind,
    resource,
    profile: input.kind === 'sensitive_access' ? input.profile! : null,
    durationSeconds: input.durationSeconds,
    reason,
  };
  return db.transaction(async (tx) => {
    await tx.execute(sql`select ${lockKey('approval-installation', input.appId)}`);
    await tx.execute(sql`select ${lockKey('approval-subject', input.subjectUserId)}`);
    const pending = (condition: ReturnType<typeof eq>) =>
      tx
        .select({ n: count() })
        .from(approvalRequests)
        .where(and(condition, eq(approvalRequests.state, 'pending'), gt(approvalRequests.expiresAt, sql`now()`)));
    const [[bySubject], [byInstallation]] = await Promise.all([pending(eq(approvalRequests.subjectUserId, input.subjectUserId)), pending(eq(approvalRequests.appId, input.appId))]);
    if (bySubject!.n >= MAX_PENDING_PER_SUBJECT) {
      throw approvalRefusal('queue_full', localized('approvals.refusals.subjectQueueFull', { max: MAX_PENDING_PER_SUBJECT }));
    }
    if (byInstallation!.n >= MAX_PENDING_PER_INSTALLATION) throw approvalRefusal('queue_full', localized('approvals.refusals.appQueueFull', { max: MAX_PENDING_PER_INSTALLATION }));
    // The policy of its kind (the app's own, else the organization's): its rules are copied onto the request.
    const policyKind = policyKindOf({ kind: input.kind, resource: fields.resource, profile: fields.profile, durationSeconds: input.durationSeconds });
    const policy = await governingPolicy(tx, input.orgId, input.appId, policyKind);
    const escalates = policy?.escalateAfterMinutes != null && policy.escalateAfterMinutes * 60 < REQUEST_TTL_SECONDS;
    const [created] = await tx
      .insert(approvalRequests)
      .values({
        ...fields,
        fingerprint: requestFingerprint(fields),
        centralEligible: isCentralEligible({ kind: input.kind, resource: fields.resource ?? undefined, durationSeconds: input.durationSeconds }) || (policy !== undefined && policyOpensCentral(policyKind, policy.maxGrantSeconds)),
        expiresAt: sql`now() + make_interval(secs => ${REQUEST_TTL_SECONDS})`,
        policyKind,
        policyId: policy?.id ?? null,
        quorum: policy?.quorum ?? 1,
        anyDenyEnds: policy?.anyDenyEnds ?? true,
        maxGrantSeconds: policy?.maxGrantSeconds ?? null,
        escalateAt: escalates ? sql`now() + make_interval(mins => ${policy!.escalateAfterMinutes!})` : null,
      })
      .returning();
    await recordAuditEvent(tx, {
      orgId: input.orgId,
      actor,
      act: input.actor ?? null,
      clientId: input.clientId,
      action: 'approval.requested',
      subject: { type: 'approval_request', id },
      appId: input.appId,
      details: { kind: input.kind, resource: fields.resource, profile: fields.profile, durationSeconds: input.durationSeconds, centralEligible: created!.centralEligible, policyKind, policyId: created!.policyId, quorum: created!.quorum },
    });
    await notifier?.requested(tx, created!);
    return created!;
  });
}

export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'cancelled' | 'request_expired' | 'grant_expired' | 'grant_revoked' | 'unknown';

/**
 * The state of a request, for its own subject only (anyone else learns nothing: `unknown`). Only `approved` means
 * access exists, and only when its grant exists, is unrevoked and unexpired; anything inconsistent is `unknown`.
 */
export async function approvalStatusFor(db: Queryable, requestId: string, subjectUserId: string): Promise<{ status: ApprovalStatus; request?: ApprovalRequest; grant?: ApprovalGrant }> {
  if (!isApprovalRequestId(requestId)) return { status: 'unknown' };
  const [row] = await db
    .select({ request: approvalRequests, grant: approvalGrants, expired: sql<boolean>`${approvalRequests.expiresAt} <= now()`, grantExpired: sql<boolean>`coalesce(${approvalGrants.expiresAt} <= now(), false)` })
    .from(approvalRequests)
    .leftJoin(approvalGrants, eq(approvalGrants.requestId, approvalRequests.id))
    .where(and(eq(approvalRequests.id, requestId), eq(approvalRequests.subjectUserId, subjectUserId)));
  if (!row) return { status: 'unknown' };
  const { request, grant } = row;
  switch (request.state) {
    case 'pending':
      return { status: row.expired ? 'request_expired' : 'pending', request };
    case 'expired':
      return { status: 'request_expired', request };
    case 'denied':
    case 'cancelled':
      return { status: request.state, request };
    case 'approved':
      // A grant that does not match its request exactly is inconsistent: never an authorization.
      if (
        !grant ||
        grant.appId !== request.appId ||
        grant.orgId !== request.orgId ||
        grant.subjectUserId !== request.subjectUserId ||
        grant.actor !== request.actor ||
        grant.kind !== request.kind ||
        grant.resource !== request.resource ||
        grant.profile !== request.profile
      ) {
        return { status: 'unknown', request };
      }
      if (grant.revokedAt) return { status: 'grant_revoked', request, grant };
      if (row.grantExpired) return { status: 'grant_expired', request, grant };
      return { status: 'approved', request, grant };
  }
}

/** Ends a pending request of this subject; nothing is granted. */
export async function cancelApprovalRequest(db: Database, requestId: string, subjectUserId: string, actor: AuditActor): Promise<ApprovalRequest> {
  return db.transaction(async (tx) => {
    const [cancelled] = await tx
      .update(approvalRequests)
      .set({ state: 'cancelled', decidedAt: sql`now()`, decidedBy: 'subject' })
      .where(and(eq(approvalRequests.id, requestId), eq(approvalRequests.subjectUserId, subjectUserId), eq(approvalRequests.state, 'pending'), gt(approvalRequests.expiresAt, sql`now()`)))
      .returning();
    if (!cancelled) {
      const { status } = await approvalStatusFor(tx, requestId, subjectUserId);
      throw approvalRefusal(status === 'unknown' ? 'not_found' : 'not_pending', status === 'unknown' ? localized('approvals.refusals.notYours') : localized('approvals.refusals.notCancellable', { status }));
    }
    await recordAuditEvent(tx, { orgId: cancelled.orgId, actor, act: cancelled.actor || null, clientId: cancelled.clientId, action: 'approval.cancelled', subject: { type: 'approval_request', id: requestId }, appId: cancelled.appId });
    return cancelled;
  });
}

export interface Decision {
  requestId: string;
  decision: 'approve' | 'deny';
  /** The fingerprint the operator was shown: a request that changed since is not decided. */
  fingerprint: string;
  /** `central` may decide only eligible requests, and `decidedBy` is then the deciding person's user id; `cli` (local authority on the server) any. */
  channel: 'central' | 'cli';
  decidedBy: string;
  actor: AuditActor;
  /**
   * The channel's own last checks, inside the decision's transaction and on the locked request (the central
   * re-validates its session and consumes the decision nonce here): throwing a refusal writes nothing.
   */
  verifyInTransaction?: (tx: Queryable, request: ApprovalRequest) => Promise<void>;
  /** Fault injection for the crash tests: called after each write inside the transaction. */
  afterWrite?: (step: 'decision' | 'grant') => Promise<void>;
}

/**
 * The decision, its grant and its audit event, in one transaction on the locked request. A request that is not
 * pending, has expired, or whose fingerprint differs is refused, and nothing is written.
 */
export interface DecisionResult {
  request: ApprovalRequest;
  grant?: ApprovalGrant;
  /** The approvals recorded so far and how many it needs: a request under a quorum stays pending until they meet. */
  approvals: number;
  quorum: number;
}

/** The grant's length: what was asked, capped by the policy's longest grant (a permanent request then ends too). */
function grantSeconds(request: Pick<ApprovalRequest, 'durationSeconds' | 'maxGrantSeconds'>): number | null {
  if (request.maxGrantSeconds === null) return request.durationSeconds;
  return request.durationSeconds === null ? request.maxGrantSeconds : Math.min(request.durationSeconds, request.maxGrantSeconds);
}

/**
 * A decision, on the locked request, in one transaction with what it causes. A request that is not pending, has
 * expired, or whose fingerprint differs is refused, and nothing is written.
 *
 * In the central each decider's decision is a vote (one each, by the primary key). The request is approved, and its
 * grant made, in the transaction of the vote that reaches its quorum — the row lock serializes racing votes, so the
 * grant exists exactly once — and denied by a denial (unless its policy lets the others still approve). Under a
 * policy the person the request is for never decides it (separation of duties); the CLI's local authority decides
 * at once, whatever the quorum (break-glass, audited as such).
 */
export async function decideApprovalRequest(db: Database, decision: Decision): Promise<DecisionResult> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select({ request: approvalRequests, expired: sql<boolean>`${approvalRequests.expiresAt} <= now()` })
      .from(approvalRequests)
      .where(eq(approvalRequests.id, decision.requestId))
      .for('update');
    if (!row) throw approvalRefusal('not_found', localized('approvals.refusals.noSuchRequest'));
    const { request } = row;
    if (request.state !== 'pending') throw approvalRefusal('not_pending', localized('approvals.refusals.decidedAlready', { state: request.state }));
    if (row.expired) throw approvalRefusal('expired', localized('approvals.refusals.expired'));
    if (requestFingerprint(request) !== request.fingerprint || decision.fingerprint !== request.fingerprint) {
      throw approvalRefusal('fingerprint_mismatch', localized('approvals.refusals.fingerprintMismatch'));
    }
    // The stored flag, and the rule itself again: permanent, broad or elevated requests are the central's only under
    // a policy that still exists (a removed policy sends them back to the CLI).
    if (decision.channel === 'central' && (!request.centralEligible || (request.policyId === null && !isCentralEligible({ kind: request.kind, resource: request.resource ?? undefined, durationSeconds: request.durationSeconds })))) {
      throw approvalRefusal('not_eligible', localized('approvals.refusals.cliOnly'));
    }
    const [subject] = await tx.select({ ok: sql<boolean>`${subjectInGood(approvalRequests.orgId, approvalRequests.subjectUserId)}` }).from(approvalRequests).where(eq(approvalRequests.id, request.id));
    if (!subject?.ok) throw approvalRefusal('not_authorized', localized('approvals.refusals.subjectGone'));
    if (decision.channel === 'central' && (request.policyId !== null || request.quorum > 1) && decision.decidedBy === request.subjectUserId) {
      throw approvalRefusal('own_request', localized('approvals.refusals.ownRequest'));
    }
    await decision.verifyInTransaction?.(tx, request);

    let approvals = decision.decision === 'approve' ? 1 : 0;
    let final = true;
    if (decision.channel === 'central') {
      const voted = await tx.insert(approvalVotes).values({ requestId: request.id, userId: decision.decidedBy, decision: decision.decision }).onConflictDoNothing().returning();
      if (voted.length === 0) throw approvalRefusal('already_decided_by_you', localized('approvals.refusals.alreadyVoted'));
      // Only the approvals of people who may still decide it count: someone removed from the team since decides nothing.
      const [counted] = await tx
        .select({ n: sql<number>`count(*)::int` })
        .from(approvalVotes)
        .where(and(eq(approvalVotes.requestId, request.id), eq(approvalVotes.decision, 'approve'), mayDecideRequest(requestValues(request), approvalVotes.userId)));
      approvals = counted!.n;
      final = decision.decision === 'deny' ? request.anyDenyEnds : approvals >= request.quorum;
    }
    if (!final) {
      await recordAuditEvent(tx, {
        orgId: request.orgId,
        actor: decision.actor,
        act: request.actor || null,
        clientId: request.clientId,
        action: 'approval.vote_recorded',
        subject: { type: 'approval_request', id: request.id },
        appId: request.appId,
        details: { channel: decision.channel, decision: decision.decision, approvals, quorum: request.quorum },
      });
      return { request, approvals, quorum: request.quorum };
    }

    const state = decision.decision === 'approve' ? 'approved' : 'denied';
    const [decided] = await tx
      .update(approvalRequests)
      .set({ state, decidedAt: sql`now()`, decidedBy: decision.decidedBy })
      .where(and(eq(approvalRequests.id, request.id), eq(approvalRequests.state, 'pending')))
      .returning();
    if (!decided) throw approvalRefusal('not_pending', localized('approvals.refusals.decidedMeanwhile'));
    await decision.afterWrite?.('decision');
    let grant: ApprovalGrant | undefined;
    if (state === 'approved') {
      const seconds = grantSeconds(request);
      [grant] = await tx
        .insert(approvalGrants)
        .values({
          id: `apg_${randomBytes(18).toString('base64url')}`,
          requestId: request.id,
          orgId: request.orgId,
          appId: request.appId,
          subjectUserId: request.subjectUserId,
          actor: request.actor,
          kind: request.kind,
          resource: request.resource,
          profile: request.profile,
          expiresAt: seconds === null ? null : sql`now() + make_interval(secs => ${seconds})`,
        })
        .returning();
      await decision.afterWrite?.('grant');
    }
    await recordAuditEvent(tx, {
      orgId: request.orgId,
      actor: decision.actor,
      act: request.actor || null,
      clientId: request.clientId,
      action: state === 'approved' ? 'approval.approved' : 'approval.denied',
      subject: { type: 'approval_request', id: request.id },
      appId: request.appId,
      details: {
        channel: decision.channel,
        grantId: grant?.id ?? null,
        grantExpiresAt: grant?.expiresAt?.toISOString() ?? null,
        kind: request.kind,
        resource: request.resource,
        profile: request.profile,
        ...(request.quorum > 1 || request.policyId ? { approvals, quorum: request.quorum, policyId: request.policyId } : {}),
        ...(decision.channel === 'cli' && request.quorum > 1 ? { breakGlass: true } : {}),
      },
    });
    return { request: decided, grant, approvals, quorum: request.quorum };
  });
}

/**
 * Marks a grant revoked in the caller's transaction (the caller writes the audit event). With a scope, only a grant
 * of that organization that the operator may decide for. Later grant checks refuse it at once.
 */
export async function revokeGrantIn(tx: Queryable, grantId: string, revokedBy: string, scope?: { orgId: string; operatorUserId: string }): Promise<ApprovalGrant> {
  const [revoked] = await tx
    .update(approvalGrants)
    .set({ revokedAt: sql`now()`, revokedBy })
    .where(
      and(
        eq(approvalGrants.id, grantId),
        isNull(approvalGrants.revokedAt),
        scope ? and(eq(approvalGrants.orgId, scope.orgId), mayRevokeGrant(approvalGrants.requestId, approvalGrants.orgId, scope.operatorUserId)) : undefined,
      ),
    )
    .returning();
  if (!revoked) throw approvalRefusal('already_revoked', localized('approvals.refusals.noActiveGrant'));
  return revoked;
}

/** Revokes a grant explicitly, with its audit event; later operations that check it are refused. */
export async function revokeApprovalGrant(db: Database, grantId: string, revokedBy: string, actor: AuditActor): Promise<ApprovalGrant> {
  return db.transaction(async (tx) => {
    const revoked = await revokeGrantIn(tx, grantId, revokedBy);
    await recordAuditEvent(tx, { orgId: revoked.orgId, actor, act: revoked.actor || null, action: 'approval.grant_revoked', subject: { type: 'approval_grant', id: grantId }, appId: revoked.appId, details: { requestId: revoked.requestId } });
    return revoked;
  });
}

export async function findApprovalRequest(db: Queryable, requestId: string): Promise<ApprovalRequest | undefined> {
  const [request] = await db.select().from(approvalRequests).where(eq(approvalRequests.id, requestId));
  return request;
}

export interface GrantQuery {
  appId: string;
  subjectUserId: string;
  /** The agent acting for the person now, or '' (a grant made for one agent does not serve another, or the person). */
  actor: string;
  kind: ApprovalKind;
  /** sensitive_access: the resource the operation touches; the grant's resource or a path below it. */
  resource?: string;
  profile?: ApprovalProfile;
}

/**
 * The grant that allows this operation now, if any: same app, subject and actor, unrevoked and unexpired; for
 * sensitive access the same profile and the granted path or one below it. Apps ask this before every operation.
 */
export async function findActiveGrant(db: Queryable, query: GrantQuery): Promise<ApprovalGrant | undefined> {
  const normalized = query.kind === 'sensitive_access' && query.resource !== undefined ? normalizeResourcePath(query.resource) : undefined;
  if (query.kind === 'sensitive_access' && (!normalized?.ok || !query.profile)) return undefined;
  const rows = await db
    .select()
    .from(approvalGrants)
    .where(
      and(
        eq(approvalGrants.appId, query.appId),
        eq(approvalGrants.subjectUserId, query.subjectUserId),
        eq(approvalGrants.actor, query.actor),
        eq(approvalGrants.kind, query.kind),
        isNull(approvalGrants.revokedAt),
        sql`(${approvalGrants.expiresAt} is null or ${approvalGrants.expiresAt} > now())`,
        subjectInGood(approvalGrants.orgId, approvalGrants.subjectUserId),
        query.kind === 'sensitive_access' ? eq(approvalGrants.profile, query.profile!) : undefined,
      ),
    );
  if (query.kind === 'root_access') return rows[0];
  const requested = (normalized as { ok: true; path: string }).path;
  return rows.find((grant) => grant.resource !== null && resourcePathCovers(grant.resource, requested));
}

export interface ApprovalHistoryEntry {
  request: ApprovalRequest;
  askedBy: string;
  app: string;
  grant: ApprovalGrant | null;
  /** The grant is in force now. */
  active: boolean;
}

/** An organization's latest requests with their decisions and grants (newest first), of the apps this operator decides for. */
export async function listOrgApprovals(db: Queryable, orgId: string, operatorUserId: string, limit = 100): Promise<ApprovalHistoryEntry[]> {
  const rows = await db
    .select({
      request: approvalRequests,
      askedBy: users.email,
      app: apps.name,
      grant: approvalGrants,
      active: sql<boolean>`coalesce(${approvalGrants.revokedAt} is null and (${approvalGrants.expiresAt} is null or ${approvalGrants.expiresAt} > now()), false)`,
    })
    .from(approvalRequests)
    .innerJoin(users, eq(users.id, approvalRequests.subjectUserId))
    .innerJoin(apps, eq(apps.id, approvalRequests.appId))
    .leftJoin(approvalGrants, eq(approvalGrants.requestId, approvalRequests.id))
    .where(and(eq(approvalRequests.orgId, orgId), sql`(${mayDecideRequest(requestDeciding, operatorUserId)} or exists (select 1 from ${memberships} ho where ho.org_id = ${approvalRequests.orgId} and ho.user_id = ${operatorUserId} and ho.role = 'owner'))`))
    .orderBy(sql`${approvalRequests.createdAt} desc`)
    .limit(limit);
  return rows;
}
