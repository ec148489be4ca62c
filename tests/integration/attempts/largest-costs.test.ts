import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { NextRequest } from 'next/server';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { runDueSweeps } from '../../../packages/engine/src/scheduler/sweeps';
import { parseStepsView } from '../../../lib/filters/steps';
import { resetMetricsProcessState, scrapeMetrics } from '../../../packages/engine/src/metrics/scrape';
import { getOverview } from '../../../lib/queries/overview';
import { getStepDetail } from '../../../lib/queries/step-detail';
import { getStepStatsView } from '../../../lib/queries/step-stats';
import { getStepsPage } from '../../../lib/queries/steps-page';
import { getTopStepsView } from '../../../lib/queries/top-steps';
import { resolveTimeWindow, type TimeWindowName } from '@holdfast/protocol/time-window';
import { useApi } from '../../support/api-harness';

/**
 * Costs at the largest value the API accepts, in volume, on top of a long
 * history at that value: every page, endpoint and rollup pass must still
 * answer, with the figures an independent numeric sum in SQL gives. (Before the
 * limits and the numeric sums, 1,200 attempts at 2^53 - 1 overflowed the
 * bigint sums and failed them all; at 10^12 an attempt a bigint sum still
 * overflows once 9.2 million of them meet in one sum, as they do in a month's
 * span or the counters behind /metrics.)
 *
 * Figures are JS numbers: exact up to 2^53, beyond that the nearest JS number
 * to the exact sum (one rounding: sums are never added up in JS).
 */
const api = useApi();
const viewer = { type: 'person', id: 'viewer@example.com', role: 'viewer', teams: [] } as const;
vi.mock('../../../lib/server/session', () => ({ getCurrentPerson: async () => viewer }));

/** The largest cost one attempt may have: 10^12 micro-dollars (a million dollars). */
const LARGEST_COST = 1_000_000_000_000;
const DAY_MS = 86_400_000;
const STEPS = ['charge', 'refund', 'settle'];

/**
 * Ten days of history for one step, 2 to 11 days ago: a million attempts at
 * (nearly) the limit each day, all in the 12:00 five-minute bucket. Far too
 * many to ingest in a test, so their rollups are written as the pass writes
 * them (five-minute, hourly and daily rows, the fleet's rows, the counters);
 * the days sum to 10^19 - 70, past a bigint.
 */
const HISTORY = { agent: 'ledger', step: 'reconcile', days: 10 };
const DAY_ATTEMPTS = 1_000_000n;
const DAY_SPEND = 10n ** 18n - 7n;
const DAY_RETRY_SPEND = 5n * 10n ** 17n - 3n;
const historyBuckets = (now: Date) =>
  Array.from({ length: HISTORY.days }, (_, index) => {
    const day = Math.floor(now.getTime() / DAY_MS) * DAY_MS - (index + 2) * DAY_MS;
    return { day: new Date(day), hour: new Date(day + 12 * 3_600_000) };
  });

type Figures = { attempts: bigint; spend: bigint; retrySpend: bigint };

/** Per `agent/step`: the window's figures summed afresh from the raw log as numeric, plus the history's. */
async function expectedFigures(window: TimeWindowName, now: Date): Promise<Map<string, Figures>> {
  const range = resolveTimeWindow(window, now);
  const rows = await api.database.db.execute<{ key: string; attempts: string; spend: string; retry_spend: string }>(sql`
    select agent || '/' || step as key, count(*)::text as attempts, sum(cost_micros::numeric)::text as spend,
      coalesce(sum(retry_cost_micros::numeric), 0)::text as retry_spend
    from attempts
    where started_at >= ${range.from.toISOString()}::timestamptz and started_at < ${range.to.toISOString()}::timestamptz
    group by 1`);
  const expected = new Map<string, Figures>(
    rows.map((row) => [
      row.key,
      { attempts: BigInt(row.attempts), spend: BigInt(row.spend), retrySpend: BigInt(row.retry_spend) },
    ]),
  );
  const days = historyBuckets(now).filter(({ hour }) => hour >= range.from).length;
  if (days > 0)
    expected.set(`${HISTORY.agent}/${HISTORY.step}`, {
      attempts: DAY_ATTEMPTS * BigInt(days),
      spend: DAY_SPEND * BigInt(days),
      retrySpend: DAY_RETRY_SPEND * BigInt(days),
    });
  return expected;
}

/** A figure as the console shows it: the JS number nearest the exact sum. */
const shown = (exact: bigint) => Number(exact);

