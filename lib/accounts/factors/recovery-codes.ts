// Recovery codes: ten single-use codes that stand in for a person's second factor when it is lost (for signing in,
// never for step-up), shown once and stored as SHA-256 hashes; a code is spent by a conditional UPDATE, so two
// concurrent uses of one have one winner.
import { createHash, randomBytes } from 'node:crypto';
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Queryable } from '../../db/client';
import { recoveryCodes } from '../../db/schema';

export const RECOVERY_CODE_COUNT = 10;

/** A fresh set of recovery codes (the previous ones stop working), returned once. */
export async function replaceRecoveryCodes(db: Queryable, userId: string): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => newRecoveryCode());
  await db.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId));
  await db.insert(recoveryCodes).values(codes.map((code) => ({ userId, codeHash: hashRecoveryCode(code)! })));
  return codes;
}

/** 80 random bits as four groups of four base32 characters: `k3xq-7mwa-…`. */
function newRecoveryCode(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  const bytes = randomBytes(16);
  const characters = [...bytes].map((byte) => alphabet[byte & 31]).join('');
  return characters.match(/.{4}/g)!.join('-');
}

function hashRecoveryCode(code: string): string | undefined {
  const normalized = code.toLowerCase().replace(/[\s-]+/g, '');
  if (!/^[a-z2-7]{16}$/.test(normalized)) return undefined;
  return createHash('sha256').update(normalized).digest('base64url');
}

/** Uses one recovery code: true once, false for an unknown or used one. */
export async function useRecoveryCode(db: Queryable, userId: string, code: string): Promise<boolean> {
  const codeHash = hashRecoveryCode(code);
  if (!codeHash) return false;
  const used = await db
    .update(recoveryCodes)
    .set({ usedAt: sql`now()` })
    .where(and(eq(recoveryCodes.userId, userId), eq(recoveryCodes.codeHash, codeHash), isNull(recoveryCodes.usedAt)))
    .returning({ id: recoveryCodes.id });
  return used.length === 1;
}
