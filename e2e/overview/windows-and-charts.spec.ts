import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { seriesColour } from '../../components/charts/chart-colours';
import type { RecordAttemptInput } from '../../packages/engine/src/core';
import { expect, test } from '../support/fixtures';

/**
 * A step of a fresh agent, seen only in the last hour: a first attempt that
 * fails and a retry that costs far more than any demo step, so it leads the
 * retry spend (and the top movers) on every window and has no earlier data.
 */
async function freshRetriedStep(
  recordAttempts: (inputs: RecordAttemptInput[]) => Promise<void>,
  errorText = 'model call exceeded 30 s',
) {
  const agent = `e2e-honest-${randomUUID().slice(0, 6)}`;
  const taskId = `task-${randomUUID().slice(0, 8)}`;
  const start = Date.now() - 40 * 60_000;
  await recordAttempts([
    {
      taskId,
      agent,
      step: 'draft',
      attemptNumber: 1,
      outcome: 'failed',
      errorClass: 'timeout',
      errorText,
      // Growing with the clock (by 10 ms, to stay under an attempt's 10^12 limit): the failed try is the retry
      // spend (the succeeded retry did the work), so the step made last leads, even beside those earlier tests made.
      costMicros: Math.floor(Date.now() / 10),
      startedAt: new Date(start),
      finishedAt: new Date(start + 1_000),
    },
    {
      taskId,
      agent,
      step: 'draft',
      attemptNumber: 2,
      outcome: 'succeeded',
      costMicros: 1_000,
      startedAt: new Date(start + 60_000),
      finishedAt: new Date(start + 61_000),
    },
  ]);
  return { agent, taskId, key: `${agent}/draft` };
}

test("the Overview's step rows and top movers link to the step; a step new to the window is called new", async ({
  page,
  recordAttempts,
  expectAccessible,
}) => {
  const { agent, key } = await freshRetriedStep(recordAttempts);
  await page.goto('/');

  const row = page.getByTestId(`step-row-${agent}-draft`);
  await expect(row.getByRole('link', { name: 'draft' })).toHaveAttribute('href', `/steps/${agent}/draft?window=24h`);

  const mover = page.getByTestId(`mover-${key}`);
  await expect(mover.getByTestId('mover-change')).toContainText('new');
  await expect(mover.getByTestId('mover-change')).not.toContainText('0.0% →');
  await expect(page.getByTestId('updated-ago')).toHaveText(/updated (just now|\d+ s ago)/);
  await expectAccessible();

  await mover.getByRole('link', { name: key }).click();
  await expect(page.getByRole('heading', { name: `${agent} · draft` })).toBeVisible();
  await page.goBack();
  await row.getByRole('link', { name: 'draft' }).click();
  await expect(page.getByRole('heading', { name: `${agent} · draft` })).toBeVisible();
  await expect(page).toHaveURL(/window=24h/);
});

test('an empty previous window says "no earlier data", not "up from 0"', async ({ page, database, recordAttempts }) => {
  await freshRetriedStep(recordAttempts);
  // The 30-day window's previous one (30 to 60 days ago) is past what the demo holds.
  const [earlier] = await database.db.execute<{ count: number }>(
    sql`select count(*)::int as count from attempts where started_at >= now() - interval '60 days' and started_at < now() - interval '30 days'`,
  );
  expect(earlier?.count, 'attempts in the previous 30 days (the test needs none)').toBe(0);

  await page.goto('/?window=30d');
  for (const figure of ['attempts', 'retryRate', 'retrySpendMicros', 'retryShareOfSpend']) {
    await expect(page.getByTestId(`headline-${figure}`).getByTestId('change')).toHaveText('no earlier data');
  }
  // Holds are counted as they stood when the window began: their figure is a real one.
  await expect(page.getByTestId('headline-openHolds').getByTestId('change')).not.toHaveText('no earlier data');
  await expect(page.getByTestId('headline-deadLetterDepth').getByTestId('change')).toHaveText('now');
  await expect(page.getByTestId('top-movers')).not.toContainText('from 0');

  // With earlier data the comparison is made.
  await page.goto('/?window=24h');
  await expect(page.getByTestId('headline-attempts').getByTestId('change')).toHaveText(/no change|[▲▼] from/);
});

