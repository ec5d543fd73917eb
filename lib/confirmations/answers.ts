// A person's answer to a confirmation challenge (human mode): the page at /confirm/<id> shows the call exactly as it
// will run, and the person confirms it with step-up (their strongest factor) or denies it. Who may answer: the
// person who is the token's subject; for an agent acting on its own (an own-mode token of an app), an operator of
// that app. The answer is one conditional UPDATE (a challenge is answered once) and its audit event, in one
// transaction.
import { and, eq, gt, isNull, or, sql } from 'drizzle-orm';
import { CONFIRMATION_TTL_SECONDS, type RiskLevel } from '../../app-kit/risk';
import type { RelyingParty } from '../accounts/factors/factor';
import { verifyStepUp } from '../accounts/factors/step-up';
import { type StepUpFactor, type StepUpProof } from '../accounts/factors/factor';
import type { User } from '../accounts/users';
import { mayDecide } from '../approvals/operators';
import { recordAuditEvent } from '../audit/events';
import type { Database, Queryable } from '../db/client';
import { agents, apps, clientAppLinks, clients, confirmationChallenges, grantBindings } from '../db/schema';
import { isActiveMember } from '../organizations/memberships';
import { PORTICO_INTERNAL_CLIENT_ID } from '../oidc/agent-token-exchange';
import { isConfirmationId } from './urls';
import { localized } from '../i18n/catalogs';
import type Provider from 'oidc-provider';
import { answerBackchannelRequest } from '../oidc/ciba';
import { confirmationRefusal } from './refusal-codes';

export interface ConfirmationView {
  id: string;
  tool: string;
  riskLevel: RiskLevel;
  description: string;
  warning: string | null;
  /** The arguments as the digest binds them (RFC 8785), indented for reading. */
  arguments: string;
  /** The app whose tool it is; null for Portico's own tools. */
  app: string | null;
  /** The OAuth client the call came through (its registered name). */
  client: string;
  /** The agent acting for the person, or the agent acting on its own; null when the person calls. */
  agent: string | null;
  /** Whether the agent acts on its own (an own-mode token): its app's operators answer. */
  agentOnItsOwn: boolean;
  state: 'pending' | 'confirmed' | 'denied';
  decidedWith: string | null;
  /** The organization the call is about, when known (its second-factor policy governs the step-up). */
  orgId: string | null;
  expiresAt: Date;
  expired: boolean;
  /**
   * A CIBA request (lib/oidc/ciba.ts): the app's backend asks; `description` is its binding message and `arguments`
   * its authorization details.
   */
  backchannel: boolean;
}

/** The person answers for themselves; an app's operators answer for an agent acting on its own in that app (the query joins apps). */
export function mayAnswer(viewer: Pick<User, 'id'>) {
  return or(
    eq(confirmationChallenges.subject, viewer.id),
    and(sql`${confirmationChallenges.subject} like 'agt\\_%'`, sql`${confirmationChallenges.appId} is not null`, mayDecide(confirmationChallenges.appId, apps.orgId, viewer.id)),
  );
}

function prettyArguments(canonical: string): string {
  try {
    return JSON.stringify(JSON.parse(canonical), null, 2);
  } catch {
    return canonical;
  }
}

/** The challenge this person may answer, by its public id; undefined for an unknown, in-band or someone else's one. */
export async function findConfirmation(db: Queryable, id: string, viewer: User): Promise<ConfirmationView | undefined> {
  if (!isConfirmationId(id)) return undefined;
  const actingAgent = sql<string | null>`(select ${agents.name} from ${agents} where ${agents.id} = case when ${confirmationChallenges.actor} <> '' then ${confirmationChallenges.actor} else ${confirmationChallenges.subject} end)`;
  const [row] = await db
    .select({
      challenge: confirmationChallenges,
      app: apps.name,
      client: clients.name,
      agent: actingAgent,
      expired: sql<boolean>`${confirmationChallenges.expiresAt} <= now()`,
    })
    .from(confirmationChallenges)
    .leftJoin(apps, eq(apps.id, confirmationChallenges.appId))
    .leftJoin(clients, eq(clients.id, confirmationChallenges.clientId))
    .where(and(eq(confirmationChallenges.id, id), eq(confirmationChallenges.needsHuman, true), mayAnswer(viewer)));
  if (!row) return undefined;
  const { challenge } = row;
  return {
    id: challenge.id,
    tool: challenge.tool,
    riskLevel: challenge.riskLevel as RiskLevel,
    description: challenge.description,
    warning: challenge.warning,
    arguments: prettyArguments(challenge.canonicalArguments),
    app: row.app,
    client: row.client ?? challenge.clientId,
    agent: row.agent,
    agentOnItsOwn: challenge.actor === '' && challenge.subject.startsWith('agt_'),
    state: challenge.deniedAt ? 'denied' : challenge.confirmedAt ? 'confirmed' : 'pending',
    decidedWith: challenge.decidedWith,
    orgId: challenge.orgId,
    expiresAt: challenge.expiresAt,
    expired: row.expired,
    backchannel: challenge.backchannelRequestSealed !== null,
  };
}

export interface ConfirmationAnswer {
  id: string;
  user: User;
  decision: 'confirm' | 'deny';
  /** Step-up for a confirmation (a denial needs none: it only takes power away). */
  proof: StepUpProof;
  ip: string;
}

/**
 * Answers a challenge: a confirmation after step-up with the person's strongest factor (a step-up refusal otherwise), a
 * denial at once. A confirmed token is redeemable for CONFIRMATION_TTL_SECONDS from the confirmation, once.
 */
/** What a passkey step-up for this confirmation is bound to: an assertion made for one confirmation serves no other. */
export const confirmationStepUpContext = (id: string) => `confirmation:${id}`;

