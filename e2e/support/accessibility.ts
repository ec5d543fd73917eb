// axe-core in the page: no serious or critical violation is acceptable on a page a person uses.
import AxeBuilder from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';

export async function expectAccessible(page: Page): Promise<void> {
  // After a form's server action the page re-renders, and Next.js streams its <title> in a moment later: wait for it
  // (a page without one still fails, here, by name), so axe reads the page as a person gets it.
  await expect(page, 'the page has a title').toHaveTitle(/\S/);
  // Legacy mode: axe.run in the page itself. The default mode finishes every analysis in a new blank page it opens
  // and injects axe into a second time, which was half of axe's time here (measured on the every-page sweep in English:
  // 67 s of axe became 33 s) for what only pages with cross-origin frames need; no page of Portico has a frame.
  const results = await new AxeBuilder({ page }).setLegacyMode().analyze();
  const blocking = results.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  expect(blocking.map((violation) => `${violation.id}: ${violation.help} (${violation.nodes.map((node) => `${node.target.join(' ')}: ${node.failureSummary ?? ''}`).join(', ')})`)).toEqual([]);
}
