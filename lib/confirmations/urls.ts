// Where a person confirms a held call, built in one place: the confirmation page and the shape of its id. Pure (no
// server imports): the MCP Apps confirmation view bundles it too, to show only this Portico's own page.

const CONFIRMATION_ID = /^cnf_[A-Za-z0-9_-]{32}$/;

export const isConfirmationId = (value: unknown): value is string => typeof value === 'string' && CONFIRMATION_ID.test(value);

/** The page where a person confirms a challenge: in the console (its session cookie is scoped there), by the challenge's public id. */
export function confirmationPageUrl(issuer: string, id: string): string {
  return `${issuer}/console/confirm/${id}`;
}

/** The id of a confirmation page of this issuer, or nothing for any other address (another origin, path or shape). */
export function confirmationIdOfUrl(url: unknown, issuer: string): string | undefined {
  if (typeof url !== 'string') return undefined;
  const prefix = confirmationPageUrl(issuer, '');
  if (!url.startsWith(prefix)) return undefined;
  const id = url.slice(prefix.length);
  return isConfirmationId(id) ? id : undefined;
}
