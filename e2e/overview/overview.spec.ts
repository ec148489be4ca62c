import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { RecordAttemptInput } from '../../packages/engine/src/core';
import { attempts } from '../../packages/engine/src/db/schema';
import { formatCount, formatMicros } from '../../lib/console/format';
import { expect, test } from '../support/fixtures';

/** Dollars in micro-dollars: the known attempts cost whole dollars so their step leads the Overview's top steps. */
const dollars = (amount: number) => amount * 1_000_000;

/**
 * Attempts of one fresh agent: draft retried twice (2 failures), send clean. Known figures. Draft's retry spend
 * ($3,000: its $8,000 beyond the $5,000 of the try that succeeded) puts it among the Overview's top steps; send,
 * with no retry spend, is found on the Steps page.
 */
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
      costMicros: dollars(1_000),
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
      costMicros: dollars(2_000),
      ...at(1),
    },
    { taskId, agent, step: 'draft', attemptNumber: 3, outcome: 'succeeded', costMicros: dollars(5_000), ...at(2) },
    { taskId, agent, step: 'send', attemptNumber: 1, outcome: 'succeeded', costMicros: dollars(2_000), ...at(3) },
  ];
}

test('shows exact figures for a top step, and sends the rest to the Steps page', async ({
  page,
  recordAttempts,
  expectAccessible,
}) => {
  const agent = `e2e-${randomUUID().slice(0, 8)}`;
  // Ten more steps whose retry failed for a dollar: with them, more than ten steps have retry spend, so send is
  // outside the top ten whatever else the database holds.
  const fillers = Array.from({ length: 10 }, (_, index): RecordAttemptInput => {
    const startedAt = new Date(Date.now() - 20 * 60_000);
    return {
      taskId: `task-${randomUUID()}`,
      agent,
      step: `filler-${index}`,
      attemptNumber: 2,
      outcome: 'failed',
      errorClass: 'transient',
      errorText: '503 from the provider',
      costMicros: dollars(1),
      startedAt,
      finishedAt: new Date(startedAt.getTime() + 100),
    };
  });
  await recordAttempts([...knownAttempts(agent), ...fillers]);

  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();

  const draft = page.getByTestId(`step-row-${agent}-draft`);
  await expect(draft.getByTestId('attempts')).toHaveText('3');
  await expect(draft.getByTestId('retries')).toHaveText('2');
  await expect(draft.getByTestId('retry-rate')).toHaveText('66.7%');
  await expect(draft.getByTestId('failures')).toHaveText('2');
  await expect(draft.getByTestId('spend')).toHaveText(formatMicros(dollars(8_000)));
  await expect(draft.getByTestId('retry-spend')).toHaveText(formatMicros(dollars(3_000)));

  await expect(page.getByTestId('step-stats-scope')).toContainText(/top 10 of [\d,]+ steps by retry spend/);
  await expect(page.getByTestId(`step-row-${agent}-send`)).toHaveCount(0);
  await page.getByTestId('all-steps-link').click();
  await expect(page).toHaveURL(/\/steps\?window=24h$/);
  await page.goto(`/steps?agent=${agent}`);
  const send = page.getByTestId(`steps-row-${agent}-send`);
  await expect(send.getByTestId('retryRate')).toHaveText('0.0%');
  await expect(send.getByTestId('retrySpendMicros')).toHaveText('$0.00');

  await page.goto('/');
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
  // The chart itself (its legend's icon is an svg of the same class).
  await expect(page.getByTestId('chart-retry-share').getByRole('application')).toBeVisible();
  await expect(page.getByTestId('chart-retry-spend-by-step').locator('svg.recharts-surface').first()).toBeVisible();
  await expect(page.getByTestId('top-movers')).toBeVisible();
});

test('lists the top steps by retry spend with the figures the attempt log holds', async ({ page, database }) => {
  // 30 days holds all of the demo's four days, so no attempt sits on the window's edge.
  await page.goto('/?window=30d');
  await expect(page.getByTestId('step-stats-table')).toBeVisible();

  // Counted here with plain SQL, independently of the read model the page uses, and ranked as the Steps page
  // ranks by default: retry spend, then attempts, then names in code-unit order.
  const counted = await database.db
    .select({
      agent: attempts.agent,
      step: attempts.step,
      attempts: sql<number>`count(*)::int`,
      retries: sql<number>`(count(*) filter (where ${attempts.attemptNumber} >= 2))::int`,
      retrySpend: sql<number>`(coalesce(sum(${attempts.retryCostMicros}), 0))::float8`,
    })
    .from(attempts)
    .groupBy(attempts.agent, attempts.step);
  const seededAgents = ['outreach', 'payments', 'publishing', 'research'];
  expect(counted.filter((row) => seededAgents.includes(row.agent)).length).toBeGreaterThanOrEqual(8);
  const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const ranked = [...counted].sort(
    (a, b) =>
      b.retrySpend - a.retrySpend ||
      b.attempts - a.attempts ||
      byCodeUnit(a.agent, b.agent) ||
      byCodeUnit(a.step, b.step),
  );
  const top = ranked.slice(0, 10);

  await expect(page.getByTestId('step-stats-table').locator('tbody tr')).toHaveCount(top.length);
  for (const row of top) {
    const tableRow = page.getByTestId(`step-row-${row.agent}-${row.step}`);
    await expect(tableRow.getByTestId('attempts')).toHaveText(formatCount(row.attempts));
    await expect(tableRow.getByTestId('retries')).toHaveText(formatCount(row.retries));
  }
  await expect(page.getByTestId('step-stats-scope')).toContainText(
    ranked.length > 10 ? `top 10 of ${formatCount(ranked.length)} steps` : `all ${formatCount(ranked.length)} steps`,
  );
  const total = counted.reduce((sum, row) => sum + row.attempts, 0);
  await expect(page.getByTestId('headline-attempts').getByTestId('value')).toHaveText(formatCount(total));
});

test('picks up new attempts without a reload', async ({ page, recordAttempts }) => {
  const agent = `e2e-live-${randomUUID().slice(0, 8)}`;
  const [first, retry] = knownAttempts(agent);
  // The retry first: its $2,000 puts the step among the top steps at once.
  await recordAttempts([retry!]);
  await page.goto('/');
  const draft = page.getByTestId(`step-row-${agent}-draft`);
  await expect(draft.getByTestId('attempts')).toHaveText('1');
  await expect(draft.getByTestId('retries')).toHaveText('1');

  await recordAttempts([first!]);
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
