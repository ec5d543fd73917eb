// A slug made from a name: lowercase letters and digits with inner hyphens, at most 64 characters (the form
// validateSlug and the organizations/apps check constraints accept). A long name is cut, never refused.
export const MAX_SLUG_LENGTH = 64;

export function slugFromName(name: string, fallback = 'app'): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  const cut = base.slice(0, MAX_SLUG_LENGTH).replace(/-+$/, '');
  return cut || fallback;
}

/** The slug with a numeric suffix that is not taken, still within the length limit. */
export function freeSlug(slug: string, taken: (candidate: string) => boolean): string {
  if (!taken(slug)) return slug;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const candidate = `${slug.slice(0, MAX_SLUG_LENGTH - suffix.length).replace(/-+$/, '')}${suffix}`;
    if (!taken(candidate)) return candidate;
  }
}
