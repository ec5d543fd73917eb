// Client secrets: 256-bit random values, shown once, stored only as SHA-256.
// A fast hash is right here (unlike passwords): the input has full entropy, so there is nothing to brute-force,
// and the token endpoint must stay fast.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { and, eq, gt, isNull, lte, or, sql } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { clientSecrets, clients } from '../db/schema';

export function generateClientSecret(): string {
  return randomBytes(32).toString('base64url');
}

export function hashClientSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/**
 * True when `presented` matches a secret of the client that is valid now (RFC 6749 §2.3.1).
 * Every stored candidate is compared in constant time, so timing tells nothing about which one matched.
 */
export async function verifyClientSecret(db: Queryable, clientId: string, presented: string): Promise<boolean> {
  // The database's clock, the same one that wrote valid_from / valid_until.
  const now = sql`now()`;
  const candidates = await db
    .select({ secretHash: clientSecrets.secretHash })
    .from(clientSecrets)
    .innerJoin(clients, eq(clients.id, clientSecrets.clientId))
    .where(
      and(
        eq(clientSecrets.clientId, clientId),
        isNull(clients.revokedAt),
        lte(clientSecrets.validFrom, now),
        or(isNull(clientSecrets.validUntil), gt(clientSecrets.validUntil, now)),
      ),
    );
  return matchesSecretHash(presented, candidates.map((candidate) => candidate.secretHash));
}

/** True when `presented` hashes to one of `hashes`; every one is compared in constant time, whichever matches. */
export function matchesSecretHash(presented: string, hashes: readonly string[]): boolean {
  const presentedHash = Buffer.from(hashClientSecret(presented), 'hex');
  let matched = false;
  for (const hash of hashes) {
    const candidate = Buffer.from(hash, 'hex');
    if (candidate.length === presentedHash.length && timingSafeEqual(presentedHash, candidate)) matched = true;
  }
  return matched;
}
