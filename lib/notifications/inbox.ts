// A person's inbox: everything waiting for them now — calls they must confirm (their own, or an agent's of an app
// they decide for) and approval requests they may decide and have not decided yet — with the count the console's
// header shows. The same rules as the pages that act on them (mayAnswer, listCentralRequests).
import { and, asc, eq, gt, isNull, sql } from 'drizzle-orm';
import type { User } from '../accounts/users';
import { listCentralRequests, type CentralRequestView } from '../approvals/central';
import type { Queryable } from '../db/client';
import { agents, apps, confirmationChallenges, organizations } from '../db/schema';
import { mayAnswer } from '../confirmations/answers';

export interface InboxConfirmation {
  id: string;
  tool: string;
  riskLevel: string;
  app: string | null;
  organization: string | null;
  agent: string | null;
  expiresAt: Date;
}

const waitingConfirmations = (viewer: Pick<User, 'id'>) =>
  and(eq(confirmationChallenges.needsHuman, true), isNull(confirmationChallenges.confirmedAt), isNull(confirmationChallenges.deniedAt), gt(confirmationChallenges.expiresAt, sql`now()`), mayAnswer(viewer));

export async function inboxConfirmations(db: Queryable, viewer: Pick<User, 'id'>): Promise<InboxConfirmation[]> {
  return db
    .select({
      id: confirmationChallenges.id,
      tool: confirmationChallenges.tool,
      riskLevel: confirmationChallenges.riskLevel,
      app: apps.name,
      organization: organizations.name,
      agent: sql<string | null>`(select ${agents.name} from ${agents} where ${agents.id} = case when ${confirmationChallenges.actor} <> '' then ${confirmationChallenges.actor} else ${confirmationChallenges.subject} end)`,
      expiresAt: confirmationChallenges.expiresAt,
    })
    .from(confirmationChallenges)
    .leftJoin(apps, eq(apps.id, confirmationChallenges.appId))
    .leftJoin(organizations, eq(organizations.id, sql`coalesce(${confirmationChallenges.orgId}, ${apps.orgId})`))
    .where(waitingConfirmations(viewer))
    .orderBy(asc(confirmationChallenges.expiresAt))
    .limit(100);
}

/** Requests this person may decide now and has not decided. */
export async function inboxRequests(db: Queryable, viewer: User): Promise<CentralRequestView[]> {
  return (await listCentralRequests(db, viewer)).filter((view) => !view.votes.some((vote) => vote.email === viewer.email));
}

/** How many things wait for this person (the header's count). */
export async function inboxCount(db: Queryable, viewer: User): Promise<number> {
  const [[confirmations], requests] = await Promise.all([
    db.select({ n: sql<number>`count(*)::int` }).from(confirmationChallenges).leftJoin(apps, eq(apps.id, confirmationChallenges.appId)).where(waitingConfirmations(viewer)),
    inboxRequests(db, viewer),
  ]);
  return (confirmations?.n ?? 0) + requests.length;
}
