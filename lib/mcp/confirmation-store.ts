// The confirmation gate's store for Portico: challenges in PostgreSQL. `consume` is one DELETE … RETURNING that
// matches the whole binding and the expiry, so of two concurrent retries on any instances exactly one gets the row.
// Times are the gate's clock (passed in), not the database's, so tests can move time forward.
import { and, eq, gt, lte, sql } from 'drizzle-orm';
import type { ConfirmationStore } from '../../app-kit/risk';
import type { Queryable } from '../db/client';
import { confirmationChallenges } from '../db/schema';

const MAX_PER_SUBJECT = 50;

export function postgresConfirmationStore(db: Queryable): ConfirmationStore {
  return {
    async save(nonceHash, binding, expiresAt) {
      await db.insert(confirmationChallenges).values({ nonceHash, ...binding, expiresAt });
      // At most MAX_PER_SUBJECT open challenges a subject: the oldest go (a dropped token only means a new challenge).
      await db.execute(sql`
        delete from ${confirmationChallenges} where ${confirmationChallenges.subject} = ${binding.subject} and ${confirmationChallenges.nonceHash} in (
          select ${confirmationChallenges.nonceHash} from ${confirmationChallenges} where ${confirmationChallenges.subject} = ${binding.subject}
          order by ${confirmationChallenges.expiresAt} desc offset ${MAX_PER_SUBJECT})`);
    },
    async consume(nonceHash, binding, now) {
      const consumed = await db
        .delete(confirmationChallenges)
        .where(
          and(
            eq(confirmationChallenges.nonceHash, nonceHash),
            eq(confirmationChallenges.tool, binding.tool),
            eq(confirmationChallenges.subject, binding.subject),
            eq(confirmationChallenges.actor, binding.actor),
            eq(confirmationChallenges.clientId, binding.clientId),
            eq(confirmationChallenges.argumentsDigest, binding.argumentsDigest),
            gt(confirmationChallenges.expiresAt, now),
          ),
        )
        .returning({ nonceHash: confirmationChallenges.nonceHash });
      return consumed.length === 1;
    },
    async purgeExpired(now) {
      const purged = await db.delete(confirmationChallenges).where(lte(confirmationChallenges.expiresAt, now)).returning({ nonceHash: confirmationChallenges.nonceHash });
      return purged.length;
    },
  };
}
