// Input rules that protect the resource → app resolution: app redirect URIs in one canonical spelling, ids that are
// real UUIDs before they reach SQL.
import { describe, expect, it } from 'vitest';
import { validatePostLogoutRedirectUri, validateRedirectUri } from '../../lib/clients/validation';
import { isUuid } from '../../lib/util/uuid';

describe('app redirect URIs', () => {
  it('accept only the canonical spelling, so one origin cannot be registered twice under two spellings', () => {
    expect(validateRedirectUri('https://app.example/cb')).toEqual({ ok: true, value: 'https://app.example/cb' });
    expect(validateRedirectUri('http://127.0.0.1:4999/cb').ok).toBe(true);
    for (const spelled of ['https://App.example/cb', 'https://app.example:443/cb', 'HTTPS://app.example/cb', 'https://app.example']) {
      const result = validateRedirectUri(spelled);
      expect(result.ok, spelled).toBe(false);
      if (!result.ok) expect(result.error).toContain('canonical form');
    }
  });
});

describe('post-logout redirect URIs', () => {
  it('are kept exactly as the relying party sends them (end_session compares exactly), under the same safety rules', () => {
    // express-openid-connect sends its base URL as written: no path.
    for (const written of ['http://127.0.0.1:4660', 'https://App.example', 'https://app.example:443/bye', 'https://app.example/bye?from=app']) {
      expect(validatePostLogoutRedirectUri(written)).toEqual({ ok: true, value: written });
    }
    for (const unsafe of ['http://app.example/bye', 'https://app.example/bye#x', 'https://user:pw@app.example/', 'https://*.example/', 'https://app.example/a b', 'javascript:alert(1)', 'bye']) {
      expect(validatePostLogoutRedirectUri(unsafe).ok, unsafe).toBe(false);
    }
  });
});

describe('ids', () => {
  it('are UUIDs in the 8-4-4-4-12 form, nothing looser', () => {
    expect(isUuid('0f1d6000-0000-4000-8000-00000000f1d6')).toBe(true);
    for (const loose of ['-'.repeat(36), 'g'.repeat(36), '0f1d6000000040008000000000000f1d6abc', '', 42]) expect(isUuid(loose)).toBe(false);
  });
});
