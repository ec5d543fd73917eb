// Text from outside (a client's name, an IdP's claim, a person's input) placed in HTML Portico writes by hand: the
// pages oidc-provider renders, the mails, the recovery-code file. React escapes what it renders itself.
export function escapeHtml(value: unknown): string {
  return String(value)
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}
