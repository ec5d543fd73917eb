// The one form of an email address everywhere Portico stores, compares or looks one up: sign-in, invitations, SCIM,
// federated sign-ins and links, CIBA and ID-JAG hints, mail language, the audit log's typed addresses. Trimmed, in
// lower case (Portico treats addresses case-insensitively), and the domain as DNS names it: without the trailing dot of
// a fully qualified name (RFC 1034 §3.1) and internationalized names in their ASCII form (IDNA, RFC 5891), so that
// `ada@EXAMPLE.com.`, `ada@example.com` and `ada@exämple.com` / `ada@xn--exmple-cua.com` are each one address.
import { domainToASCII } from 'node:url';

export function normalizeEmail(email: string): string {
  // NUL (which PostgreSQL text cannot hold) and half surrogate pairs (no character) become U+FFFD: such an address
  // matches no account and is refused as an address, instead of failing the statement that looks it up.
  const trimmed = email.replaceAll('\u0000', '\uFFFD').toWellFormed().trim().toLowerCase();
  const at = trimmed.lastIndexOf('@');
  if (at <= 0) return trimmed;
  const domain = trimmed.slice(at + 1).replace(/\.+$/, '');
  // A domain IDNA cannot map stays as typed (lowercased): it names no mailbox anyone can prove, and is refused where
  // an address must be deliverable.
  return `${trimmed.slice(0, at)}@${(domain && domainToASCII(domain)) || domain}`;
}
