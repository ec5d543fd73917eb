// The `test` every spec imports: Playwright's, with one rule of this suite's own. A context a test opens with
// browser.newContext() (an operator's browser, an agent's, a second person's) is closed when that test ends.
//
// Why: Playwright closes the contexts of its own `context`/`page` fixtures, never the ones a test opens itself; a
// context left open keeps its pages running (the central polls for requests, countdowns tick every second) for the
// rest of the worker's run, and with `screenshot: 'on'` every later test's end screenshots each of those pages
// again. On 2 cores that grew the end-to-end run from about 9 to 28 minutes (issue 52's budget).
import { test as base } from '@playwright/test';

export * from '@playwright/test';

/** Options a Playwright project may set for its specs (playwright.config.ts). */
export interface PorticoTestOptions {
  /**
   * The servers a spec starts for itself run on the embedded database, whatever DATABASE_URL says: the
   * `embedded-smoke` project runs server-process.spec.ts so, beside the same spec on PostgreSQL.
   */
  embeddedDatabase: boolean;
}

export const test = base.extend<{ closeContextsOpenedByTheTest: void } & PorticoTestOptions>({
  embeddedDatabase: [false, { option: true }],
  closeContextsOpenedByTheTest: [
    async ({ browser }, use) => {
      const before = new Set(browser.contexts());
      await use();
      await Promise.all(browser.contexts().filter((context) => !before.has(context)).map((context) => context.close().catch(() => undefined)));
    },
    { auto: true },
  ],
});
