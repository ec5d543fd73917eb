// The one refusal family (issue 57): every rule Portico refuses on throws a Refusal — its HTTP status, its machine
// code, its words for a person (a catalog key; `message` is their English), the form field it is about and the
// domain whose rule it is. The codes and their statuses live per domain, beside the rules (`lib/<domain>/refusal-codes.ts`,
// as better-auth's error-codes.ts); each door (console form, account page, REST, MCP, SCIM, the central) has one
// `answer` that turns a Refusal into its own shape, and no other code tells refusals apart by class.
// Low level: it imports the catalogs only.
import { textIn, type LocalizedText } from '../i18n/catalogs';

/** A refusal's words: a catalog key with its values (shown in the person's language), or a sentence already written (English). */
export type RefusalText = string | LocalizedText;

export interface RefusalInit {
  /** The HTTP status any door answers it with. */
  status: number;
  /** The machine-readable code (a REST `error`, a SCIM `scimType`, the branch a door's answer takes). */
  code: string;
  /** Its words: a catalog key, shown in the person's language where it is shown; or a sentence already written (English). */
  text: RefusalText;
  /** The form field it is about, when one. */
  field?: string;
  /** Whose rule refused (`approvals`, `central`, `command`, `scim`, …): lets a door's answer tell families apart. */
  domain?: string;
}

export class Refusal extends Error {
  readonly status: number;
  readonly code: string;
  /** The refusal in words for a person, translated where it is shown (lib/i18n/catalogs.ts); `message` is English. */
  readonly text?: LocalizedText;
  readonly field?: string;
  readonly domain?: string;

  constructor(init: RefusalInit) {
    super(typeof init.text === 'string' ? init.text : textIn(init.text));
    this.name = 'Refusal';
    this.status = init.status;
    this.code = init.code;
    if (typeof init.text !== 'string') this.text = init.text;
    if (init.field !== undefined) this.field = init.field;
    if (init.domain !== undefined) this.domain = init.domain;
  }

  /** The code under its older name (an organization operation's `reason`). */
  get reason(): string {
    return this.code;
  }
}

/** The code a status stands for when a rule names none (a REST `error`). */
export function codeOfStatus(status: number): string {
  return status === 404 ? 'not_found' : status === 409 ? 'conflict' : status === 403 ? 'forbidden' : status === 429 ? 'rate_limited' : 'invalid_request';
}

/**
 * `error` as a refusal of `domain`, else undefined: for the few rules that go on after another rule's refusal (a
 * passkey that does not answer is no second step) or restate it in their own terms (a step-up's passkey refusal is
 * about the passkey field). Doors do not use it: each answers every refusal in its own `answer`.
 */
export function refusalOf(error: unknown, domain: string): Refusal | undefined {
  return error instanceof Refusal && error.domain === domain ? error : undefined;
}
