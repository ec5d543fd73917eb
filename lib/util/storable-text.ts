// Text from outside (a typed address, a client's name, an IdP's claim) as PostgreSQL can store it: its text and
// jsonb types hold no NUL, and a half surrogate pair is no character. Both become U+FFFD, so that recording what was
// typed never fails the statement (and the request with it) — the value is shown as the replacement character.
export function storableText(value: string): string {
  return value.replaceAll('\u0000', '\uFFFD').toWellFormed();
}

/** Whether PostgreSQL can store `value` as it is (and so whether any stored value can equal it). */
export function isStorableText(value: string): boolean {
  return !value.includes('\u0000') && value.isWellFormed();
}

/** The same, through every string of a JSON value (keys included). */
export function storableJson<T>(value: T): T {
  if (typeof value === 'string') return storableText(value) as T;
  if (Array.isArray(value)) return value.map((item) => storableJson(item)) as T;
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [storableText(key), storableJson(item)])) as T;
  }
  return value;
}
