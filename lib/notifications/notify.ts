// Who is told what by mail, in the transaction of the change that causes it: a new approval request reaches the
// people who may decide it, a human confirmation the person it is for (for an agent acting on its own, the app's
// operators). Each person chooses which notices they get (notification_settings), except that the only person
// who may decide a root or permanent request always hears of it. A person who got four notices in the last ten
// minutes gets the next ones together in one digest (the ticker sends it): a burst never floods a mailbox.
// Mails carry a link to the exact page, never a credential: the page asks the person to sign in.
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { ApprovalNotifier, ApprovalRequest } from '../approvals/broker';
import { centralRequestUrl } from '../approvals/central-urls';
import { mayDecide, mayDecideRequest, requestValues } from '../approvals/operators';
import type { Queryable } from '../db/client';
import { agents, apps, confirmationChallenges, memberships, notificationLog, notificationSettings, organizations, teamMembers, users } from '../db/schema';
import { enqueueMail } from '../deliveries/channels/mail';
import { mailTimeZoneFor } from '../i18n/time-zone';
import { mailLocaleFor } from '../i18n/recipient';
import { approvalRequestMail, confirmationRequestMail, type ApprovalFacts, type MailMessage } from '../mail/messages';
import { confirmationPageUrl } from '../confirmations/urls';
import { isUuid } from '../util/uuid';

export interface NotifyDeps {
  issuer: string;
  atRestKey: Uint8Array;
}

/** The notices a person can turn off, and the setting that governs each. */
export type NoticeKind = 'approval_requested' | 'approval_reminder' | 'approval_escalated' | 'confirmation';
const SETTING_OF: Record<NoticeKind, 'approvalRequests' | 'approvalReminders' | 'approvalEscalations' | 'confirmations'> = {
  approval_requested: 'approvalRequests',
  approval_reminder: 'approvalReminders',
  approval_escalated: 'approvalEscalations',
  confirmation: 'confirmations',
};

/** Within this window, a person gets at most this many notices one by one; the rest wait for a digest. */
export const DIGEST_WINDOW_MINUTES = 10;
export const SINGLE_NOTICES_PER_WINDOW = 4;

interface Recipient {
  id: string;
  email: string;
}

/**
 * Queues one notice for a person: logged, and mailed at once unless they got SINGLE_NOTICES_PER_WINDOW already in
 * the window (then it waits for the digest). Counted under a lock on the person, so concurrent notices agree.
 */