export async function answerConfirmation(
  db: Database,
  keys: { atRestKey: Uint8Array; rp: RelyingParty; provider?: Provider },
  input: ConfirmationAnswer,
): Promise<{ view: ConfirmationView; factor?: StepUpFactor; undelivered?: true }> {
  const view = await findConfirmation(db, input.id, input.user);
  if (!view) throw confirmationRefusal('not_found', localized('mcp.confirmationRefusals.notFound'));
  if (view.state !== 'pending' || view.expired) throw confirmationRefusal('decided', view.expired ? localized('mcp.confirmationRefusals.expired') : localized('mcp.confirmationRefusals.decidedAlready', { state: view.state }));
  if (view.backchannel && !keys.provider) throw new Error('answering a CIBA request needs the provider');
  const factor = input.decision === 'confirm' ? await verifyStepUp(db, keys.atRestKey, { user: input.user, proof: input.proof, ip: input.ip, rp: keys.rp, context: confirmationStepUpContext(input.id), orgId: view.orgId }) : undefined;
  const result = await db.transaction(async (tx) => {
    const [answered] = await tx
      .update(confirmationChallenges)
      .set(
        input.decision === 'confirm'
          ? { confirmedAt: sql`now()`, decidedBy: input.user.id, decidedWith: factor, expiresAt: sql`greatest(${confirmationChallenges.expiresAt}, now() + make_interval(secs => ${CONFIRMATION_TTL_SECONDS}))` }
          : { deniedAt: sql`now()`, decidedBy: input.user.id },
      )
      .where(and(eq(confirmationChallenges.id, input.id), eq(confirmationChallenges.needsHuman, true), isNull(confirmationChallenges.confirmedAt), isNull(confirmationChallenges.deniedAt), gt(confirmationChallenges.expiresAt, sql`now()`)))
      .returning();
    if (!answered) throw confirmationRefusal('decided', localized('mcp.confirmationRefusals.answeredMeanwhile'));
    await recordAuditEvent(tx, {
      orgId: answered.orgId,
      actor: { type: 'person', id: input.user.id, label: input.user.email, ip: input.ip },
      act: answered.actor || null,
      clientId: answered.clientId,
      appId: answered.appId,
      action: input.decision === 'confirm' ? 'mcp.tool_confirmed' : 'mcp.tool_denied',
      subject: { type: 'tool', id: answered.tool },
      details: { tool: answered.tool, riskLevel: answered.riskLevel, confirmation: answered.id, subject: answered.subject, arguments: JSON.parse(answered.canonicalArguments) as unknown, ...(factor ? { stepUp: factor } : {}), ...(answered.backchannelRequestSealed ? { via: 'ciba' } : {}) },
    });
    return { answered, view: { ...view, state: input.decision === 'confirm' ? 'confirmed' : 'denied', decidedWith: factor ?? null } as ConfirmationView, ...(factor ? { factor } : {}) };
  });
  // A CIBA request hears the answer once it is recorded (the client's next poll gets the token or access_denied). If
  // this process stops in between, the request stays pending until it expires: the client never gets a token the
  // audit does not show.
  if (keys.provider && result.answered.backchannelRequestSealed) {
    try {
      await answerBackchannelRequest(keys.provider, keys.atRestKey, result.answered, { decision: input.decision, ...(result.factor ? { factor: result.factor } : {}) });
    } catch (error) {
      // The answer is recorded; the app could not be given it (its client revoked meanwhile, the database gone for a
      // moment). The request then expires for the app: the person is told so instead of a crash.
      console.error(`confirmation ${result.answered.id}: the CIBA answer could not be handed to the client: ${error instanceof Error ? error.message : String(error)}`);
      return { view: result.view, ...(result.factor ? { factor: result.factor } : {}), undelivered: true };
    }
  }
  return { view: result.view, ...(result.factor ? { factor: result.factor } : {}) };
}

/**
 * Whether a binding an app sends (the app kit's `confirmations: 'portico'`) is one of that app's calls: the subject a
 * member of its organization (or an agent of it, acting on its own), the actor an agent of it, the client the app's
 * own, one linked or bound to the app, or Portico's internal client (own-mode agent tokens). Anything else would let
 * an app put prompts in front of people it does not serve.
 */
export async function isCallOfApp(db: Queryable, app: { appId: string; orgId: string }, binding: { subject: string; actor: string; clientId: string }): Promise<boolean> {
  const agentOfOrg = async (id: string) => (await db.select({ id: agents.id }).from(agents).where(and(eq(agents.id, id), eq(agents.orgId, app.orgId))).limit(1)).length === 1;
  const subjectOk = binding.subject.startsWith('agt_') ? await agentOfOrg(binding.subject) : await isActiveMember(db, app.orgId, binding.subject);
  if (!subjectOk || (binding.actor !== '' && !(await agentOfOrg(binding.actor)))) return false;
  if (binding.clientId === PORTICO_INTERNAL_CLIENT_ID) return true;
  const [served] = await db
    .select({ id: clients.id })
    .from(clients)
    .where(
      and(
        eq(clients.id, binding.clientId),
        or(
          eq(clients.appId, app.appId),
          sql`exists (select 1 from ${clientAppLinks} where ${clientAppLinks.clientId} = ${clients.id} and ${clientAppLinks.appId} = ${app.appId} and ${clientAppLinks.revokedAt} is null)`,
          sql`exists (select 1 from ${grantBindings} where ${grantBindings.clientId} = ${clients.id} and ${grantBindings.appId} = ${app.appId})`,
        ),
      ),
    )
    .limit(1);
  return served !== undefined;
}
