import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import { expect, test } from '../support/fixtures';

test('sorts, filters and searches the steps, keeping it all in a shareable URL', async ({
  page,
  recordAttempts,
  expectAccessible,
}) => {
  const agent = `e2e-steps-${randomUUID().slice(0, 6)}`;
  const at = Date.now() - 20 * 60_000;
  const report = (step: string, attemptNumber: number, costMicros: number, latencyMs: number) => ({
    taskId: `task-${step}`,
    agent,
    step,
    attemptNumber,
    outcome: 'succeeded' as const,
    costMicros,
    startedAt: new Date(at + attemptNumber * 1_000),
    finishedAt: new Date(at + attemptNumber * 1_000 + latencyMs),
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
  // A step new in this window has no change under its figures (the step is marked "new" instead).
  await expect(beta.getByTestId('retryRate')).toHaveText('50.0%');
  await expect(beta.getByTestId('firstTrySuccess')).toHaveText('0.0%');
  // Retry spend is the timeout's 300 of the 900 spent: the retry that succeeded did the work.
  await expect(beta.getByTestId('retryShareOfSpend')).toHaveText('33.3%');
  await expect(beta.getByTestId('new-step')).toBeVisible();
  await expect(beta.getByTestId('failures')).toContainText('timeout 1');
  // A latency, and a failure class with its count, never break over two lines (at a desktop's width or a phone's).
  const wraps = (cell: string, inner: string) =>
    beta
      .getByTestId(cell)
      .locator(inner)
      .first()
      .evaluate((element) => getComputedStyle(element).whiteSpace);
  expect(await wraps('latencyP95Ms', 'xpath=.')).toBe('nowrap');
  expect(await wraps('failures', 'span.whitespace-nowrap')).toBe('nowrap');
  await expect(beta.getByTestId('failures').locator('span.whitespace-nowrap')).toHaveText('timeout 1');

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

  // The view exports as CSV: its two steps, in its sort.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('steps-export').click()]);
  expect(download.suggestedFilename()).toMatch(/^holdfast-steps-24h-.*\.csv$/);
  const csv = (await fs.readFile(await download.path(), 'utf8')).split('\r\n');
  expect(csv[0]).toMatch(/^agent,step,attempts,retries,retry_rate,/);
  expect(csv.slice(1, -1).map((line) => line.split(',').slice(0, 4).join(','))).toEqual([
    `${agent},alpha,1,0`,
    `${agent},beta,2,1`,
  ]);

  await page.goto(`/steps?agent=${agent}&q=alp`);
  await expect(rows).toHaveCount(1);
  await page.goto(`/steps?agent=${agent}&q=nothing-like-this`);
  await expect(page.getByTestId('steps-empty')).toBeVisible();
});

test('explains ignored parameters instead of failing', async ({ page }) => {
  await page.goto('/steps?sort=password&window=custom&from=2026-11-02T00:00&to=2026-11-01T00:00');
  await expect(page.getByRole('status').filter({ hasText: 'Ignored sort' })).toBeVisible();
  await expect(
    page.getByRole('status').filter({ hasText: 'custom window needs a start before its end' }),
  ).toBeVisible();
});

test("a step's detail charts its trends and links its latest failures to their tasks", async ({
  page,
  recordAttempts,
  expectAccessible,
}) => {
  const agent = `e2e-detail-${randomUUID().slice(0, 6)}`;
  const taskId = `task-${randomUUID().slice(0, 8)}`;
  const start = Date.now() - 3 * 3_600_000;
  await recordAttempts([
    {
      taskId,
      agent,
      step: 'summarize',
      attemptNumber: 1,
      outcome: 'failed',
      errorClass: 'invalid_output',
      errorText: 'summary over the word limit',
      costMicros: 900,
      startedAt: new Date(start),
      finishedAt: new Date(start + 2_000),
    },
    {
      taskId,
      agent,
      step: 'summarize',
      attemptNumber: 2,
      outcome: 'succeeded',
      costMicros: 1_100,
      startedAt: new Date(start + 3_600_000),
      finishedAt: new Date(start + 3_602_000),
    },
  ]);

  await page.goto(`/steps?agent=${agent}`);
  await page.getByTestId(`steps-row-${agent}-summarize`).getByRole('link', { name: 'summarize' }).click();
  await expect(page.getByRole('heading', { name: `${agent} · summarize` })).toBeVisible();
  for (const chart of ['chart-attempts', 'chart-retry-rate', 'chart-retry-spend', 'chart-error-classes']) {
    // The plot itself, not a legend's icon (also an svg.recharts-surface).
    await expect(page.getByTestId(chart).locator('.recharts-wrapper > svg.recharts-surface')).toBeVisible();
  }
  await expect(
    page.getByTestId('chart-error-classes').getByRole('img', { name: /^Failures by error class/ }),
  ).toHaveAttribute('aria-label', /invalid_output/);
  // A stacked chart says which colour is which class.
  await expect(
    page.getByTestId('chart-error-classes').locator('.recharts-legend-item', { hasText: 'invalid_output' }),
  ).toBeVisible();
  await expectAccessible();

  await page.getByTestId('recent-failures').getByRole('link', { name: taskId }).click();
  await expect(page.getByRole('heading', { name: `Task ${taskId}` })).toBeVisible();
});

test('flags a step whose retry share jumped against its own previous week, on Steps and the Overview', async ({
  page,
  recordAttempts,
}) => {
  const agent = `e2e-anomaly-${randomUUID().slice(0, 6)}`;
  const now = Date.now();
  const reports = [];
  // 7 quiet days (1 retry in 20), then a last day with half of the attempts retries.
  for (let day = 0; day <= 7; day++) {
    for (let index = 0; index < 20; index++) {
      const startedAt = new Date(now - (day * 24 + 6) * 3_600_000 + index * 1_000);
      const retry = day === 0 ? index < 10 : index === 0;
      reports.push({
        taskId: `t-${day}-${index}`,
        agent,
        step: 'publish',
        attemptNumber: retry ? 2 : 1,
        // A retry that failed: its cost is retry spend (a succeeded one would add its first attempt's, none here).
        ...(retry
          ? { outcome: 'failed' as const, errorClass: 'transient' as const, errorText: '503 from downstream' }
          : { outcome: 'succeeded' as const }),
        costMicros: 100,
        startedAt,
        finishedAt: new Date(startedAt.getTime() + 50),
      });
    }
  }
  await recordAttempts(reports);

  await page.goto(`/steps?agent=${agent}`);
  const flag = page.getByTestId(`steps-row-${agent}-publish`).getByTestId('anomaly-flag');
  await expect(flag).toBeVisible();
  await expect(flag).toHaveAttribute('title', /last 24 h is 50\.0%, against a 7-day median of 5\.0%/);

  await page.goto('/');
  await expect(page.getByTestId(`step-row-${agent}-publish`).getByTestId('anomaly-flag')).toBeVisible();
});
