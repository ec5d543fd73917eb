// What the account forms (invitation, password links, recovery) answer: nothing yet, errors next to their fields,
// or done with what to do next.
export type CardFormState =
  | { status: 'idle' }
  | { status: 'error'; fieldErrors: Record<string, string> }
  | { status: 'done'; message: string; next?: { href: string; label: string } };

export const idleCardForm: CardFormState = { status: 'idle' };
