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

test('a step\'s detail charts its trends and links its latest failures to their tasks', async ({ page, recordAttempts, expectAccessible }) => {
  const agent = `e2e-detail-${randomUUID().slice(0, 6)}`;
  const taskId = `task-${randomUUID().slice(0, 8)}`;
  const start = Date.now() - 3 * 3_600_000;
  await recordAttempts([
    { taskId, agent, step: 'summarize', attemptNumber: 1, outcome: 'failed', errorClass: 'invalid_output', errorText: 'summary over the word limit', costMicros: 900, startedAt: new Date(start), finishedAt: new Date(start + 2_000) },
    { taskId, agent, step: 'summarize', attemptNumber: 2, outcome: 'succeeded', costMicros: 1_100, startedAt: new Date(start + 3_600_000), finishedAt: new Date(start + 3_602_000) },
  ]);

  await page.goto(`/steps?agent=${agent}`);
  await page.getByTestId(`steps-row-${agent}-summarize`).getByRole('link', { name: 'summarize' }).click();
  await expect(page.getByRole('heading', { name: `${agent} · summarize` })).toBeVisible();
  for (const chart of ['chart-attempts', 'chart-retry-rate', 'chart-retry-spend', 'chart-error-classes']) {
    await expect(page.getByTestId(chart).locator('svg.recharts-surface')).toBeVisible();
  }
  await expect(page.getByTestId('chart-error-classes').getByRole('img')).toHaveAttribute('aria-label', /invalid_output/);
  await expectAccessible();

  await page.getByTestId('recent-failures').getByRole('link', { name: taskId }).click();
  await expect(page.getByRole('heading', { name: `Task ${taskId}` })).toBeVisible();
});
