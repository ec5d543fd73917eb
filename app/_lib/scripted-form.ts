'use client';
// Forms the browser's script submits (onSubmit → a server action, so what the person typed survives a refusal) have
// no action a browser can follow on its own. Before the page's script has run, pressing Enter or a submit button
// would submit such a form natively: a GET to the page itself, every field (a password, a new password, a token
// under test) written into the address, where history, logs and the Referer keep it. Two rules, for every such form:
// - `method="post"` (SCRIPTED_FORM_METHOD): if anything still submits it natively, nothing lands in a URL;
// - its submit buttons stay disabled until the script runs (`useScriptReady`), so nothing submits natively at all,
//   and what the person typed meanwhile is still there when the button wakes.
import { useSyncExternalStore } from 'react';

export const SCRIPTED_FORM_METHOD = 'post';

const neverChanges = () => () => {};

/** False in the server's HTML and during hydration, true once this component's script runs in the browser. */
export function useScriptReady(): boolean {
  return useSyncExternalStore(
    neverChanges,
    () => true,
    () => false,
  );
}
