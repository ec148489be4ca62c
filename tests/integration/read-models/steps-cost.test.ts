import { beforeAll, describe, expect, it } from 'vitest';
import { recordAttempt, type RecordAttemptInput } from '../../../packages/engine/src/core';
import { stepsCsv } from '../../../lib/console/steps-csv';
import { parseStepsView } from '../../../lib/filters/steps';
import { inOneSnapshot } from '../../../lib/queries/one-snapshot';
import { readStepFigures } from '../../../lib/queries/step-figures';
import { getStepsPage, readStepsExport } from '../../../lib/queries/steps-page';
import { rollUpAttempts } from '../../../packages/engine/src/rollups/roll-up';
import { stepOwners } from '../../../packages/engine/src/db/schema';
import { aFailedAttempt, anAttempt } from '../../support/attempt-factory';
import { useTestDatabase } from '../../support/test-database';

/**
 * The Steps page's cost figures: each step against the previous window of equal length, what its failed
 * attempts cost, and its retry spend by the failure that caused each retry, on the page and in the CSV.
 */
const database = useTestDatabase();
const now = new Date('2026-11-20T12:30:00Z');
const DAY_MS = 86_400_000;
const agent = 'cost-agent';

/** An attempt of one execution (task), started at `iso` and finished a second later. */
function attempt(iso: string, input: Partial<RecordAttemptInput> & { errorClass?: RecordAttemptInput['errorClass'] }) {
  const startedAt = new Date(iso);
  const timing = { startedAt, finishedAt: new Date(startedAt.getTime() + 1_000) };
  return input.errorClass
    ? aFailedAttempt({ agent, ...input, ...timing })
    : anAttempt({ agent, outcome: 'succeeded', ...input, ...timing });
}

beforeAll(async () => {
  const attempts = [
    // Before both windows (the previous 24 hours begin at 2026-11-18 12:30): counted nowhere. A failed retry, so
    // its 99,999 would show in retry spend too if it were counted.
    attempt('2026-11-18T12:00:00Z', {
      taskId: 'old',
      step: 'charge',
      attemptNumber: 2,
      errorClass: 'transient',
      costMicros: 99_999,
    }),
    // Retry spend is what an execution spent beyond one try (the succeeded attempt's cost, else the first's).
    // The previous window: charge failed once (transient, 1,000), then its retry cost 2,000 and succeeded:
    // retry spend 1,000 (the first attempt's cost, wasted).
    attempt('2026-11-19T02:00:00Z', { taskId: 'p1', step: 'charge', errorClass: 'transient', costMicros: 1_000 }),
    attempt('2026-11-19T02:01:00Z', { taskId: 'p1', step: 'charge', attemptNumber: 2, costMicros: 2_000 }),
    // This window: one clean execution at 03:00, and one that timed out, failed transiently, then succeeded:
    // 8,000 spent where one try cost 4,000, so retry spend 4,000 (attempt 2's own 2,500, and attempt 3's share,
    // the 1,500 attempt 1 wasted).
    attempt('2026-11-20T03:00:00Z', { taskId: 'n2', step: 'charge', costMicros: 1_000 }),
    attempt('2026-11-20T08:00:00Z', { taskId: 'n1', step: 'charge', errorClass: 'timeout', costMicros: 1_500 }),
    attempt('2026-11-20T08:01:00Z', {
      taskId: 'n1',
      step: 'charge',
      attemptNumber: 2,
      errorClass: 'transient',
      costMicros: 2_500,
    }),
    attempt('2026-11-20T08:02:00Z', { taskId: 'n1', step: 'charge', attemptNumber: 3, costMicros: 4_000 }),
    // refund is new in this window: rate limited (700), then a retry costing 900 that succeeded: retry spend 700.
    attempt('2026-11-20T09:00:00Z', { taskId: 'r1', step: 'refund', errorClass: 'rate_limited', costMicros: 700 }),
    attempt('2026-11-20T09:01:00Z', { taskId: 'r1', step: 'refund', attemptNumber: 2, costMicros: 900 }),
  ];
  for (const input of attempts) await recordAttempt({ db: database.db, clock: () => now }, input);
  // The rollup pass fills the execution shapes retry spend by cause is read from, and the hourly rollups.
  await rollUpAttempts(database.db, { now, retentionFloor: new Date(now.getTime() - 30 * DAY_MS) });
});

const readPage = (params: Record<string, string>) =>
  inOneSnapshot(database.db, (snapshot) => getStepsPage(snapshot, parseStepsView(params, now), undefined, now));

