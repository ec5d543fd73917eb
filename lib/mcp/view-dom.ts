// Browser helpers shared by Portico's MCP Apps views (bundled into each by ../view-bundle.ts): reading untrusted
// objects, and writing text (never HTML) into the view's elements by id.
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
