// Usable on a phone: a page itself never scrolls sideways (wide content scrolls inside its own box).
import { expect, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { E2E_ISSUER } from './constants';

/** By how many pixels the page is wider than the screen, and the deepest elements that reach past its edge. */
export async function sidewaysOverflow(page: Page): Promise<{ excess: number; culprits: string[] }> {
  return page.evaluate(() => {
    const excess = document.documentElement.scrollWidth - window.innerWidth;
    // The deepest elements that reach past the screen's edge, to say what to fix.
    const culprits = [...document.querySelectorAll('body *')]
      .filter((element) => element.getBoundingClientRect().right > window.innerWidth + 1 && ![...element.children].some((child) => child.getBoundingClientRect().right > window.innerWidth + 1))
      .slice(0, 3)
      .map((element) => `<${element.tagName.toLowerCase()} class="${element.getAttribute('class') ?? ''}">${(element.textContent ?? '').slice(0, 40)}`);
    return { excess, culprits };
  });
}

/** Fails, naming what sticks out, when the page at its current viewport scrolls sideways. */
export async function expectNoSidewaysScroll(page: Page, what: string): Promise<void> {
  const overflow = await sidewaysOverflow(page);
  const width = page.viewportSize()?.width;
  expect(overflow.excess, `${what} at ${width} px is wider than the screen by ${overflow.excess} px: ${overflow.culprits.join(' | ')}`).toBeLessThanOrEqual(1);
}

/**
 * A page of another browser context with the same cookies (the same sessions) whose browser asks for `locale`:
 * the same person, reading in another language, without a choice saved to their account.
 */
export async function sameSessionsIn(browser: Browser, context: BrowserContext, locale: string): Promise<Page> {
  const other = await browser.newContext({ baseURL: E2E_ISSUER, locale, storageState: await context.storageState() });
  return other.newPage();
}

/**
 * A full-page screenshot kept for a person to look at. Under load, Debian's software-rendered Chromium now and then
 * answers `Page.captureScreenshot` with "Unable to capture screenshot" (no compositor frame in time; seen once in CI on
 * a two-line page). The picture is an artifact, not an assertion, so that one protocol error is tried once more after
 * the next frame; any other error, or a second failure, fails the test.
 */
export async function keepScreenshot(page: Page, file: string, options: { type?: 'png' | 'jpeg'; quality?: number } = {}): Promise<void> {
  const take = () => page.screenshot({ path: file, fullPage: true, ...options });
  try {
    await take();
  } catch (error) {
    if (!String((error as Error).message).includes('Unable to capture screenshot')) throw error;
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    await take();
  }
}
