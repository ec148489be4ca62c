import type { Page } from '@playwright/test';
import { expect } from './fixtures';

/** The sizes every page is looked at: a desk and a phone. */
export const DESK_AND_PHONE = [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
] as const;

/**
 * The page keeps within the screen at a desk and on a phone (wide tables scroll in their own box). With
 * HOLDFAST_SCREENSHOTS set to a folder, each size is also saved there as `<name>-<width>.png`, to look at.
 */
export async function expectNoSidewaysScroll(page: Page, name: string): Promise<void> {
  for (const size of DESK_AND_PHONE) {
    await page.setViewportSize(size);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, `horizontal overflow at ${size.width} px`).toBeLessThanOrEqual(0);
    if (process.env.HOLDFAST_SCREENSHOTS)
      await page.screenshot({ path: `${process.env.HOLDFAST_SCREENSHOTS}/${name}-${size.width}.png`, fullPage: true });
  }
}