function expectStepFigures(
  rows: { agent: string; step: string; attempts: number; totalSpendMicros: number; retrySpendMicros: number }[],
  expected: Map<string, Figures>,
) {
  const actual = Object.fromEntries(
    rows.map((row) => [`${row.agent}/${row.step}`, [row.attempts, row.totalSpendMicros, row.retrySpendMicros]]),
  );
  const wanted = Object.fromEntries(
    [...expected].map(([key, figures]) => [
      key,
      [shown(figures.attempts), shown(figures.spend), shown(figures.retrySpend)],
    ]),
  );
  expect(actual).toEqual(wanted);
}

const sum = (values: bigint[]) => values.reduce((total, value) => total + value, 0n);

async function seedHistory(now: Date) {
  for (const { day, hour } of historyBuckets(now)) {
    for (const [grain, start] of [
      ['5min', hour],
      ['hour', hour],
      ['day', day],
    ] as const) {
      const bucket = sql`${start.toISOString()}::timestamptz`;
      await api.database.db.execute(sql`
        insert into attempt_rollups (grain, bucket_start, agent, step, error_class, attempts, retries, failures,
          executions, first_try_successes, cost_micros, retry_cost_micros)
        values (${grain}, ${bucket}, ${HISTORY.agent}, ${HISTORY.step}, null, ${String(DAY_ATTEMPTS)},
          ${String(DAY_ATTEMPTS / 2n)}, 0, ${String(DAY_ATTEMPTS / 2n)}, ${String(DAY_ATTEMPTS / 2n)},
          ${String(DAY_SPEND)}, ${String(DAY_RETRY_SPEND)})`);
      await api.database.db.execute(sql`
        insert into all_steps_rollups (grain, bucket_start, attempts, retries, cost_micros, retry_cost_micros)
        values (${grain}, ${bucket}, ${String(DAY_ATTEMPTS)}, ${String(DAY_ATTEMPTS / 2n)}, ${String(DAY_SPEND)},
          ${String(DAY_RETRY_SPEND)})`);
    }
  }
  const days = BigInt(HISTORY.days);
  await api.database.db.execute(sql`
    insert into attempt_totals (agent, step, attempts, retries, cost_micros, retry_cost_micros)
    values (${HISTORY.agent}, ${HISTORY.step}, ${String(DAY_ATTEMPTS * days)}, ${String((DAY_ATTEMPTS / 2n) * days)},
      ${String(DAY_SPEND * days)}, ${String(DAY_RETRY_SPEND * days)})`);
}

/** 600 reports at the largest cost, across the steps and the last 2.5 hours: attempt 1s, or their retries. */
function aBatch(now: Date, attemptNumber: 1 | 2, taskPrefix: string) {
  return Array.from({ length: 600 }, (_, index) => {
    const startedAt = new Date(now.getTime() - (10 + (index % 150)) * 60_000 + (attemptNumber - 1) * 120_000);
    const failed = index % 2 === 0;
    return {
      taskId: `${taskPrefix}-${index}`,
      agent: 'payments',
      step: STEPS[index % STEPS.length],
      attemptNumber,
      startedAt: startedAt.toISOString(),
      finishedAt: new Date(startedAt.getTime() + 1_500).toISOString(),
      outcome: failed ? 'failed' : 'succeeded',
      ...(failed ? { errorClass: attemptNumber === 1 ? 'transient' : 'timeout', errorText: 'upstream 503' } : {}),
      costMicros: LARGEST_COST,
    };
  });
}

const sweep = async (now: Date) => {
  const reports = await runDueSweeps({ db: api.database.db, clock: () => now }, {}, now);
  return reports.find((report) => report.job === 'roll_up_attempts');
};

