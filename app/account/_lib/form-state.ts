// What the account forms (invitation, password links, recovery) answer: nothing yet, errors next to their fields,
// or done with what to do next.
export type CardFormState =
  | { status: 'idle' }
  | { status: 'error'; fieldErrors: Record<string, string> }
  /** `codes`: one-time values shown once (recovery codes), listed under the message. */
  | { status: 'done'; message: string; next?: { href: string; label: string }; codes?: string[] };

export const idleCardForm: CardFormState = { status: 'idle' };
