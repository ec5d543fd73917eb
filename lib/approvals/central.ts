// The operator central's server side: its own sessions (15 minutes, bound to the operator, the credential version,
// the origin and the installation), decision nonces (single use, 60 s, bound to session, request, fingerprint and
// installation), and the one decision path, which can only list, query, approve and deny temporary requests of
// the apps the operator may decide for (designated operators, or the owners). No admin powers, no permanent grants: the broker enforces both.
import { createHash, randomBytes } from 'node:crypto';
import { isApprovalRequestId } from './central-urls';
import { and, asc, desc, eq, gt, isNull, sql, type SQL } from 'drizzle-orm';
import { relyingPartyOf } from '../accounts/factors/passkeys';
import { stepUpFactorOf, verifyStepUp } from '../accounts/factors/step-up';
import { type StepUpProof } from '../accounts/factors/factor';
import type { User } from '../accounts/users';
import { postgresErrorCode, type Database, type Queryable } from '../db/client';
import { recordAuditEvent } from '../audit/events';
import { approvalGrants, approvalPolicies, approvalRequests, approvalVotes, apps, centralSessions, clients, decisionNonces, teams, users } from '../db/schema';
import { decideApprovalRequest, revokeGrantIn, type ApprovalGrant, type ApprovalRequest, type DecisionResult } from './broker';
import { mayDecideRequest, mayRevokeGrant, requestDeciding } from './operators';
import { localized } from '../i18n/catalogs';
import { approvalRefusal, centralRefusal } from './refusal-codes';

export const CENTRAL_COOKIE = 'portico_central';
export const CENTRAL_SESSION_SECONDS = 15 * 60;
export const DECISION_NONCE_SECONDS = 60;
/**
 * How long a second factor proven at the central's sign-in stands in for a decision's step-up (issue 56, item 5).
 * Safe because it is the same proof, just as fresh: the session is this browser's alone (an HttpOnly,
 * SameSite=Strict cookie on /central), it was opened by that very factor a moment ago, and it counts only while that
 * factor is still the operator's strongest. Five minutes: enough to open the mail's link and read a request or two
 * after signing in, short enough that a session left open asks for the factor again. A password alone never counts
 * (it is what a phishing page collects), nor a recovery code or a company's sign-in.
 */
export const STEP_UP_FROM_SIGN_IN_SECONDS = 5 * 60;

const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url');

export interface CentralBinding {
  /** The origin the central is served at (the issuer's). */
  origin: string;
  /** This Portico installation (its issuer): a session or nonce of another installation never counts. */
  installation: string;
  /** The external central (its own tab) or the embedded one (framed): each has its own sessions. */
  surface: CentralSurfaceKind;
}

export type CentralSurfaceKind = 'external' | 'embedded';

/** The embedded central's cookie: another name and path than the external one's, so neither is sent to the other. */
export const EMBEDDED_CENTRAL_COOKIE = 'portico_central_embedded';

export interface CentralSession {
  user: User;
  tokenHash: string;
  /**
   * The second factor this session's sign-in proved, and until when it counts as a decision's step-up; null once
   * that window has passed, or when the sign-in proved none.
   */
  signInStepUp: { factor: CentralSignInFactor; until: Date } | null;
}

/** A second factor a central sign-in proved: an authenticator's code, or a passkey with user verification. */
export type CentralSignInFactor = 'totp' | 'passkey';

/** `signInFactor`: the second factor the sign-in proved (none for a password alone, a recovery code or a company's sign-in). */
export async function openCentralSession(db: Queryable, user: User, binding: CentralBinding, signInFactor?: CentralSignInFactor): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await db.insert(centralSessions).values({
    tokenHash: sha256(token),
    userId: user.id,
    credentialVersion: user.credentialVersion,
    origin: binding.origin,
    installation: binding.installation,
    surface: binding.surface,
    signInFactor: signInFactor ?? null,
    expiresAt: sql`now() + make_interval(secs => ${CENTRAL_SESSION_SECONDS})`,
  });
  return token;
}

