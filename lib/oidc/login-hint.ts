// `login_hint` (OpenID Connect Core §3.1.2.1): "a hint to the Authorization Server about the login identifier the
// End-User might use". Portico's identifier is the email: an email-shaped hint pre-fills the sign-in card's field,
// anything else is ignored (never echoed: it came from whoever built the link). React escapes what is shown.
import { z } from 'zod';

const emailShaped = z.email().max(320);

/** The email the sign-in card starts with for this hint, if the hint is one. */
export function emailFromLoginHint(hint: unknown): string | undefined {
  if (typeof hint !== 'string') return undefined;
  const parsed = emailShaped.safeParse(hint.trim());
  return parsed.success ? parsed.data : undefined;
}
