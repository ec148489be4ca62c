import { insertDeadLetters } from '../support/dead-letters-data';
import { uniqueId } from '../support/factories';
import { expect, test } from '../support/fixtures';
import type { Page } from '@playwright/test';

const PAGE_SIZE = 50;

/** The dead letters on the page shown, in order. */
async function shownIds(page: Page): Promise<number[]> {
  return page
    .locator('[data-testid^="dead-letter-row-"]')
    .evaluateAll((rows) => rows.map((row) => Number(row.getAttribute('data-testid')?.replace('dead-letter-row-', ''))));
}

function showing(first: number, total: number): string {
  return `Showing ${first}–${Math.min(first + PAGE_SIZE - 1, total)} of ${total} pending matching`;
}

test('Next walks all 450 dead letters from the first page to the last, each once, and Previous walks back', async ({
  page,
  database,
}) => {
  test.setTimeout(120_000);
  const queue = uniqueId('paging');
  // One statement: all 450 share one created_at, so the order rests on the tie-break by id.
  const ids = await insertDeadLetters(database, { queue, count: 450 });
  const pages = Math.ceil(ids.length / PAGE_SIZE);

  await page.goto(`/dead-letters?queue=${queue}`);
  const count = page.getByTestId('dead-letter-count');
  const forward: number[][] = [];
  for (let index = 0; index < pages; index += 1) {
    await expect(count).toHaveText(`${showing(index * PAGE_SIZE + 1, 450)}, oldest first`);
    forward.push(await shownIds(page));
    if (index < pages - 1) {
      await page.getByTestId('dead-letters-pager-next').click();
      // The cursor is in the URL beside the filter: a link reproduces the page.
      await expect(page).toHaveURL(new RegExp(`queue=${queue}&after=${forward.at(-1)?.at(-1)}$`));
    }
  }
  await expect(page.getByTestId('dead-letters-pager-next')).toHaveCount(0);
  expect(forward.flat()).toEqual(ids);
  expect(new Set(forward.flat()).size).toBe(450);

  const backward: number[][] = [await shownIds(page)];
  for (let index = pages - 2; index >= 0; index -= 1) {
    await page.getByTestId('dead-letters-pager-previous').click();
    await expect(count).toHaveText(`${showing(index * PAGE_SIZE + 1, 450)}, oldest first`);
    backward.unshift(await shownIds(page));
  }
  await expect(page.getByTestId('dead-letters-pager-previous')).toHaveCount(0);
  expect(backward).toEqual(forward);
});

test('a cursor naming no dead letter, or no number at all, is ignored with a notice and the first page shows', async ({
  page,
  database,
}) => {
  const queue = uniqueId('paging-stale');
  const ids = await insertDeadLetters(database, { queue, count: 3 });

  await page.goto(`/dead-letters?queue=${queue}&after=999999999999`);
  await expect(page.getByRole('status').filter({ hasText: 'Ignored after=“999999999999”' })).toBeVisible();
  await expect(page.getByTestId('dead-letter-count')).toHaveText('Showing 1–3 of 3 pending matching, oldest first');
  expect(await shownIds(page)).toEqual(ids);

  await page.goto(`/dead-letters?queue=${queue}&before=abc`);
  await expect(page.getByRole('status').filter({ hasText: 'Ignored before=“abc”' })).toBeVisible();
  expect(await shownIds(page)).toEqual(ids);
  // The filter still applies, and one page needs no Next or Previous.
  await expect(page.getByTestId('dead-letters-pager-next')).toHaveCount(0);
});
