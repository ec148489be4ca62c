import { randomUUID } from 'node:crypto';
import { expect, test } from './support/fixtures';

test('sorts, filters and searches the steps, keeping it all in a shareable URL', async ({ page, recordAttempts, expectAccessible }) => {
  const agent = `e2e-steps-${randomUUID().slice(0, 6)}`;
  const at = Date.now() - 20 * 60_000;
  const report = (step: string, attemptNumber: number, costMicros: number, latencyMs: number) => ({
    taskId: `task-${step}`, agent, step, attemptNumber, outcome: 'succeeded' as const, costMicros,
    startedAt: new Date(at + attemptNumber * 1_000), finishedAt: new Date(at + attemptNumber * 1_000 + latencyMs),
  });
  await recordAttempts([
    report('alpha', 1, 100, 200),
    { ...report('beta', 1, 300, 400), outcome: 'failed', errorClass: 'timeout', errorText: 'took too long' },
    report('beta', 2, 600, 800),
  ]);

  await page.goto('/steps');
  await expect(page.getByTestId('steps-table')).toBeVisible();
  await expectAccessible();

  const filters = page.getByTestId('steps-filters');
  await filters.getByLabel('Agent').selectOption(agent);
  await filters.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(new RegExp(`agent=${agent}`));
  const rows = page.getByTestId('steps-table').locator('tbody tr');
  await expect(rows).toHaveCount(2);

  const beta = page.getByTestId(`steps-row-${agent}-beta`);
  await expect(beta.getByTestId('retryRate')).toHaveText('50.0%');
  await expect(beta.getByTestId('firstTrySuccess')).toHaveText('0.0%');
  await expect(beta.getByTestId('retryShareOfSpend')).toHaveText('66.7%');
  await expect(beta.getByTestId('failures')).toContainText('timeout 1');

  await page.getByTestId('sort-latencyP95Ms').click();
  await expect(page).toHaveURL(/sort=latencyP95Ms&dir=desc/);
  await expect(rows.first()).toHaveAttribute('data-testid', `steps-row-${agent}-beta`);
  await page.getByTestId('sort-latencyP95Ms').click();
  await expect(page).toHaveURL(/sort=latencyP95Ms&dir=asc/);
  await expect(rows.first()).toHaveAttribute('data-testid', `steps-row-${agent}-alpha`);

  // The URL alone reproduces the view, as when shared.
  const shared = page.url();
  await page.goto('/steps');
  await page.goto(shared);
  await expect(rows.first()).toHaveAttribute('data-testid', `steps-row-${agent}-alpha`);
  await expect(page.getByTestId('sort-latencyP95Ms')).toContainText('▲');

  await page.goto(`/steps?agent=${agent}&q=alp`);
  await expect(rows).toHaveCount(1);
  await page.goto(`/steps?agent=${agent}&q=nothing-like-this`);
  await expect(page.getByTestId('steps-empty')).toBeVisible();
});

test('explains ignored parameters instead of failing', async ({ page }) => {
  await page.goto('/steps?sort=password&window=custom&from=2026-11-02T00:00&to=2026-11-01T00:00');
  await expect(page.getByRole('status').filter({ hasText: 'Ignored sort' })).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: 'custom window needs a start before its end' })).toBeVisible();
});
