// Text that came from outside (an agent's reason, a client's name, a path, an email) shown to a person who decides
// something: every character that could change how the rest is displayed is shown as what it is, never obeyed.
// - On a terminal: C0 controls (ESC sequences move the cursor and erase lines), DEL and C1 controls are rendered
//   as \xNN / \u{NN}, so an agent cannot overwrite what the operator reads above the [y/N] prompt.
// - Everywhere (terminal and HTML): Unicode bidirectional overrides, isolates and marks (U+202A–U+202E,
//   U+2066–U+2069, U+200E/U+200F, U+061C), zero-width characters and line/paragraph separators are rendered as
//   ⟨U+XXXX⟩ (Trojan Source, CVE-2021-42574), so a decider reads the characters that are stored.

/** Characters that reorder, hide or break the text around them, in any renderer. */
const INVISIBLE_FORMATTING = /[\u061C\u200B-\u200F\u2028\u2029\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/gu;
/** C0 (with tab and newline), DEL and C1: a terminal acts on them. */
const TERMINAL_CONTROLS = /[\u0000-\u001F\u007F-\u009F]/gu;

function codePoint(character: string): string {
  return character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
}

/** For HTML: formatting characters made visible; the rest as is (React escapes markup). */
export function visibleText(value: string | null | undefined): string {
  return (value ?? '').replace(INVISIBLE_FORMATTING, (character) => `⟨U+${codePoint(character)}⟩`);
}

/** For a terminal: everything visibleText does, and every control character escaped. Idempotent. */
export function terminalText(value: unknown): string {
  return visibleText(String(value)).replace(TERMINAL_CONTROLS, (character) => {
    const code = character.charCodeAt(0);
    return code < 0x80 ? `\\x${code.toString(16).toUpperCase().padStart(2, '0')}` : `\\u{${code.toString(16).toUpperCase()}}`;
  });
}

/** A whole line for the terminal: outside text in it was escaped already; tabs separate columns and stay. */
export function terminalLine(line: string): string {
  return line
    .split('\t')
    .map((part) => terminalText(part))
    .join('\t');
}
