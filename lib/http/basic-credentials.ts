// A client's id and secret from an HTTP Basic Authorization header, decoded as RFC 6749 §2.3.1 says (each
// form-urlencoded before they are joined): the one reading for every endpoint an app's own client authenticates to
// with its secret outside oidc-provider (Shared Signals streams, the AuthZEN decision point).

export interface BasicCredentials {
  clientId: string;
  secret: string;
}

/**
 * The credentials, or undefined for a header that is absent or not Basic, not decodable, or names a client id that
 * could match no client: longer than 256 characters, or holding a control character (PostgreSQL's text holds no NUL,
 * and such an id must not reach a query); an empty secret or one over 512 characters likewise.
 */
export function basicCredentials(header: string | null): BasicCredentials | undefined {
  const match = /^Basic ([A-Za-z0-9+/=]{1,1024})$/i.exec((header ?? '').trim());
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  let clientId: string;
  let secret: string;
  try {
    clientId = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '));
    secret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
  if (clientId.length > 256 || /[\u0000-\u001f]/.test(clientId) || secret.length === 0 || secret.length > 512) return undefined;
  return { clientId, secret };
}
