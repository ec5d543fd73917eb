// axe-core in the page: no serious or critical violation is acceptable on a page a person uses.
import AxeBuilder from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';

export async function expectAccessible(page: Page): Promise<void> {
  // After a form's server action the page re-renders, and Next.js streams its <title> in a moment later: wait for it
  // (a page without one still fails, here, by name), so axe reads the page as a person gets it.
  await expect(page, 'the page has a title').toHaveTitle(/\S/);
  const results = await new AxeBuilder({ page }).analyze();
  const blocking = results.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  expect(blocking.map((violation) => `${violation.id}: ${violation.help} (${violation.nodes.map((node) => `${node.target.join(' ')}: ${node.failureSummary ?? ''}`).join(', ')})`)).toEqual([]);
}