test('a step keeps its chart colour on every window, and the chart names its zone', async ({
  page,
  recordAttempts,
}) => {
  const { key } = await freshRetriedStep(recordAttempts);
  const legendColour = async () => {
    const item = page.getByTestId('chart-retry-spend-by-step').locator('.recharts-legend-item', { hasText: key });
    await expect(item).toBeVisible();
    return item.locator('.recharts-legend-icon').getAttribute('fill');
  };

  await page.goto('/?window=24h');
  const onDay = await legendColour();
  await page.goto('/?window=7d');
  const onWeek = await legendColour();
  await page.goto('/?window=30d');
  const onMonth = await legendColour();
  expect(onDay).toBe(seriesColour(key));
  expect(onWeek).toBe(onDay);
  expect(onMonth).toBe(onDay);

  await page.goto('/?window=24h');
  await expect(page.getByTestId('chart-retry-share')).toContainText('Time (UTC)');
  await page.goto('/?window=7d');
  await expect(page.getByTestId('chart-retry-share')).toContainText('Day (UTC)');
});

test.describe('in a browser an hour east of UTC', () => {
  test.use({ timezoneId: 'Europe/Berlin' });

  test("a step's failures chart has a legend; its axes follow the chosen zone; its tooltip gives the exact quarter hour", async ({
    page,
    recordAttempts,
    expectAccessible,
  }) => {
    const { agent, taskId } = await freshRetriedStep(recordAttempts);
    await page.goto(`/steps/${agent}/draft?window=24h`);

    const failures = page.getByTestId('chart-error-classes');
    await expect(failures.locator('.recharts-legend-item', { hasText: 'timeout' })).toBeVisible();
    await expect(failures).toContainText('Time (UTC)');
    await expect(page.getByTestId('recent-failures').getByRole('link', { name: taskId })).toHaveAttribute(
      'href',
      `/tasks/${taskId}`,
    );
    await expectAccessible();

    await page.getByTestId('time-zone-toggle').click();
    // Berlin is UTC+1 in winter and UTC+2 in summer.
    await expect(failures).toContainText(/Time \(UTC\+[12]\)/);

    const attempts = page.getByTestId('chart-attempts');
    await attempts.locator('.recharts-bar-rectangle').last().hover();
    await expect(attempts.locator('.recharts-tooltip-label')).toHaveText(
      /^\d{4}-\d{2}-\d{2} \d{2}:(00|15|30|45) – \d{2}:(00|15|30|45) UTC\+[12]$/,
    );
  });
});

test('a step nothing has named answers 404; a known step with an empty window answers 200', async ({
  page,
  recordAttempts,
}) => {
  // Through the request API: a browser would log the 404 itself as a console error.
  const unknown = await page.request.get(`/steps/nope-${randomUUID().slice(0, 6)}/nothing`);
  expect(unknown.status()).toBe(404);

  const { agent } = await freshRetriedStep(recordAttempts);
  const empty = await page.request.get(`/steps/${agent}/draft?window=1h`);
  expect(empty.status()).toBe(200);
});

test('at 390 px the Overview, Steps and a step with a 10,000-character error are no wider than the screen', async ({
  page,
  recordAttempts,
}) => {
  const token = `https://example.test/${'x'.repeat(380)}`;
  const longError =
    `${'TimeoutError: the model did not answer in time\n    at call (model.ts:12:3)\n'.repeat(60)}${token}\n${'y '.repeat(5_000)}`.slice(
      0,
      10_000,
    );
  expect(longError.length).toBe(10_000);
  expect(longError).toContain(token);
  const { agent } = await freshRetriedStep(recordAttempts, longError);

  await page.setViewportSize({ width: 390, height: 844 });
  for (const path of ['/', '/?window=7d', `/steps?agent=${agent}`, '/steps', `/steps/${agent}/draft`]) {
    await page.goto(path);
    await expect(page.locator('h1').first()).toBeVisible();
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width, `${path} at 390 px`).toBeLessThanOrEqual(390);
  }
  // On a phone the failures stack; the long error is clamped, with the whole text behind "Show all".
  const failures = page.getByTestId('recent-failures-list');
  await expect(failures.getByText(/Show all \(10,000 characters\)/)).toBeVisible();
  await failures.getByText(/Show all/).click();
  await expect(failures.locator('pre')).toContainText(token);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
});
