// The paths approval grants are about ("read /invoices/2026"), written one way so that one grant means one thing.
// Portico normalizes a path when a request is created and matches grants on whole segments; the app kit applies
// the same rule before it asks (checkGrant), so the app and the broker never read a path differently.
// Refused, with a message that says why: `.`/`..` segments, empty segments (`//`), backslashes, percent-encoded
// `.`, `/`, `\` and NUL (a later decoding would turn them into the above), and control characters.

export const MAX_RESOURCE_PATH_LENGTH = 512;

export type ResourcePathResult = { ok: true; path: string } | { ok: false; error: string };

export function normalizeResourcePath(input: string): ResourcePathResult {
  if (typeof input !== 'string' || input.length < 1 || input.length > MAX_RESOURCE_PATH_LENGTH) return { ok: false, error: `the resource must be a path of 1-${MAX_RESOURCE_PATH_LENGTH} characters` };
  if (!input.startsWith('/')) return { ok: false, error: 'the resource must be an absolute path (starting with /)' };
  if (/[\u0000-\u001f\u007f-\u009f]/.test(input)) return { ok: false, error: 'the resource contains control characters' };
  if (input.includes('\\')) return { ok: false, error: 'the resource must not contain backslashes' };
  if (/%(2e|2f|5c|00)/i.test(input)) return { ok: false, error: 'the resource must not contain percent-encoded ".", "/", "\\" or NUL' };
  if (input === '/') return { ok: true, path: '/' };
  // One trailing slash names the same thing as none: /invoices/ is /invoices.
  const path = input.endsWith('/') ? input.slice(0, -1) : input;
  const segments = path.slice(1).split('/');
  if (segments.some((segment) => segment === '')) return { ok: false, error: 'the resource must not contain empty segments (//)' };
  if (segments.some((segment) => segment === '.' || segment === '..')) return { ok: false, error: 'the resource must not contain . or .. segments' };
  return { ok: true, path };
}

/** True when a grant on `granted` covers `requested`: the same path, or one below it on a segment boundary. */
export function resourcePathCovers(granted: string, requested: string): boolean {
  if (granted === '/') return true;
  const base = granted.endsWith('/') ? granted.slice(0, -1) : granted;
  return requested === base || requested.startsWith(`${base}/`);
}
