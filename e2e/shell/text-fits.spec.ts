import type { Page } from '@playwright/test';
import { expect, test } from '../support/fixtures';

/**
 * Every placeholder and checkbox label of the console's forms reads whole, at 1440 x 900 and at 390 x 844: a hint
 * cut off mid-word ("e.g. the research fleet may sp") tells nobody what to type. A failure names the page, the
 * width and each field whose text does not fit.
 */
const sizes = [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
];

const pages = [
  '/steps',
  '/agents',
  '/errors',
  '/holds',
  '/dead-letters',
  '/pauses',
  '/locks',
  '/keys',
  '/audit',
  '/alerts',
  '/ingest',
  '/mcp',
  '/settings/retry-pools',
  '/settings/budgets',
  '/settings/pricing',
  '/settings/people',
  '/settings/tokens',
];

/** The fields whose placeholder is wider than the room for it, and the checkbox labels wider than their box. */
function cutOffTexts(page: Page) {
  return page.evaluate(() => {
    const canvas = document.createElement('canvas').getContext('2d')!;
    const visible = (element: Element) => {
      const box = element.getBoundingClientRect();
      return box.width > 0 && box.height > 0 && getComputedStyle(element).visibility !== 'hidden';
    };
    const named = (element: Element) =>
      element.getAttribute('name') ?? element.getAttribute('id') ?? element.getAttribute('aria-label') ?? '?';
    const cut: string[] = [];
    for (const field of document.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>(
      'input[placeholder], textarea[placeholder]',
    )) {
      if (!visible(field) || field.value !== '') continue;
      const style = getComputedStyle(field);
      canvas.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
      const room = field.clientWidth - Number.parseFloat(style.paddingLeft) - Number.parseFloat(style.paddingRight);
      // A textarea wraps its placeholder; only its longest word must fit.
      const text =
        field.tagName === 'TEXTAREA'
          ? field.placeholder.split(/\s+/).reduce((a, b) => (b.length > a.length ? b : a), '')
          : field.placeholder;
      const needed = canvas.measureText(text).width;
      if (needed > room + 1)
        cut.push(`${named(field)}: "${field.placeholder}" needs ${Math.ceil(needed)} of ${Math.floor(room)} px`);
    }
    for (const box of document.querySelectorAll<HTMLInputElement>('input[type="checkbox"]')) {
      const label = box.closest('label') ?? (box.id ? document.querySelector(`label[for="${box.id}"]`) : null);
      if (!label || !visible(label)) continue;
      if (label.scrollWidth > label.clientWidth + 1) {
        cut.push(
          `checkbox ${named(box)}: "${label.textContent?.trim()}" needs ${label.scrollWidth} of ${label.clientWidth} px`,
        );
      }
    }
    return cut;
  });
}

for (const size of sizes) {
  test(`placeholders and checkbox labels read whole at ${size.width} x ${size.height}`, async ({ page }) => {
    await page.setViewportSize(size);
    const problems: string[] = [];
    for (const path of pages) {
      await page.goto(path);
      await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible();
      for (const cut of await cutOffTexts(page)) problems.push(`${path}: ${cut}`);
    }
    expect(problems, problems.join('\n')).toEqual([]);
  });
}
