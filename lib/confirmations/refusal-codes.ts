// lib/confirmations's refusals (issue 57): a confirmation challenge's answer refused. One family
// (lib/refusals/refusal.ts); the `domain` says whose rule refused.
import type { LocalizedText } from '../i18n/catalogs';
import { Refusal } from '../refusals/refusal';

export const CONFIRMATION_REFUSAL_STATUS = {
  // A challenge not there (or not the person's to answer), or answered or expired already.
  not_found: 404,
  decided: 409,
} as const satisfies Record<string, number>;

/** A confirmation challenge refused. Its words as a catalog key (mcp.confirmationRefusals.…), for the page to show in the person's language. */
export function confirmationRefusal(code: keyof typeof CONFIRMATION_REFUSAL_STATUS, text: LocalizedText): Refusal {
  return new Refusal({ domain: 'confirmation', status: CONFIRMATION_REFUSAL_STATUS[code], code, text });
}
