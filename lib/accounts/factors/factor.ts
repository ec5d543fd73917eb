// One shape for the factors a person proves themselves with again for one decision (step-up.ts), as Ory Kratos's
// strategies: each factor's own file says how it is proved — a passkey (passkeys.ts), an authenticator app's code
// (totp.ts), the password (throttled-password-check.ts) — and step-up asks for the strongest one the person has.
// Recovery codes are for signing in, never for step-up.
import type { Queryable } from '../../db/client';
import type { LocalizedText } from '../../i18n/catalogs';
import type { RateLimitRule } from '../../rate-limit/fixed-window';
import type { Refusal } from '../../refusals/refusal';
import type { StepUpField } from '../refusal-codes';
import type { User } from '../users';

export type StepUpFactor = 'passkey' | 'totp' | 'password';

/** A step-up proof as a form sends it: the one field its factor asks for. */
export interface StepUpProof {
  password?: string;
  code?: string;
  /** A passkey assertion (JSON, as the browser gives it) made with the options stepUpPasskeyOptions gave. */
  passkey?: string;
}

/** The WebAuthn relying party: Portico's own origin (passkeys are bound to it). */
export interface RelyingParty {
  rpID: string;
  origin: string;
  name: string;
}

/** One attempt to prove the person with a factor, for one decision (`context`). */
export interface StepUpAttempt {
  db: Queryable;
  atRestKey: Uint8Array;
  user: User;
  proof: StepUpProof;
  ip: string;
  rp: RelyingParty;
  context: string;
  /** The step-up refusal next to this factor's field, in the form's terms. */
  refuse(text: string | LocalizedText, field: StepUpField): Refusal;
}

export interface Factor {
  readonly kind: StepUpFactor;
  /** Proves the person is at the keyboard with this factor, for this decision; throws `attempt.refuse(…)` when not. */
  proveStepUp(attempt: StepUpAttempt): Promise<void>;
}

/**
 * Wrong codes allowed per account per 15 minutes, across sign-ins and step-ups: someone who has the password could
 * otherwise start sign-in after sign-in and try five codes in each. Counted first, taken back on success (only
 * failures add up), so parallel guesses cannot pass.
 */
export const SECOND_FACTOR_THROTTLE: RateLimitRule = { name: 'second_factor:account', limit: 10, windowSeconds: 15 * 60 };
