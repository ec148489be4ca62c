import { randomUUID } from 'node:crypto';
import type { RecordAttemptInput } from '../../packages/engine/src/core';
import { expect, test } from '../support/fixtures';

/** One attempt of a step of this agent, some hours ago. */
function attemptOf(agent: string, step: string, hoursAgo: number): RecordAttemptInput {
  const startedAt = new Date(Date.now() - hoursAgo * 3_600_000);
  return {
    taskId: `task-${randomUUID().slice(0, 8)}`,
    agent,
    step,
    attemptNumber: 1,
    outcome: 'succeeded',
    costMicros: 100,
    startedAt,
    finishedAt: new Date(startedAt.getTime() + 200),
  };
}

test('7d, a search and Apply keep 7d and the search; Back and Forward restore the list and the form together', async ({
  page,
  recordAttempts,
  expectAccessible,
}) => {
  const agent = `e2e-window-${randomUUID().slice(0, 6)}`;
  // "recent" is in every window; "older" (three days ago) only in 7d and longer.
  await recordAttempts([attemptOf(agent, 'recent', 1), attemptOf(agent, 'older', 72)]);

  await page.goto(`/steps?agent=${agent}`);
  const rows = page.getByTestId('steps-table').locator('tbody tr');
  const filters = page.getByTestId('steps-filters');
  // The window is one control: its links (the filters' From and To make a custom one).
  const windowLinks = page.getByRole('navigation', { name: 'Time window' });
  const chosen = (name: string) => windowLinks.getByRole('link', { name, exact: true });
  const search = filters.getByLabel('Search');
  await expect(rows).toHaveCount(1);
  await expect(chosen('24h')).toHaveAttribute('aria-current', 'true');

  await page.getByRole('navigation', { name: 'Time window' }).getByRole('link', { name: '7d' }).click();
  await expect(page).toHaveURL(/window=7d/);
  await expect(rows).toHaveCount(2);
  // The form follows the link: it would otherwise still send 24h with Apply; its range is not sent for a named window.
  await expect(chosen('7d')).toHaveAttribute('aria-current', 'true');
  await expect(filters.locator('input[name="window"]')).toHaveValue('7d');
  await expect(filters.getByLabel('From (UTC)')).not.toHaveAttribute('name');

  await search.fill('older');
  await filters.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(/[?&]q=older/);
  const applied = new URL(page.url());
  expect(applied.searchParams.get('window')).toBe('7d');
  expect(applied.searchParams.get('agent')).toBe(agent);
  // A named window sends no range: the shared link says exactly what it shows.
  expect(applied.searchParams.has('from')).toBe(false);
  await expect(rows).toHaveCount(1);
  await expect(page.getByTestId(`steps-row-${agent}-older`)).toBeVisible();
  await expect(chosen('7d')).toHaveAttribute('aria-current', 'true');
  await expect(search).toHaveValue('older');
  await expectAccessible();

  // Back: 7d without the search, in the list and in the form.
  await page.goBack();
  await expect(page).not.toHaveURL(/q=older/);
  await expect(page).toHaveURL(/window=7d/);
  await expect(rows).toHaveCount(2);
  await expect(search).toHaveValue('');
  await expect(chosen('7d')).toHaveAttribute('aria-current', 'true');

  // Back again: 24h.
  await page.goBack();
  await expect(page).not.toHaveURL(/window=7d/);
  await expect(rows).toHaveCount(1);
  await expect(page.getByTestId(`steps-row-${agent}-recent`)).toBeVisible();
  await expect(chosen('24h')).toHaveAttribute('aria-current', 'true');

  // Forward twice: the search is back in both.
  await page.goForward();
  await expect(page).toHaveURL(/window=7d/);
  await page.goForward();
  await expect(page).toHaveURL(/[?&]q=older/);
  await expect(rows).toHaveCount(1);
  await expect(search).toHaveValue('older');
  await expect(chosen('7d')).toHaveAttribute('aria-current', 'true');
});

test('a custom range is sent only with a custom window, and kept', async ({ page, recordAttempts }) => {
  const agent = `e2e-custom-${randomUUID().slice(0, 6)}`;
  await recordAttempts([attemptOf(agent, 'older', 72)]);

  await page.goto(`/steps?agent=${agent}`);
  const filters = page.getByTestId('steps-filters');
  // Typed as the console writes times: 24-hour UTC, a space between the date and the time.
  const from = new Date(Date.now() - 4 * 86_400_000).toISOString().slice(0, 16).replace('T', ' ');
  const to = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 16).replace('T', ' ');
  await filters.getByLabel('From (UTC)').fill(from);
  await filters.getByLabel('To (UTC)').fill(to);
  await filters.getByRole('button', { name: 'Apply' }).click();

  await expect(page).toHaveURL(/window=custom/);
  await expect(page.getByTestId(`steps-row-${agent}-older`)).toBeVisible();
  await expect(filters.locator('input[name="window"]')).toHaveValue('custom');
  await expect(filters.getByLabel('From (UTC)')).toHaveValue(from);
  await expect(filters.getByLabel('To (UTC)')).toHaveValue(to);
  // Never the browser's 12-hour picker under a label that says UTC: a text field in the console's own form.
  await expect(filters.getByLabel('From (UTC)')).toHaveAttribute('type', 'text');
  await expect(filters.getByLabel('From (UTC)')).toHaveAttribute('placeholder', 'YYYY-MM-DD HH:MM');
});
