// Subjects whose tokens an app refuses before they expire: Portico tells the app, through Shared Signals (RISC
// account-disabled, account-purged), that a person or agent was disabled, and every token of that subject — as
// `sub`, or as the acting agent (`act.sub`) — issued at or before that moment is refused from then on. A token
// issued later (the agent turned on again) is not. Portico's access tokens live ten minutes at most: an entry is
// forgotten once no token it could refuse can still be valid.
//
// One process's memory by default; an app with several instances passes a shared store (each instance receives
// the event only if it is the one Portico pushes to).
import type { VerifiedAccessToken } from './protected-resource';

export interface SubjectRevocations {
  /** Refuse the subject's tokens issued at or before `at` (seconds since the epoch). */
  revoke(subject: string, at: number): void | Promise<void>;
  /** The moment the subject was revoked, if its tokens issued by then must be refused. */
  revokedAt(subject: string): number | undefined | Promise<number | undefined>;
}

/** The longest an access token from Portico lives (lib/oidc/resource-servers.ts ACCESS_TOKEN_TTL_SECONDS), with clock leeway. */
const FORGET_AFTER_SECONDS = 10 * 60 + 120;

export function memorySubjectRevocations(now: () => number = () => Date.now() / 1000): SubjectRevocations {
  const revoked = new Map<string, number>();
  return {
    revoke(subject, at) {
      for (const [key, when] of revoked) if (when + FORGET_AFTER_SECONDS < now()) revoked.delete(key);
      revoked.set(subject, Math.max(at, revoked.get(subject) ?? 0));
    },
    revokedAt: (subject) => revoked.get(subject),
  };
}

/** Whether the token speaks for (or through) a subject revoked after it was issued. */
export async function isRevokedToken(revocations: SubjectRevocations, token: VerifiedAccessToken): Promise<boolean> {
  const issuedAt = typeof token.claims.iat === 'number' ? token.claims.iat : 0;
  for (const subject of [token.subject, token.actor]) {
    if (subject === undefined) continue;
    const at = await revocations.revokedAt(subject);
    if (at !== undefined && issuedAt <= at) return true;
  }
  return false;
}
