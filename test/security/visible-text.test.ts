// Outside text shown to a person who decides: control characters escaped for terminals, formatting characters
// (bidi overrides, zero-width, line separators) made visible everywhere.
import { describe, expect, it } from 'vitest';
import { terminalLine, terminalText, visibleText } from '../../lib/util/visible-text';

describe('visible text', () => {
  it('escapes C0, DEL and C1 controls and ESC sequences for a terminal, and is idempotent', () => {
    const hostile = 'ok\u001b[2A\r\u001b[2K\u0007\u007f\u0085\u009b6n\n\tend';
    const shown = terminalText(hostile);
    expect(shown).toBe('ok\\x1B[2A\\x0D\\x1B[2K\\x07\\x7F\\u{85}\\u{9B}6n\\x0A\\x09end');
    expect(shown).toMatch(/^[\x20-\x7e]*$/);
    expect(terminalText(shown)).toBe(shown);
  });

  it('shows every bidirectional override, isolate and mark, zero-width character and line separator', () => {
    const characters = ['\u202A', '\u202B', '\u202C', '\u202D', '\u202E', '\u2066', '\u2067', '\u2068', '\u2069', '\u200E', '\u200F', '\u061C', '\u200B', '\u200D', '\u2028', '\u2029', '\uFEFF'];
    for (const character of characters) {
      const code = character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      expect(visibleText(`a${character}b`)).toBe(`a⟨U+${code}⟩b`);
      expect(terminalText(`a${character}b`)).toBe(`a⟨U+${code}⟩b`);
    }
    // Ordinary text, accents and other scripts stay as they are.
    expect(visibleText('Zoë – שלום – 東京')).toBe('Zoë – שלום – 東京');
  });

  it('keeps the tabs that separate columns, escaping everything else in the line', () => {
    expect(terminalLine('a\tb\u001b[1m\tc')).toBe('a\tb\\x1B[1m\tc');
  });
});