/** The live session a cookie names: unexpired, same origin and installation, same credential version, person enabled. */
export async function findCentralSession(db: Queryable, token: string | undefined, binding: CentralBinding): Promise<CentralSession | undefined> {
  if (!token || !/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
  const tokenHash = sha256(token);
  const [row] = await db
    .select({
      user: users,
      credentialVersion: centralSessions.credentialVersion,
      signInFactor: centralSessions.signInFactor,
      // The database's clock decides the window, as it does the session's own expiry.
      stepUpUntil: sql<Date | string | null>`case when ${centralSessions.createdAt} + make_interval(secs => ${STEP_UP_FROM_SIGN_IN_SECONDS}) > now() then ${centralSessions.createdAt} + make_interval(secs => ${STEP_UP_FROM_SIGN_IN_SECONDS}) end`,
    })
    .from(centralSessions)
    .innerJoin(users, eq(users.id, centralSessions.userId))
    .where(and(eq(centralSessions.tokenHash, tokenHash), gt(centralSessions.expiresAt, sql`now()`), eq(centralSessions.origin, binding.origin), eq(centralSessions.installation, binding.installation), eq(centralSessions.surface, binding.surface)));
  if (!row || row.user.disabledAt || row.credentialVersion !== row.user.credentialVersion) return undefined;
  const signInStepUp = row.signInFactor && row.stepUpUntil ? { factor: row.signInFactor, until: new Date(row.stepUpUntil) } : null;
  return { user: row.user, tokenHash, signInStepUp };
}

/**
 * Until when this session's sign-in stands in for a decision's step-up: its factor must still be the operator's
 * strongest (one who added a passkey since is asked for the passkey), within STEP_UP_FROM_SIGN_IN_SECONDS.
 */
export async function stepUpCoveredUntil(db: Queryable, session: CentralSession): Promise<Date | undefined> {
  if (!session.signInStepUp) return undefined;
  return (await stepUpFactorOf(db, session.user.id)) === session.signInStepUp.factor ? session.signInStepUp.until : undefined;
}

/** Logout: the session and its nonces are gone; nothing the broker confirmed is undone, no grant is revoked. */
export async function endCentralSession(db: Queryable, token: string | undefined): Promise<void> {
  if (token) await db.delete(centralSessions).where(eq(centralSessions.tokenHash, sha256(token)));
}

export interface CentralRequestView {
  id: string;
  /** The organization the request is in (its second-factor policy governs the step-up). */
  orgId: string;
  state: string;
  expired: boolean;
  app: string;
  askedBy: string;
  actor: string;
  /** The OAuth client the request came through, and its registered name when it has a row. */
  clientId: string;
  clientName: string | null;
  kind: ApprovalRequest['kind'];
  resource: string | null;
  profile: ApprovalRequest['profile'];
  durationSeconds: number | null;
  reason: string;
  fingerprint: string;
  centralEligible: boolean;
  /** Approving needs the operator's strongest factor again (needsStepUp). */
  stepUp: boolean;
  createdAt: string;
  expiresAt: string;
  /** The grant in force for this request, which the operator may revoke here. */
  activeGrantId: string | null;
  /** What became of the grant of an approved request. */
  grantState: 'active' | 'revoked' | 'expired' | null;
  /** Its kind for the approval policies. */
  policyKind: ApprovalRequest['policyKind'];
  /** The person it is for: under a policy, never one of its deciders. */
  subjectUserId: string;
  /** The approvals it needs, and the decisions recorded so far (who, what, when). */
  quorum: number;
  anyDenyEnds: boolean;
  votes: { email: string; decision: 'approve' | 'deny'; decidedAt: string }[];
  /** The policy that governs it, in words the page turns into a sentence; null: the default rule. */
  policy: { scope: 'app' | 'organization'; deciders: string; teamName: string | null; escalateAt: string | null; escalatedAt: string | null; maxGrantSeconds: number | null } | null;
}

/**
 * Approving needs the operator's strongest factor for everything but reading one path for a while: work and compose,
 * whatever only a policy lets the central decide (broad, root, permanent), and any decision that is one of a
 * quorum's (each decider steps up on their own). Read alone needs an explicit confirmation.
 */
const needsStepUp = (request: Pick<ApprovalRequest, 'profile' | 'policyKind' | 'quorum'>) =>
  request.profile === 'work' || request.profile === 'compose' || (request.policyKind !== 'read' && request.policyKind !== 'write') || request.quorum > 1;

async function views(db: Queryable, where: ReturnType<typeof and>, order: 'newest' | 'expiring' = 'newest'): Promise<CentralRequestView[]> {
  const rows = await db
    .select({
      request: approvalRequests,
      app: apps.name,
      email: users.email,
      clientName: clients.name,
      expired: sql<boolean>`${approvalRequests.expiresAt} <= now()`,
      activeGrantId: sql<string | null>`case when ${approvalGrants.revokedAt} is null and (${approvalGrants.expiresAt} is null or ${approvalGrants.expiresAt} > now()) then ${approvalGrants.id} end`,
      grantState: sql<'active' | 'revoked' | 'expired' | null>`case when ${approvalGrants.id} is null then null when ${approvalGrants.revokedAt} is not null then 'revoked' when ${approvalGrants.expiresAt} <= now() then 'expired' else 'active' end`,
      votes: sql<{ email: string; decision: 'approve' | 'deny'; decidedAt: string }[] | null>`(select json_agg(json_build_object('email', vu.email, 'decision', v.decision, 'decidedAt', v.decided_at) order by v.decided_at) from ${approvalVotes} v join ${users} vu on vu.id = v.user_id where v.request_id = ${approvalRequests.id})`,
      policy: sql<{ scope: 'app' | 'organization'; deciders: string; teamName: string | null } | null>`(select json_build_object('scope', case when p.app_id is null then 'organization' else 'app' end, 'deciders', p.deciders, 'teamName', (select t.name from ${teams} t where t.id = p.team_id)) from ${approvalPolicies} p where p.id = ${approvalRequests.policyId})`,
    })
    .from(approvalRequests)
    .innerJoin(apps, eq(apps.id, approvalRequests.appId))
    .innerJoin(users, eq(users.id, approvalRequests.subjectUserId))
    .leftJoin(clients, eq(clients.id, approvalRequests.clientId))
    .leftJoin(approvalGrants, eq(approvalGrants.requestId, approvalRequests.id))
    .where(where)
    // Pending lists: the ones that expire first come first, so none is hidden behind newer ones.
    .orderBy(order === 'expiring' ? asc(approvalRequests.expiresAt) : desc(approvalRequests.createdAt))
    .limit(300);
  return rows.map(({ request, app, email, clientName, expired, activeGrantId, grantState, votes, policy }) => ({
    id: request.id,
    orgId: request.orgId,
    state: request.state,
    expired,
    app,
    askedBy: email,
    actor: request.actor,
    clientId: request.clientId,
    clientName: clientName ?? null,
    kind: request.kind,
    resource: request.resource,
    profile: request.profile,
    durationSeconds: request.durationSeconds,
    reason: request.reason,
    fingerprint: request.fingerprint,
    centralEligible: request.centralEligible,
    stepUp: needsStepUp(request),
    createdAt: request.createdAt.toISOString(),
    expiresAt: request.expiresAt.toISOString(),
    activeGrantId: activeGrantId ?? null,
    grantState: grantState ?? null,
    policyKind: request.policyKind,
    subjectUserId: request.subjectUserId,
    quorum: request.quorum,
    anyDenyEnds: request.anyDenyEnds,
    votes: (typeof votes === 'string' ? (JSON.parse(votes) as typeof votes) : votes) ?? [],
    policy: policy
      ? { ...(typeof policy === 'string' ? (JSON.parse(policy) as typeof policy) : policy)!, escalateAt: request.escalateAt?.toISOString() ?? null, escalatedAt: request.escalatedAt?.toISOString() ?? null, maxGrantSeconds: request.maxGrantSeconds }
      : null,
  }));
}

/** Pending, unexpired requests the operator may decide here. */
export async function listCentralRequests(db: Queryable, operator: User): Promise<CentralRequestView[]> {
  return views(
    db,
    and(
      mayDecideRequest(requestDeciding, operator.id),
      eq(approvalRequests.state, 'pending'),
      gt(approvalRequests.expiresAt, sql`now()`),
      eq(approvalRequests.centralEligible, true),
    ),
    'expiring',
  );
}

/** One request by its id, whatever its state, if the operator has authority over it; undefined otherwise. */
export async function findCentralRequest(db: Queryable, operator: User, requestId: string): Promise<CentralRequestView | undefined> {
  if (!isApprovalRequestId(requestId)) return undefined;
  const [view] = await views(db, and(eq(approvalRequests.id, requestId), mayDecideRequest(requestDeciding, operator.id)));
  return view;
}

/** A decision nonce for this session, request and fingerprint: the proof a decision POST must carry. */
export async function issueDecisionNonce(db: Queryable, session: CentralSession, requestId: string, binding: CentralBinding): Promise<string> {
  const request = await findCentralRequest(db, session.user, requestId);
  if (!request) throw approvalRefusal('not_found', localized('approvals.refusals.notYoursToDecide'));
  const nonce = randomBytes(24).toString('base64url');
  await insertNonce(db, {
    nonceHash: sha256(nonce),
    sessionTokenHash: session.tokenHash,
    requestId,
    fingerprint: request.fingerprint,
    installation: binding.installation,
    expiresAt: sql`now() + make_interval(secs => ${DECISION_NONCE_SECONDS})`,
  });
  return nonce;
}

/** A session that ended a moment ago (its row is gone, so the foreign key refuses the nonce) is a session refusal. */
async function insertNonce(db: Queryable, values: Omit<typeof decisionNonces.$inferInsert, "expiresAt"> & { expiresAt: SQL }): Promise<void> {
  try {
    await db.insert(decisionNonces).values(values);
  } catch (error) {
    if (postgresErrorCode(error) === '23503') throw centralRefusal('session', localized('approvals.refusals.sessionEnded'));
    throw error;
  }
}

/** What a passkey step-up of a decision is bound to: its nonce (by hash), used once with it. */
export const decisionStepUpContext = (nonce: string) => `decision:${sha256(nonce)}`;

export interface CentralDecision {
  sessionToken: string | undefined;
  requestId: string;
  fingerprint: string;
  nonce: string;
  decision: 'approve' | 'deny';
  /** Step-up: the operator's password, typed again for this request (work and compose), when that is their strongest factor. */
  password?: string;
  /** Step-up by the operator's strongest factor (lib/accounts/factors/step-up.ts); a passkey's assertion is bound to this nonce. */
  proof?: StepUpProof;
  /** Checks authenticator codes (the at-rest key decrypts their secrets). */
  atRestKey?: Uint8Array;
  /** The explicit confirmation a read approval needs each time. */
  confirmed?: boolean;
  ip: string;
  /** Fault injection for tests: runs between the step-up and the decision's transaction (a logout, say). */
  afterStepUp?: () => Promise<void>;
}

/**
 * The central's one way to decide. Order matters: session → authority → step-up (approvals of work/compose; never
 * for a denial) → then, inside the broker's transaction on the locked request, the session again (a logout during
 * step-up refuses) and the nonce, consumed only if it matches session, request, fingerprint and installation and
 * has not expired. Any refusal writes nothing.
 */
export async function decideInCentral(db: Database, input: CentralDecision, binding: CentralBinding): Promise<DecisionResult> {
  const session = await findCentralSession(db, input.sessionToken, binding);
  if (!session) throw centralRefusal('session', localized('approvals.refusals.sessionEnded'));
  const view = await findCentralRequest(db, session.user, input.requestId);
  if (!view) throw approvalRefusal('not_authorized', localized('approvals.refusals.notYoursToDecide'));
  if (input.decision === 'approve') {
    if (view.stepUp) {
      // The strongest factor the operator has (a passkey, else their authenticator's code, else the password); a
      // passkey's assertion was made for this very nonce, which the decision consumes below.
      const proof: StepUpProof = input.proof ?? { password: input.password };
      const factor = await stepUpFactorOf(db, session.user.id);
      const given = factor === 'passkey' ? proof.passkey : factor === 'totp' ? proof.code : proof.password;
      // Nothing typed: the second factor proven at this session's sign-in counts while it is fresh (one step to decide).
      if (!given && (await stepUpCoveredUntil(db, session))) return decide(db, input, binding, session);
      if (!given) throw centralRefusal('step_up', localized('approvals.refusals.stepUpNeeded', { profile: view.profile ?? '', factor }));
      if (factor === 'totp' && !input.atRestKey) throw new Error('decideInCentral needs the at-rest key to check an authenticator code');
      // Its refusal is the step-up's own (code step_up, 403), answered by the central as its own.
      await verifyStepUp(db, input.atRestKey ?? new Uint8Array(), { user: session.user, proof, ip: input.ip, rp: relyingPartyOf(binding.installation), context: decisionStepUpContext(input.nonce), orgId: view.orgId });
    } else if (input.confirmed !== true) {
      throw centralRefusal('step_up', localized('approvals.refusals.confirmExplicitly'));
    }
  }
  return decide(db, input, binding, session);
}

/** The decision's transaction, once the step-up (or the confirmation) is settled. */
async function decide(db: Database, input: CentralDecision, binding: CentralBinding, session: CentralSession): Promise<DecisionResult> {
  await input.afterStepUp?.();
  return decideApprovalRequest(db, {
    requestId: input.requestId,
    decision: input.decision,
    fingerprint: input.fingerprint,
    channel: 'central',
    decidedBy: session.user.id,
    actor: { type: 'person', id: session.user.id, label: session.user.email, ip: input.ip },
    verifyInTransaction: async (tx) => {
      // The session must still exist now, and cannot end before this transaction commits (the row is locked).
      const [live] = await tx
        .select({ tokenHash: centralSessions.tokenHash, credentialVersion: centralSessions.credentialVersion, current: users.credentialVersion })
        .from(centralSessions)
        .innerJoin(users, eq(users.id, centralSessions.userId))
        .where(and(eq(centralSessions.tokenHash, session.tokenHash), gt(centralSessions.expiresAt, sql`now()`), isNull(users.disabledAt)))
        .for('share', { of: centralSessions });
      if (!live || live.credentialVersion !== live.current) throw centralRefusal('session', localized('approvals.refusals.sessionEndedBeforeDecision'));
      // The authority again, now: an operator removed or an owner demoted meanwhile decides nothing.
      const [authorized] = await tx.select({ id: approvalRequests.id }).from(approvalRequests).where(and(eq(approvalRequests.id, input.requestId), mayDecideRequest(requestDeciding, session.user.id)));
      if (!authorized) throw approvalRefusal('not_authorized', localized('approvals.refusals.noLongerYours'));
      const consumed = await tx
        .delete(decisionNonces)
        .where(
          and(
            eq(decisionNonces.nonceHash, sha256(input.nonce)),
            eq(decisionNonces.sessionTokenHash, session.tokenHash),
            eq(decisionNonces.requestId, input.requestId),
            eq(decisionNonces.fingerprint, input.fingerprint),
            eq(decisionNonces.installation, binding.installation),
            gt(decisionNonces.expiresAt, sql`now()`),
          ),
        )
        .returning({ nonceHash: decisionNonces.nonceHash });
      if (consumed.length !== 1) throw centralRefusal('nonce', localized('approvals.refusals.proofSpent'));
    },
  });
}

/** Revocation from the central: explicit, by an operator of the grant's organization, audited. */
export async function revokeInCentral(db: Database, input: { sessionToken: string | undefined; grantId: string; ip: string }, binding: CentralBinding): Promise<ApprovalGrant> {
  const session = await findCentralSession(db, input.sessionToken, binding);
  if (!session) throw centralRefusal('session', localized('approvals.refusals.sessionEnded'));
  return db.transaction(async (tx) => {
    const [grant] = await tx
      .select({ orgId: approvalGrants.orgId })
      .from(approvalGrants)
      .where(and(eq(approvalGrants.id, input.grantId), mayRevokeGrant(approvalGrants.requestId, approvalGrants.orgId, session.user.id)));
    if (!grant) throw approvalRefusal('not_authorized', localized('approvals.refusals.notYoursToRevoke'));
    const revoked = await revokeGrantIn(tx, input.grantId, session.user.id, { orgId: grant.orgId, operatorUserId: session.user.id });
    await recordAuditEvent(tx, {
      orgId: revoked.orgId,
      actor: { type: 'person', id: session.user.id, label: session.user.email, ip: input.ip },
      act: revoked.actor || null,
      action: 'approval.grant_revoked',
      subject: { type: 'approval_grant', id: revoked.id },
      appId: revoked.appId,
      details: { requestId: revoked.requestId, via: 'central' },
    });
    return revoked;
  });
}