describe('figures at the largest accepted costs', () => {
  const tasks = `big-${randomUUID()}`;

  beforeAll(async () => {
    const now = new Date();
    await seedHistory(now);
    for (const attemptNumber of [1, 2] as const) {
      const batch = await api.request('/api/v1/attempts/batch', {
        body: { attempts: aBatch(now, attemptNumber, tasks) },
      });
      expect(batch.status).toBe(200);
    }
    // A step through the step protocol at the limits: a task's largest ceiling, an attempt's largest estimate and cost.
    const begun = await api.request('/api/v1/steps/begin', {
      body: {
        taskId: `${tasks}-protocol`,
        agent: 'payments',
        owner: 'team:payments',
        step: 'capture',
        content: { amount: 1 },
        spendCeilingMicros: 1_000_000_000_000_000,
        estimatedCostMicros: LARGEST_COST,
      },
    });
    expect(begun.body).toMatchObject({ decision: 'run', reservedMicros: LARGEST_COST });
    const finished = await api.request('/api/v1/steps/finish', {
      body: {
        key: begun.body.key,
        fencingToken: begun.body.fencingToken,
        outcome: 'succeeded',
        result: {},
        costMicros: LARGEST_COST,
      },
    });
    expect(finished.body).toMatchObject({ decision: 'completed' });
  });

  it('the rollup sweep passes, and passes again after late reports move the stored spans', async () => {
    const now = new Date();
    expect(await sweep(now)).toMatchObject({ ran: true, result: { changed: expect.any(Number) } });
    // Late reports into hours the pass rolled: the next pass re-rolls them and moves the spans holding the history.
    const closedHour = Math.floor(now.getTime() / 3_600_000) * 3_600_000 - 3_600_000;
    const late = aBatch(now, 1, `${tasks}-late`)
      .slice(0, 30)
      .map((attempt, index) => {
        const startedAt = new Date(closedHour + index * 60_000);
        return {
          ...attempt,
          startedAt: startedAt.toISOString(),
          finishedAt: new Date(startedAt.getTime() + 1_500).toISOString(),
        };
      });
    expect((await api.request('/api/v1/attempts/batch', { body: { attempts: late } })).status).toBe(200);
    const next = await sweep(new Date(now.getTime() + 60_000));
    expect(next).toMatchObject({ ran: true });
    expect(next?.result?.summary).toMatch(/[1-9]\d* of them again for late rows/);

    const [spans] = await api.database.db.execute<{ held: string }>(sql`
      select coalesce(max(cost_micros), 0)::text as held from span_rollups where agent = ${HISTORY.agent}`);
    expect(BigInt(spans!.held)).toBe(DAY_SPEND * BigInt(HISTORY.days));
  });

  it.each(['24h', '30d'] as const)(
    'the Steps page, step stats and top steps over %s show the exact figures',
    async (window) => {
      const now = new Date();
      const expected = await expectedFigures(window, now);
      expect(expected.size).toBe(window === '24h' ? STEPS.length + 1 : STEPS.length + 2);

      expectStepFigures((await getStepStatsView(api.database.db, window, now)).steps, expected);
      const page = await getStepsPage(api.database.db, parseStepsView({ window }, now), undefined, now);
      expectStepFigures(page.steps, expected);
      const top = await getTopStepsView(api.database.db, window, now);
      expectStepFigures(top.steps, expected);
    },
  );

  it('the Overview shows the fleet totals to one rounding, and its chart the history by day', async () => {
    const now = new Date();
    for (const window of ['24h', '30d'] as const) {
      const expected = [...(await expectedFigures(window, now)).values()];
      const overview = await getOverview(api.database.db, window, now);
      expect(overview.headline.attempts.now).toBe(shown(sum(expected.map((figures) => figures.attempts))));
      expect(overview.headline.retrySpendMicros.now).toBe(shown(sum(expected.map((figures) => figures.retrySpend))));
    }
    const monthly = await getOverview(api.database.db, '30d', now);
    const historyDays = new Set(historyBuckets(now).map(({ day }) => day.toISOString().replace('.000Z', 'Z')));
    const charted = monthly.shareOverTime.filter((point) => historyDays.has(point.bucket));
    expect(charted.map((point) => point.share)).toEqual(
      Array(HISTORY.days).fill(Number(DAY_RETRY_SPEND) / Number(DAY_SPEND)),
    );
  });

  it("a step's detail shows its retry spend per day and per hour", async () => {
    const now = new Date();
    const monthly = await getStepDetail(api.database.db, {
      ...resolveTimeWindow('30d', now),
      agent: HISTORY.agent,
      step: HISTORY.step,
    });
    expect(monthly.points.map((point) => point.retrySpendMicros)).toEqual(
      Array(HISTORY.days).fill(shown(DAY_RETRY_SPEND)),
    );
    const daily = await getStepDetail(api.database.db, {
      ...resolveTimeWindow('24h', now),
      agent: 'payments',
      step: 'charge',
    });
    const charge = (await expectedFigures('24h', now)).get('payments/charge')!;
    expect(BigInt(daily.points.reduce((total, point) => total + point.retrySpendMicros, 0))).toBe(charge.retrySpend);
  });

  it('GET /api/v1/step-stats and the console routes answer 200 with the exact figures', async () => {
    const now = new Date();
    const expected = await expectedFigures('30d', now);
    const stepStats = (await import('../../../app/api/v1/step-stats/route')).GET;
    const answer = await stepStats(
      new NextRequest('http://holdfast.test/api/v1/step-stats?window=30d', {
        headers: { authorization: `Bearer ${api.readToken}` },
      }),
    );
    expect(answer.status).toBe(200);
    expectStepFigures((await answer.json()).steps, expected);

    const consoleStepStats = (await import('../../../app/api/console/step-stats/route')).GET;
    const top = await consoleStepStats(new NextRequest('http://holdfast.test/api/console/step-stats?window=30d'));
    expect(top.status).toBe(200);
    expectStepFigures((await top.json()).steps, expected);

    const consoleOverview = (await import('../../../app/api/console/overview/route')).GET;
    const overview = await consoleOverview(new NextRequest('http://holdfast.test/api/console/overview?window=30d'));
    expect(overview.status).toBe(200);
    expect((await overview.json()).headline.retrySpendMicros.now).toBe(
      shown(sum([...expected.values()].map((figures) => figures.retrySpend))),
    );
  });

  it("/metrics counts every step's spend since it began, the history's past a bigint", async () => {
    resetMetricsProcessState();
    const text = await scrapeMetrics(api.database.db, { clock: () => new Date(), maxAgeMs: 0 });
    const spendOf = (agent: string, step: string) => {
      const line = text
        .split('\n')
        .find((entry) => entry.startsWith(`holdfast_spend_microdollars_total{agent="${agent}",step="${step}"}`));
      return line === undefined ? undefined : Number(line.split(' ').at(-1));
    };
    const raw = await api.database.db.execute<{ step: string; spend: string }>(sql`
      select step, sum(cost_micros::numeric)::text as spend from attempts where agent = 'payments' group by step`);
    for (const row of raw) expect(spendOf('payments', row.step)).toBe(shown(BigInt(row.spend)));
    expect(spendOf(HISTORY.agent, HISTORY.step)).toBe(shown(DAY_SPEND * BigInt(HISTORY.days)));
  });
});

