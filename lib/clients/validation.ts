// Checks on what people register for an app: its origin, redirect URIs and slug. Each returns a message that
// says what is wrong, for the CLI, the console and the API alike.
import { isLoopbackHost } from '../http/loopback-host';

export type Validated<T> = { ok: true; value: T } | { ok: false; error: string };

export function validateSlug(value: string): Validated<string> {
  return /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/.test(value)
    ? { ok: true, value }
    : { ok: false, error: `"${value}" is not a valid slug: use 1-64 lowercase letters, digits and inner hyphens` };
}

/** An app's publish origin: https, or http on a loopback host; a bare origin. */
export function validateAppOrigin(value: string): Validated<string> {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { ok: false, error: `"${value}" is not a URL; give the app's origin, e.g. https://app.example.com` };
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    return { ok: false, error: `"${value}" must use https (plain http only on a loopback host)` };
  }
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash || url.username || url.password) {
    return { ok: false, error: `"${value}" must be a bare origin, without path, query or credentials` };
  }
  return { ok: true, value: url.origin };
}

/**
 * A redirect URI of an app's own (confidential, web) client: an absolute https URL, or http on loopback
 * (RFC 8252 §7.3); no fragment (RFC 6749 §3.1.2); compared later by exact string match (RFC 9700 §4.1.3).
 */
export function validateRedirectUri(value: string): Validated<string> {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { ok: false, error: `"${value}" is not an absolute URL` };
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    return { ok: false, error: `"${value}" must use https (plain http only on a loopback host)` };
  }
  if (url.hash || value.includes('#')) return { ok: false, error: `"${value}" must not contain a fragment` };
  if (url.username || url.password) return { ok: false, error: `"${value}" must not contain credentials` };
  if (value.includes('*')) return { ok: false, error: `"${value}": wildcards are not allowed; register each URI exactly` };
  // One spelling per URI: the origins of these URIs name the app's resource and must be exclusive, which a second
  // spelling of one origin (upper-case host, explicit default port) would slip past.
  if (url.href !== value) return { ok: false, error: `"${value}": write it in its canonical form, ${url.href}` };
  return { ok: true, value };
}
