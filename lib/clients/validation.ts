// Checks on what people register for an app: its origin, redirect URIs and slug. Each returns a message that
// says what is wrong, for the CLI, the console and the API alike: `error` in English, `text` its catalog key (the
// console shows it in the person's language).
import { isLoopbackHost } from '../http/loopback-host';
import { localized, textIn, type LocalizedText } from '../i18n/catalogs';

export type Validated<T> = { ok: true; value: T } | { ok: false; error: string; text: LocalizedText };

function refused(text: LocalizedText): { ok: false; error: string; text: LocalizedText } {
  return { ok: false, error: textIn(text), text };
}

export function validateSlug(value: string): Validated<string> {
  return /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/.test(value) ? { ok: true, value } : refused(localized('refusals.validation.slug', { value }));
}

/** An app's publish origin: https, or http on a loopback host; a bare origin. */
export function validateAppOrigin(value: string): Validated<string> {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return refused(localized('refusals.validation.originNotUrl', { value }));
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    return refused(localized('refusals.validation.https', { value }));
  }
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash || url.username || url.password) {
    return refused(localized('refusals.validation.bareOrigin', { value }));
  }
  return { ok: true, value: url.origin };
}

/**
 * A redirect URI of an app's own (confidential, web) client: an absolute https URL, or http on loopback
 * (RFC 8252 §7.3); no fragment (RFC 6749 §3.1.2); compared later by exact string match (RFC 9700 §4.1.3).
 */
export function validateRedirectUri(value: string, profile: 'web' | 'spa' | 'native' = 'web'): Validated<string> {
  if (profile === 'native') {
    const scheme = nonWebSchemeOf(value);
    if (scheme) return validatePrivateUseRedirectUri(value, scheme);
  }
  const checked = checkReturnUri(value);
  const native = checked.ok && profile === 'native' ? nativeAddressProblem(value, checked.value) : undefined;
  if (native) return native;
  if (!checked.ok) return checked;
  // One spelling per URI: the origins of these URIs name the app's resource and must be exclusive, which a second
  // spelling of one origin (upper-case host, explicit default port) would slip past.
  if (checked.value.href !== value) return refused(localized('refusals.validation.canonical', { value, canonical: checked.value.href }));
  return { ok: true, value };
}

/**
 * Where RP-initiated logout may return (OpenID Connect RP-Initiated Logout 1.0 §3.1): the same rules as a redirect URI
 * but kept exactly as written. end_session compares the relying party's post_logout_redirect_uri by exact string
 * match, and relying parties send what they were configured with — express-openid-connect sends its base URL,
 * `http://127.0.0.1:4660` without a path — so the form an RP sends is the form an admin copies, and nothing else
 * hangs on its origin (it names no resource).
 */
export function validatePostLogoutRedirectUri(value: string, profile: 'web' | 'spa' | 'native' = 'web'): Validated<string> {
  if (profile === 'native') {
    const scheme = nonWebSchemeOf(value);
    if (scheme) return validatePrivateUseRedirectUri(value, scheme, false);
  }
  const checked = checkReturnUri(value);
  if (!checked.ok) return checked;
  return (profile === 'native' ? nativeAddressProblem(value, checked.value) : undefined) ?? { ok: true, value };
}

/**
 * The loopback hosts a native client's http redirect may name: exactly the ones oidc-provider matches port-agnostically
 * for a native client (a URI it refused would make the whole client unloadable), RFC 8252 §7.3 and §8.3. One list for
 * native apps and dynamically registered MCP clients (lib/clients/registration.ts).
 */
export const NATIVE_LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * A private-use URI scheme a native client may return to (RFC 8252 §7.1): in reverse domain name form (it has a
 * period), never one a browser runs or reads from. One rule for native apps and dynamically registered MCP clients.
 */
export function isPrivateUseScheme(scheme: string): boolean {
  return /^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+$/.test(scheme) && !['javascript', 'data', 'vbscript', 'file', 'blob', 'about'].includes(scheme);
}

/** What a native app's http(s) address must be (RFC 8252 §7.2, §7.3), or undefined when it is fine. */
function nativeAddressProblem(value: string, url: URL): { ok: false; error: string; text: LocalizedText } | undefined {
  // §7.2: a claimed https URI names a host the app owns, never a loopback one (oidc-provider agrees).
  if (url.protocol === 'https:' && isLoopbackHost(url.hostname)) return refused(localized('refusals.validation.nativeHttpsLoopback', { value }));
  if (url.protocol === 'http:' && !NATIVE_LOOPBACK_HOSTS.has(url.hostname)) return refused(localized('refusals.validation.nativeLoopbackHost', { value }));
  return undefined;
}

/** The rules every address a browser is sent back to shares: absolute, https or loopback http, no fragment, no credentials, no wildcard. */
function checkReturnUri(value: string): Validated<URL> {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return refused(localized('refusals.validation.notAbsolute', { value }));
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    return refused(localized('refusals.validation.https', { value }));
  }
  if (url.hash || value.includes('#')) return refused(localized('refusals.validation.fragment', { value }));
  if (url.username || url.password) return refused(localized('refusals.validation.credentials', { value }));
  if (value.includes('*')) return refused(localized('refusals.validation.wildcard', { value }));
  // Spaces and other characters a URL parser would quietly encode: what is stored must be what a browser sends.
  if (/[\s<>"{}|\\^`]/.test(value)) return refused(localized('refusals.validation.canonical', { value, canonical: url.href }));
  return { ok: true, value: url };
}

/** The scheme of a URI that is neither http nor https (lowercased, RFC 3986 §3.1), or undefined. */
function nonWebSchemeOf(value: string): string | undefined {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(value)?.[1]?.toLowerCase();
  return scheme && scheme !== 'http' && scheme !== 'https' ? scheme : undefined;
}

/**
 * A native app's private-use URI scheme redirect (RFC 8252 §7.1): a scheme in reverse domain name form (with a
 * period, e.g. `com.example.notes:/callback`), never one a browser runs or reads from, no fragment, one spelling.
 */
function validatePrivateUseRedirectUri(value: string, scheme: string, oneSpelling = true): Validated<string> {
  if (!isPrivateUseScheme(scheme)) return refused(localized('refusals.validation.privateUseScheme', { value }));
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return refused(localized('refusals.validation.notAbsolute', { value }));
  }
  if (url.hash || value.includes('#')) return refused(localized('refusals.validation.fragment', { value }));
  if (value.includes('*')) return refused(localized('refusals.validation.wildcard', { value }));
  if (/[\s<>"{}|\\^`]/.test(value) || (oneSpelling && url.href !== value)) return refused(localized('refusals.validation.canonical', { value, canonical: url.href }));
  return { ok: true, value };
}
