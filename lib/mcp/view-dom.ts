// Browser helpers shared by Portico's MCP Apps views (bundled into each by ../view-bundle.ts): connecting to the
// host, reading untrusted objects, and writing text (never HTML) into the view's elements by id.
import { PostMessageTransport, type App } from '@modelcontextprotocol/ext-apps/app-with-deps';

/** How long a view waits for its host's handshake before it says the chat did not connect it. */
const HANDSHAKE_TIMEOUT_MS = 5000;

/**
 * Connects the view to the host that framed it (its parent window) and hands back the first tool result the host
 * sends; undefined when no handshake came in time. The listener is set before connecting: a host may send the result
 * right after the handshake.
 */
export async function connectView(app: App): Promise<{ firstResult: Promise<unknown> } | undefined> {
  let resolveResult: (value: unknown) => void = () => {};
  const firstResult = new Promise<unknown>((resolve) => (resolveResult = resolve));
  app.ontoolresult = (params) => resolveResult(params);
  try {
    await Promise.race([
      app.connect(new PostMessageTransport(window.parent, window.parent)),
      new Promise((_, reject) => window.setTimeout(() => reject(new Error('timeout')), HANDSHAKE_TIMEOUT_MS)),
    ]);
  } catch {
    return undefined;
  }
  return { firstResult };
}
export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
export const element = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
export const show = (id: string, visible = true) => element(id).toggleAttribute('hidden', !visible);
export const setText = (id: string, text: string) => {
  element(id).textContent = text;
};
/** The view's note (a `role=alert` paragraph with id `note`). */
export function note(text: string) {
  setText('note', text);
  show('note');
}

/**
 * The view's words, in the language of the person it is shown to: the server wrote them into the page, as JSON in
 * the main element's `data-texts` (the script carries no words of its own).
 */
export function viewTexts<Texts>(main: HTMLElement): Texts {
  return JSON.parse(main.dataset.texts ?? '{}') as Texts;
}

/** A word for a status code the texts name; the code itself for any other. */
export function wordFor(words: Readonly<Record<string, string>>, code: string): string {
  return Object.prototype.hasOwnProperty.call(words, code) ? words[code]! : code;
}