describe('costs past the limits', () => {
  it('a batch with one attempt at 10^12 + 1 is refused 400 INVALID_INPUT naming it, and records nothing', async () => {
    const taskPrefix = `over-${randomUUID()}`;
    const attempts = aBatch(new Date(), 1, taskPrefix).slice(0, 5);
    attempts[3]!.costMicros = LARGEST_COST + 1;
    const refused = await api.request('/api/v1/attempts/batch', { body: { attempts } });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      code: 'INVALID_INPUT',
      fieldErrors: { 'attempts.3.costMicros': [expect.stringContaining('at most 1,000,000,000,000 micro-dollars')] },
    });
    const [recorded] = await api.database.db.execute<{ count: number }>(
      sql`select count(*)::int as count from attempts where task_id like ${`${taskPrefix}-%`}`,
    );
    expect(recorded!.count).toBe(0);
  });

  it('a step begin past either limit, and a finish past the cost limit, are refused naming the field', async () => {
    const step = {
      taskId: `over-${randomUUID()}`,
      agent: 'payments',
      owner: 'team:payments',
      step: 'charge',
      content: {},
      // The step's history estimates 10^12 an attempt: a ceiling with room for it.
      spendCeilingMicros: 1_000_000_000_000_000,
    };
    const tooDear = await api.request('/api/v1/steps/begin', {
      body: { ...step, estimatedCostMicros: LARGEST_COST + 1, spendCeilingMicros: 1_000_000_000_000_001 },
    });
    expect(tooDear.status).toBe(400);
    expect(Object.keys(tooDear.body.fieldErrors as object).sort()).toEqual([
      'estimatedCostMicros',
      'spendCeilingMicros',
    ]);

    const begun = await api.request('/api/v1/steps/begin', { body: step });
    const finish = { key: begun.body.key, fencingToken: begun.body.fencingToken, outcome: 'succeeded', result: {} };
    const overCost = await api.request('/api/v1/steps/finish', { body: { ...finish, costMicros: LARGEST_COST + 1 } });
    expect(overCost).toMatchObject({
      status: 400,
      body: { code: 'INVALID_INPUT', fieldErrors: { costMicros: expect.any(Array) } },
    });
    expect(await api.request('/api/v1/steps/finish', { body: { ...finish, costMicros: LARGEST_COST } })).toMatchObject({
      status: 200,
      body: { decision: 'completed' },
    });
  });
});