async function queueNotice(
  tx: Queryable,
  deps: NotifyDeps,
  input: { recipient: Recipient; orgId: string | null; kind: NoticeKind; subjectId: string; summary: string; link: string; mail: (locale: string, timeZone: string) => MailMessage; actingLocale?: string | null },
): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`notices:${input.recipient.id}`}, 0))`);
  const [recent] = await tx
    .select({ n: sql<number>`count(*)::int` })
    .from(notificationLog)
    .where(and(eq(notificationLog.userId, input.recipient.id), gt(notificationLog.createdAt, sql`now() - make_interval(mins => ${DIGEST_WINDOW_MINUTES})`)));
  const single = recent!.n < SINGLE_NOTICES_PER_WINDOW;
  await tx.insert(notificationLog).values({ userId: input.recipient.id, orgId: input.orgId, kind: input.kind, subjectId: input.subjectId, summary: input.summary, link: input.link, sentAt: single ? sql`now()` : null });
  if (!single) return;
  // In the recipient's language and time zone (lib/i18n/recipient.ts, lib/i18n/time-zone.ts).
  const locale = await mailLocaleFor(tx, { email: input.recipient.email, orgId: input.orgId, actingLocale: input.actingLocale });
  const timeZone = await mailTimeZoneFor(tx, { email: input.recipient.email, orgId: input.orgId });
  await enqueueMail(tx, deps.atRestKey, input.mail(locale, timeZone), input.orgId);
}

/** Whether a person wants this kind of notice (no row: yes). */
async function wants(tx: Queryable, userId: string, kind: NoticeKind): Promise<boolean> {
  const [row] = await tx.select().from(notificationSettings).where(eq(notificationSettings.userId, userId));
  return row ? row[SETTING_OF[kind]] : true;
}

/** The enabled members who may decide the request now (mayDecideRequest: under a policy, never the person it is for). */
export async function decidersOf(tx: Queryable, request: Pick<ApprovalRequest, 'orgId' | 'appId' | 'policyId' | 'subjectUserId' | 'quorum' | 'escalatedAt'>): Promise<Recipient[]> {
  return tx
    .select({ id: users.id, email: users.email })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(
      and(
        eq(memberships.orgId, request.orgId),
        isNull(users.disabledAt),
        mayDecideRequest(requestValues(request), memberships.userId),
      ),
    )
    .orderBy(users.email);
}

/** The people of a team, or the owners: who an escalation reaches. */
export async function escalationGroup(tx: Queryable, orgId: string, to: { kind: 'owners' | 'team'; teamId: string | null }): Promise<Recipient[]> {
  const base = tx.select({ id: users.id, email: users.email }).from(memberships).innerJoin(users, eq(users.id, memberships.userId));
  if (to.kind === 'team' && to.teamId) {
    return base.innerJoin(teamMembers, and(eq(teamMembers.userId, memberships.userId), eq(teamMembers.teamId, to.teamId))).where(and(eq(memberships.orgId, orgId), isNull(users.disabledAt))).orderBy(users.email);
  }
  return base.where(and(eq(memberships.orgId, orgId), eq(memberships.role, 'owner'), isNull(users.disabledAt))).orderBy(users.email);
}

/** What every approval notice says about the request. */
export async function approvalFactsOf(tx: Queryable, deps: NotifyDeps, request: ApprovalRequest): Promise<ApprovalFacts> {
  const [row] = await tx
    .select({ organization: organizations.name, app: apps.name, askedBy: users.email, agent: sql<string | null>`(select ${agents.name} from ${agents} where ${agents.id} = ${request.actor})` })
    .from(apps)
    .innerJoin(organizations, eq(organizations.id, apps.orgId))
    .innerJoin(users, eq(users.id, sql`${request.subjectUserId}::uuid`))
    .where(eq(apps.id, request.appId));
  return {
    organization: row?.organization ?? 'Portico',
    app: row?.app ?? request.appId,
    askedBy: row?.askedBy ?? request.subjectUserId,
    agent: request.actor ? (row?.agent ?? request.actor) : null,
    kind: request.policyKind,
    resource: request.resource,
    profile: request.profile,
    durationSeconds: request.durationSeconds,
    reason: request.reason,
    expiresAt: request.expiresAt,
    quorum: request.quorum,
    link: centralRequestUrl(request.id, deps.issuer),
  };
}

/**
 * Tells people about a request: its deciders (a new request, a reminder) or an escalation group. The only decider of
 * a root or permanent request hears of it whatever their settings: it would otherwise wait for nobody.
 */
export async function notifyAboutRequest(tx: Queryable, deps: NotifyDeps, request: ApprovalRequest, moment: 'requested' | 'reminder' | 'escalated', recipients?: Recipient[]): Promise<number> {
  const people = recipients ?? (await decidersOf(tx, request));
  if (people.length === 0) return 0;
  const facts = await approvalFactsOf(tx, deps, request);
  const kind: NoticeKind = moment === 'requested' ? 'approval_requested' : moment === 'reminder' ? 'approval_reminder' : 'approval_escalated';
  const sole = people.length === 1 && (request.policyKind === 'root' || request.policyKind === 'permanent') && moment !== 'escalated';
  // The language the person who asked chose: a decider with none, in an organization whose default is the
  // browser's, reads the request in it rather than in English.
  const [requester] = await tx.select({ locale: users.locale }).from(users).where(eq(users.id, request.subjectUserId));
  let told = 0;
  for (const person of people) {
    if (!sole && !(await wants(tx, person.id, kind))) continue;
    await queueNotice(tx, deps, {
      recipient: person,
      orgId: request.orgId,
      kind,
      subjectId: request.id,
      summary: `${facts.organization} · ${facts.app}: ${facts.askedBy} — ${request.policyKind}${request.resource ? ` ${request.resource}` : ''}`,
      link: facts.link,
      mail: (locale, timeZone) => approvalRequestMail({ to: person.email, locale, timeZone, moment, facts }),
      actingLocale: requester?.locale,
    });
    told += 1;
  }
  return told;
}

/** The broker's notifier: a new request reaches its deciders in the request's transaction. */
export function approvalNotifier(deps: NotifyDeps): ApprovalNotifier {
  return {
    requested: async (tx, request) => {
      await notifyAboutRequest(tx, deps, request, 'requested');
    },
  };
}

type Challenge = typeof confirmationChallenges.$inferSelect;

/**
 * A challenge a person must confirm: mailed to that person (a member of the organization it is about, or of the app's
 * organization); for an agent acting on its own, to the app's operators.
 */
export async function notifyConfirmation(tx: Queryable, deps: NotifyDeps, challenge: Challenge): Promise<number> {
  if (!challenge.needsHuman) return 0;
  const [appRow] = challenge.appId ? await tx.select({ name: apps.name, orgId: apps.orgId }).from(apps).where(eq(apps.id, challenge.appId)) : [];
  const orgId = challenge.orgId ?? appRow?.orgId ?? null;
  const [org] = orgId ? await tx.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, orgId)) : [];
  const agentId = challenge.actor || (challenge.subject.startsWith('agt_') ? challenge.subject : '');
  const [agent] = agentId ? await tx.select({ name: agents.name }).from(agents).where(eq(agents.id, agentId)) : [];
  const forOperator = challenge.actor === '' && challenge.subject.startsWith('agt_');
  let people: Recipient[] = [];
  if (forOperator) {
    if (!challenge.appId || !orgId) return 0;
    people = await tx
      .select({ id: users.id, email: users.email })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(and(eq(memberships.orgId, orgId), isNull(users.disabledAt), mayDecide(sql`${challenge.appId}::uuid`, sql`${orgId}::uuid`, memberships.userId)));
  } else if (isUuid(challenge.subject)) {
    people = await tx.select({ id: users.id, email: users.email }).from(users).where(and(eq(users.id, challenge.subject), isNull(users.disabledAt)));
  }
  const link = confirmationPageUrl(deps.issuer, challenge.id);
  const app = appRow?.name ?? 'Portico';
  let told = 0;
  for (const person of people) {
    if (!(await wants(tx, person.id, 'confirmation'))) continue;
    await queueNotice(tx, deps, {
      recipient: person,
      orgId,
      kind: 'confirmation',
      subjectId: challenge.id,
      summary: `${app}: ${challenge.tool} (${challenge.riskLevel})`,
      link,
      mail: (locale, timeZone) =>
        confirmationRequestMail({
          to: person.email,
          locale,
          timeZone,
          organization: org?.name ?? null,
          app,
          tool: challenge.tool,
          risk: challenge.riskLevel,
          description: challenge.description,
          warning: challenge.warning,
          agent: agent?.name ?? (agentId || null),
          forOperator,
          expiresAt: challenge.expiresAt,
          link,
          backchannel: challenge.backchannelRequestSealed !== null,
        }),
    });
    told += 1;
  }
  return told;
}
