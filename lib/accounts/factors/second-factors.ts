// What second factors a person has (an authenticator app: totp.ts; passkeys: passkeys.ts; recovery codes:
// recovery-codes.ts), as the account page, step-up and the sign-in's second step read it.
import { eq } from 'drizzle-orm';
import type { Queryable } from '../../db/client';
import type { User } from '../users';
import { passkeys, recoveryCodes, totpFactors } from '../../db/schema';

export interface SecondFactorState {
  totp: 'none' | 'pending' | 'confirmed';
  passkeys: number;
  recoveryCodesLeft: number;
}

export async function secondFactorStateOf(db: Queryable, userId: string): Promise<SecondFactorState> {
  const [[factor], codes, keys] = await Promise.all([
    db.select({ confirmedAt: totpFactors.confirmedAt }).from(totpFactors).where(eq(totpFactors.userId, userId)),
    db.select({ usedAt: recoveryCodes.usedAt }).from(recoveryCodes).where(eq(recoveryCodes.userId, userId)),
    db.select({ id: passkeys.id }).from(passkeys).where(eq(passkeys.userId, userId)),
  ]);
  return {
    totp: !factor ? 'none' : factor.confirmedAt ? 'confirmed' : 'pending',
    passkeys: keys.length,
    recoveryCodesLeft: codes.filter((code) => code.usedAt === null).length,
  };
}

/** How many second factors (a confirmed authenticator, passkeys) the person has: 0 is a password alone. */
export async function secondFactorCount(db: Queryable, userId: string): Promise<number> {
  const state = await secondFactorStateOf(db, userId);
  return (state.totp === 'confirmed' ? 1 : 0) + state.passkeys;
}

export const personActor = (user: User, ip: string) => ({ type: 'person' as const, id: user.id, label: user.email, ip });

export const personSubject = (user: User) => ({ type: 'person', id: user.id, label: user.email });