describe('the Steps page against the previous window', () => {
  it('reads each step beside the previous 24 hours, failed spend included, a new step with zeros before', async () => {
    const page = await readPage({ window: '24h' });
    const charge = page.steps.find((row) => row.step === 'charge');
    expect(charge).toMatchObject({
      attempts: 4,
      retries: 2,
      retryRate: 0.5,
      failures: 2,
      totalSpendMicros: 9_000,
      retrySpendMicros: 4_000,
      // The timeout (1,500) and the transient failure (2,500): a failed retry counts in both.
      failedSpendMicros: 4_000,
      firstTrySuccess: 0.5,
      retrySpendChangeMicros: 3_000, // 4,000 now against 1,000 before
      previous: {
        attempts: 2,
        retries: 1,
        retryRate: 0.5,
        failures: 1,
        totalSpendMicros: 3_000,
        retrySpendMicros: 1_000,
        retryShareOfSpend: 1_000 / 3_000,
        firstTrySuccess: 0,
        failedSpendMicros: 1_000,
      },
    });
    const refund = page.steps.find((row) => row.step === 'refund');
    expect(refund).toMatchObject({ retrySpendMicros: 700, failedSpendMicros: 700, retrySpendChangeMicros: 700 });
    expect(refund?.previous).toEqual({
      attempts: 0,
      retries: 0,
      retryRate: 0,
      failures: 0,
      totalSpendMicros: 0,
      retrySpendMicros: 0,
      retryShareOfSpend: 0,
      firstTrySuccess: null,
      failedSpendMicros: 0,
    });
  });

  it('reads the same figures from the rollups as from the raw log', async () => {
    const range = parseStepsView({ window: '24h' }, now).range;
    const rolled = await readStepFigures(database.db, range, { previousWindow: true });
    expect(rolled).toEqual(await readStepFigures(database.db, range, { previousWindow: true, rawOnly: true }));
    expect(rolled.map((row) => row.step)).toEqual(['charge', 'refund']);
  });

  it('compares a custom range with the range of equal length just before it', async () => {
    const page = await readPage({ window: 'custom', from: '2026-11-20T06:00:00Z', to: '2026-11-20T12:00:00Z' });
    // Six hours from 06:00 against 00:00-06:00, which held only the clean execution at 03:00.
    expect(page.steps.find((row) => row.step === 'charge')).toMatchObject({
      attempts: 3,
      retrySpendMicros: 4_000,
      retrySpendChangeMicros: 4_000,
      previous: { attempts: 1, retries: 0, totalSpendMicros: 1_000, retrySpendMicros: 0, failedSpendMicros: 0 },
    });
  });

  it('sorts by the change in retry spend and by failed spend, either way', async () => {
    const order = async (sort: string, dir: string) =>
      (await readPage({ window: '24h', sort, dir })).steps.map((row) => row.step);
    expect(await order('retrySpendChangeMicros', 'desc')).toEqual(['charge', 'refund']);
    expect(await order('retrySpendChangeMicros', 'asc')).toEqual(['refund', 'charge']);
    expect(await order('failedSpendMicros', 'asc')).toEqual(['refund', 'charge']);
    expect(await order('failedSpendMicros', 'desc')).toEqual(['charge', 'refund']);
  });

  it("splits retry spend by the failure before each retry, not by the retry's own outcome", async () => {
    const page = await readPage({ window: '24h' });
    expect(page.retryCauses.available).toBe(true);
    // Attempt 2's share (its own 2,500, failed) followed the timeout, attempt 3's (1,500: attempt 1's cost, which
    // its success wasted) the transient failure; by their own outcomes it would have been transient 2,500 and a
    // success 1,500. Most retry spend first.
    expect(page.retryCauses.byStep.get(`${agent}/charge`)).toEqual([
      { cause: 'timeout', retries: 1, retrySpendMicros: 2_500 },
      { cause: 'transient', retries: 1, retrySpendMicros: 1_500 },
    ]);
    expect(page.retryCauses.byStep.get(`${agent}/refund`)).toEqual([
      { cause: 'rate_limited', retries: 1, retrySpendMicros: 700 },
    ]);
    // The executions counted are those begun from the hour holding the window's start.
    expect(page.retryCauses.executionsBegun.from).toEqual(new Date('2026-11-19T12:00:00Z'));
  });
});

describe("the Steps page's CSV", () => {
  it('carries the owner, failed spend, retry spend by cause, the change in retry spend and the previous window', async () => {
    // An admin named the agent's owner: every one of its steps carries it, and where it came from.
    await database.db
      .insert(stepOwners)
      .values({ agent, step: '*', owner: 'team:payments', updatedBy: 'person:ada@example.com' });
    const view = parseStepsView({ window: '24h', sort: 'retrySpendChangeMicros' }, now);
    const exported = await inOneSnapshot(database.db, (snapshot) => readStepsExport(snapshot, view, now, 100));
    const [header, ...lines] = stepsCsv(exported!.steps, {
      retryCauses: exported!.retryCauses.byStep,
      owners: exported!.owners,
    }).split('\r\n');
    const cells = (line: string) => {
      const values = line.split(',');
      const named = Object.fromEntries(header!.split(',').map((name, index) => [name, values[index]]));
      // Latency is another test's; the classes' order is the read's, not a promise.
      const { latency_p50_ms, latency_p95_ms, failures_by_class, ...rest } = named;
      return { ...rest, failures_by_class: failures_by_class?.split('; ').sort().join('; ') };
    };
    expect(cells(lines[0]!)).toEqual({
      agent,
      step: 'charge',
      owner: 'team:payments',
      owner_source: 'agent',
      // Not given to stepsCsv here: tests/integration/analytics/step-sources.test.ts exports them.
      cost_sources: '',
      attempts: '4',
      retries: '2',
      retry_rate: '0.5',
      first_try_success: '0.5',
      spend_usd: '0.009',
      retry_spend_usd: '0.004',
      retry_share_of_spend: String(4_000 / 9_000),
      failures: '2',
      failures_by_class: 'timeout 1; transient 1',
      failed_spend_usd: '0.004',
      retry_spend_by_cause_usd: 'timeout 0.0025; transient 0.0015',
      retry_spend_change_usd: '0.003',
      previous_attempts: '2',
      previous_retries: '1',
      previous_retry_rate: '0.5',
      previous_first_try_success: '0',
      previous_spend_usd: '0.003',
      previous_retry_spend_usd: '0.001',
      previous_retry_share_of_spend: String(1_000 / 3_000),
      previous_failures: '1',
      previous_failed_spend_usd: '0.001',
    });
    expect(cells(lines[1]!)).toMatchObject({
      step: 'refund',
      owner: 'team:payments',
      failed_spend_usd: '0.0007',
      retry_spend_by_cause_usd: 'rate_limited 0.0007',
      retry_spend_change_usd: '0.0007',
      previous_attempts: '0',
      previous_first_try_success: '',
    });
    expect(lines.slice(2)).toEqual(['']);
  });
});
