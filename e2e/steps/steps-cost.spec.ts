import fs from 'node:fs/promises';
import type { RecordAttemptInput } from '../../packages/engine/src/core';
import { uniqueId } from '../support/factories';
import { expect, test } from '../support/fixtures';

/**
 * "Which step's retries cost most this week, and is it getting worse?" on one page: each figure's change
 * against the previous window, what failed attempts cost, retry spend by the failure before each retry,
 * and the sort by the change in retry spend, at a desk and on a phone.
 */

const HOUR_MS = 3_600_000;

/** An agent of this test's own: charge retried in both windows, refund new in this one. */
async function recordCostHistory(recordAttempts: (inputs: RecordAttemptInput[]) => Promise<void>) {
  const agent = uniqueId('e2e-cost');
  const attempt = (
    step: string,
    taskId: string,
    hoursAgo: number,
    attemptNumber: number,
    costMicros: number,
    errorClass?: RecordAttemptInput['errorClass'],
  ): RecordAttemptInput => {
    const startedAt = new Date(Date.now() - hoursAgo * HOUR_MS + attemptNumber * 60_000);
    return {
      taskId: `${agent}-${taskId}`,
      agent,
      step,
      attemptNumber,
      costMicros,
      startedAt,
      finishedAt: new Date(startedAt.getTime() + 1_000),
      ...(errorClass
        ? { outcome: 'failed', errorClass, errorText: `${errorClass} from downstream` }
        : { outcome: 'succeeded' }),
    };
  };
  await recordAttempts([
    // The previous 24 hours: a transient failure (1,000) and its retry (2,000).
    attempt('charge', 'p1', 30, 1, 1_000, 'transient'),
    attempt('charge', 'p1', 30, 2, 2_000),
    // The last 24 hours: a timeout (1,500), a transient failure (2,500), then success (4,000).
    attempt('charge', 'n1', 2, 1, 1_500, 'timeout'),
    attempt('charge', 'n1', 2, 2, 2_500, 'transient'),
    attempt('charge', 'n1', 2, 3, 4_000),
    // refund has no history: rate limited (700), then a retry costing 900.
    attempt('refund', 'r1', 1, 1, 700, 'rate_limited'),
    attempt('refund', 'r1', 1, 2, 900),
  ]);
  return agent;
}

test('shows each figure against the previous window, failed spend and retry spend by cause, and sorts by the change', async ({
  page,
  recordAttempts,
  expectAccessible,
}) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  const agent = await recordCostHistory(recordAttempts);
  await page.goto(`/steps?agent=${agent}`);
  const charge = page.getByTestId(`steps-row-${agent}-charge`);
  await expect(charge).toBeVisible();
  await expectAccessible();

  // Retry spend, the spend beyond the try that succeeded: 4,000 (the timeout and the transient failure) against
  // 1,000 (the previous window's transient failure): up 3,000, said in dollars, as a share and in words.
  await expect(charge.getByTestId('retrySpendMicros')).toContainText('$0.0040');
  await expect(charge.getByTestId('change-retrySpendMicros')).toHaveText('+$0.0030 (+300\u00a0%) worse');
  // Two retries of three attempts against one of two: 66.7 % against 50 %.
  await expect(charge.getByTestId('change-retryRate')).toHaveText('+16.7\u00a0pp worse');
  // The timeout and the failed retry cost 4,000 against the previous window's 1,000.
  await expect(charge.getByTestId('failedSpendMicros')).toContainText('$0.0040');
  await expect(charge.getByTestId('change-failedSpendMicros')).toHaveText('+300\u00a0% worse');
  const refund = page.getByTestId(`steps-row-${agent}-refund`);
  // New in this window: said once beside the step, with no change under its figures.
  await expect(refund.getByTestId('new-step')).toHaveText('new');
  await expect(refund.getByTestId('change-attempts')).toHaveCount(0);
  await expect(refund.getByTestId('failedSpendMicros')).toContainText('$0.0007');

  // Retry spend by cause opens from the keyboard: attempt 3 followed the transient failure (its share, the first
  // attempt's 1,500), attempt 2 the timeout (its own failed 2,500).
  const causes = charge.getByTestId('retry-causes');
  await causes.locator('summary').focus();
  await page.keyboard.press('Enter');
  await expect(causes.getByTestId('retry-cause-transient')).toHaveText(/after transient\s*\$0\.0015 · 1/);
  await expect(causes.getByTestId('retry-cause-timeout')).toHaveText(/after timeout\s*\$0\.0025 · 1/);
  await expectAccessible();

  const rows = page.getByTestId('steps-table').locator('tbody tr');
  await page.getByTestId('sort-retrySpendChangeMicros').click();
  await expect(page).toHaveURL(/sort=retrySpendChangeMicros&dir=desc/);
  await expect(rows.first()).toHaveAttribute('data-testid', `steps-row-${agent}-charge`);
  await expect(page.getByTestId('sort-retrySpendChangeMicros')).toContainText('▼');
  await page.getByTestId('sort-retrySpendChangeMicros').click();
  await expect(page).toHaveURL(/sort=retrySpendChangeMicros&dir=asc/);
  await expect(rows.first()).toHaveAttribute('data-testid', `steps-row-${agent}-refund`);

  // The export carries the new columns, in the view's sort.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('steps-export').click()]);
  const [header, ...lines] = (await fs.readFile(await download.path(), 'utf8')).split('\r\n');
  const columns = header!.split(',');
  const value = (line: string, name: string) => line.split(',')[columns.indexOf(name)];
  expect(lines.slice(0, 2).map((line) => value(line, 'step'))).toEqual(['refund', 'charge']);
  expect(
    ['failed_spend_usd', 'retry_spend_change_usd', 'previous_retry_spend_usd'].map((name) => value(lines[1]!, name)),
  ).toEqual(['0.004', '0.003', '0.001']);
});

test('on a phone the step, its retry rate and retry spend with their changes fit without scrolling sideways', async ({
  page,
  recordAttempts,
  expectAccessible,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const agent = await recordCostHistory(recordAttempts);
  await page.goto(`/steps?agent=${agent}&sort=retrySpendChangeMicros`);
  const charge = page.getByTestId(`steps-row-${agent}-charge`);
  for (const cell of ['step', 'retryRate', 'retrySpendMicros', 'change-retrySpendMicros'])
    await expect(charge.getByTestId(cell)).toBeInViewport();
  await expect(charge.getByTestId('failedSpendMicros')).toBeHidden();
  await expect(page.getByTestId('sort-retrySpendChangeMicros')).toBeInViewport();
  const overflow = await page
    .getByTestId('steps-table')
    .evaluate((table) => table.parentElement!.scrollWidth - table.parentElement!.clientWidth);
  expect(overflow, 'the table scrolls sideways on a phone').toBeLessThanOrEqual(0);
  await expectAccessible();
});
