import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { RecordAttemptInput } from '../lib/core';
import { attempts } from '../lib/db/schema';
import { formatCount } from '../lib/console/format';
import { expect, test } from './support/fixtures';

/** Attempts of one fresh agent: draft retried twice (2 failures), send clean. Known figures. */
function knownAttempts(agent: string): RecordAttemptInput[] {
  const taskId = `task-${randomUUID()}`;
  const base = Date.now() - 30 * 60_000;
  const at = (minute: number) => ({
    startedAt: new Date(base + minute * 60_000),
    finishedAt: new Date(base + minute * 60_000 + 800),
  });
  return [
    {
      taskId,
      agent,
      step: 'draft',
      attemptNumber: 1,
      outcome: 'failed',
      errorClass: 'timeout',
      errorText: 'model call exceeded 30 s',
      costMicros: 1_000,
      ...at(0),
    },
    {
      taskId,
      agent,
      step: 'draft',
      attemptNumber: 2,
      outcome: 'failed',
      errorClass: 'rate_limited',
      errorText: '429',
      costMicros: 2_000,
      ...at(1),
    },
    { taskId, agent, step: 'draft', attemptNumber: 3, outcome: 'succeeded', costMicros: 5_000, ...at(2) },
    { taskId, agent, step: 'send', attemptNumber: 1, outcome: 'succeeded', costMicros: 2_000, ...at(3) },
  ];
}

test('shows exact figures for a step whose attempts are known', async ({ page, recordAttempts, expectAccessible }) => {
  const agent = `e2e-${randomUUID().slice(0, 8)}`;
  await recordAttempts(knownAttempts(agent));

  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();

  const draft = page.getByTestId(`step-row-${agent}-draft`);
  await expect(draft.getByTestId('attempts')).toHaveText('3');
  await expect(draft.getByTestId('retries')).toHaveText('2');
  await expect(draft.getByTestId('retry-rate')).toHaveText('66.7%');
  await expect(draft.getByTestId('failures')).toHaveText('2');
  await expect(draft.getByTestId('spend')).toHaveText('$0.0080');
  await expect(draft.getByTestId('retry-spend')).toHaveText('$0.0070');

  const send = page.getByTestId(`step-row-${agent}-send`);
  await expect(send.getByTestId('retry-rate')).toHaveText('0.0%');
  await expect(send.getByTestId('retry-spend')).toHaveText('$0.00');

  await expectAccessible();
});

test('shows headline figures against the previous window, both charts and the top movers', async ({ page }) => {
  await page.goto('/?window=7d');
  for (const figure of [
    'attempts',
    'retryRate',
    'retrySpendMicros',
    'retryShareOfSpend',
    'openHolds',
    'frozenHolds',
    'deadLetterDepth',
    'staleLocks',
    'uncertainKeys',
  ]) {
    await expect(page.getByTestId(`headline-${figure}`).getByTestId('value')).not.toBeEmpty();
  }
  await expect(page.getByTestId('headline-staleLocks').getByTestId('change')).toHaveText('now');
  await expect(page.getByTestId('chart-retry-share').locator('svg.recharts-surface')).toBeVisible();
  await expect(page.getByTestId('chart-retry-spend-by-step').locator('svg.recharts-surface').first()).toBeVisible();
  await expect(page.getByTestId('top-movers')).toBeVisible();
});

test('renders every seeded step with the figures the attempt log holds', async ({ page, database }) => {
  // 30 days holds all of the demo's four days, so no attempt sits on the window's edge.
  await page.goto('/?window=30d');
  await expect(page.getByTestId('step-stats-table')).toBeVisible();

  // Counted here with plain SQL, independently of the read model the page uses.
  const expected = await database.db
    .select({
      agent: attempts.agent,
      step: attempts.step,
      attempts: sql<number>`count(*)::int`,
      retries: sql<number>`(count(*) filter (where ${attempts.attemptNumber} >= 2))::int`,
    })
    .from(attempts)
    .groupBy(attempts.agent, attempts.step);
  const seededAgents = ['outreach', 'payments', 'publishing', 'research'];
  expect(expected.filter((row) => seededAgents.includes(row.agent)).length).toBeGreaterThanOrEqual(8);

  for (const row of expected) {
    const tableRow = page.getByTestId(`step-row-${row.agent}-${row.step}`);
    await expect(tableRow.getByTestId('attempts')).toHaveText(formatCount(row.attempts));
    await expect(tableRow.getByTestId('retries')).toHaveText(formatCount(row.retries));
  }
  const total = expected.reduce((sum, row) => sum + row.attempts, 0);
  await expect(page.getByTestId('headline-attempts').getByTestId('value')).toHaveText(formatCount(total));
});

test('picks up new attempts without a reload', async ({ page, recordAttempts }) => {
  const agent = `e2e-live-${randomUUID().slice(0, 8)}`;
  const [first, second] = knownAttempts(agent);
  await recordAttempts([first!]);
  await page.goto('/');
  const draft = page.getByTestId(`step-row-${agent}-draft`);
  await expect(draft.getByTestId('attempts')).toHaveText('1');

  await recordAttempts([second!]);
  // The Overview polls every 10 s.
  await expect(draft.getByTestId('attempts')).toHaveText('2', { timeout: 15_000 });
  await expect(draft.getByTestId('retries')).toHaveText('1');
});

test('switches windows through links kept in the URL', async ({ page }) => {
  await page.goto('/');
  const windows = page.getByRole('navigation', { name: 'Time window' });
  await expect(windows.getByRole('link', { name: '24h' })).toHaveAttribute('aria-current', 'true');

  await windows.getByRole('link', { name: '7d' }).click();
  await expect(page).toHaveURL(/\?window=7d$/);
  await expect(windows.getByRole('link', { name: '7d' })).toHaveAttribute('aria-current', 'true');
  await expect(page.getByText('Last 7 days')).toBeVisible();
});

test('explains an unknown window instead of failing', async ({ page }) => {
  await page.goto('/?window=99y');
  await expect(page.getByRole('status').filter({ hasText: 'Unknown time window' })).toContainText('99y');
  await expect(page.getByTestId('step-stats-table')).toBeVisible();
});
