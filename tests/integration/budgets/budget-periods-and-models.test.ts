import { describe, expect, it } from 'vitest';
import {
  beginStep,
  type BeginStepInput,
  finishStep,
  recordAttempt,
  periodStartOf,
  windowStartOf,
} from '../../../packages/engine/src/core';
import type { PeriodSpec } from '../../../packages/engine/src/core/budgets/budget-periods';
import { InvalidInputError } from '../../../packages/protocol/src/errors';
import type { SaveSpendBudgetInput } from '../../../packages/protocol/src/inputs/spend-budget-input';
import { budgetKit, TEN_AM } from '../../support/budget-kit';
import { aStepInput, attemptOf } from '../../support/step-input';
import { useTestDatabase } from '../../support/test-database';

/**
 * Budgets beyond the UTC calendar and the agent's names: a model's budget (declared at the begin and reserved, named
 * only at the finish or in a report and counted as seen; a dated snapshot counts under its model), the last hour
 * rolling in five-minute steps (what an earlier bucket used is carried), and a custom period from a chosen start.
 * Time is an input: each begin's clock is set, nothing sleeps.
 */
const database = useTestDatabase({ maxConnections: 24 });
const { ctx, aBudget } = budgetKit(database, 'periods');
const at = (iso: string) => new Date(iso);

const aStep = (fields: Partial<BeginStepInput>): BeginStepInput =>
  aStepInput({ estimatedCostMicros: 1_000, ...fields });

/** A budget's figures summed over every row it has (all periods, all stripes). */
async function totalsOf(name: string) {
  const [row] = await database.sql<{ spent: number; seen: number; reserved: number }[]>`
    select coalesce(sum(u.spent_micros), 0)::int as spent, coalesce(sum(u.seen_micros), 0)::int as seen,
      coalesce(sum(u.reserved_micros), 0)::int as reserved
    from spend_budgets b left join spend_budget_usage u on u.budget_id = b.id where b.name = ${name}`;
  return row!;
}

/** Begins one step at `now` and finishes it at the same moment with `cost`; answers the begin. */
async function runStepCosting(now: Date, fields: Partial<BeginStepInput>, cost: number) {
  const begun = await beginStep(ctx(now), aStep(fields));
  if (begun.decision === 'run') {
    await finishStep(ctx(now), { ...attemptOf(begun), outcome: 'succeeded', costMicros: cost });
  }
  return begun;
}

describe("a model's budget", () => {
  it('reserves under concurrency for begins that declare the model, whatever its case or dated snapshot', async () => {
    const budget = await aBudget({ scope: 'model', scopeValue: 'GPT-4o-mini', limitUsd: 0.005 }); // 5 of $0.001
    const [stored] = await database.sql<{ scope_value: string }[]>`
      select scope_value from spend_budgets where name = ${budget}`;
    expect(stored!.scope_value).toBe('gpt-4o-mini');
    const tasks = Array.from({ length: 8 }, () => aStep({}).taskId);
    const models = ['gpt-4o-mini', 'GPT-4O-MINI', 'gpt-4o-mini-2024-07-18'];
    const answers = await Promise.all(
      Array.from({ length: 32 }, (_, index) =>
        beginStep(
          ctx(),
          aStep({ agent: 'modeller', taskId: tasks[index % 8], step: `m${index}`, model: models[index % 3] }),
        ),
      ),
    );
    expect(answers.filter((answer) => answer.decision === 'run')).toHaveLength(5);
    const waited = answers.filter((answer) => answer.decision === 'wait');
    expect(waited).toHaveLength(27);
    expect(waited[0]).toMatchObject({ code: 'BUDGET_EXHAUSTED', budget: { name: budget, scope: 'model' } });
    // Another model, or no model named, is not under it.
    expect((await beginStep(ctx(), aStep({ agent: 'modeller', model: 'gpt-4o' }))).decision).toBe('run');
    expect((await beginStep(ctx(), aStep({ agent: 'modeller' }))).decision).toBe('run');

    for (const answer of answers.filter((candidate) => candidate.decision === 'run')) {
      await finishStep(ctx(), { ...attemptOf(answer), outcome: 'succeeded', costMicros: 700 });
    }
    expect(await totalsOf(budget)).toEqual({ spent: 3_500, seen: 0, reserved: 0 });
    // The recount from the attempt log, by the model each attempt row keeps.
    const [recount] = await database.sql<{ spent: number; attempts: number }[]>`
      select sum(cost_micros)::int as spent, count(*)::int as attempts from attempts
      where model = 'gpt-4o-mini' and agent = 'modeller' and outcome <> 'running'`;
    expect(recount).toEqual({ spent: 3_500, attempts: 5 });
  });

  it('counts a model named only at the finish, or in a report, as seen: never refused, never twice', async () => {
    const model = `m-${Math.random().toString(36).slice(2, 8)}`;
    const budget = await aBudget({ scope: 'model', scopeValue: model, limitUsd: 0.001 });
    // The begin names no model, so nothing is reserved; the finish names it, and its cost is seen.
    const begun = await beginStep(ctx(), aStep({ agent: 'late-namer' }));
    await finishStep(ctx(), { ...attemptOf(begun), outcome: 'succeeded', costMicros: 1_500, model });
    expect(await totalsOf(budget)).toEqual({ spent: 1_500, seen: 1_500, reserved: 0 });
    // A failed finish naming it, after a begin that did not, is seen too (its share of retry spend with it).
    const failing = await beginStep(ctx(), aStep({ agent: 'late-namer' }));
    await finishStep(ctx(), {
      ...attemptOf(failing),
      outcome: 'failed',
      errorClass: 'transient',
      errorText: '503',
      costMicros: 200,
      model: `${model}-20250101`,
    });
    expect(await totalsOf(budget)).toEqual({ spent: 1_700, seen: 1_700, reserved: 0 });
    // A begin that declared it reserved under it: its finish naming it again is not counted twice.
    const declared = await beginStep(ctx(), aStep({ agent: 'late-namer', model, estimatedCostMicros: 0 }));
    expect(declared).toMatchObject({ decision: 'wait', budget: { name: budget } });
    const report = {
      taskId: `reported-${model}`,
      agent: 'late-namer',
      step: 'summarize',
      attemptNumber: 1,
      outcome: 'succeeded' as const,
      costMicros: 300,
      model: model.toUpperCase(),
      startedAt: new Date(TEN_AM.getTime() - 30_000),
      finishedAt: new Date(TEN_AM.getTime() - 29_000),
    };
    expect((await recordAttempt(ctx(), report)).duplicate).toBe(false);
    expect((await recordAttempt(ctx(), report)).duplicate).toBe(true);
    expect(await totalsOf(budget)).toEqual({ spent: 2_000, seen: 2_000, reserved: 0 });
    const [recount] = await database.sql<{ spent: number }[]>`
      select sum(cost_micros)::int as spent from attempts where model = ${model} and outcome <> 'running'`;
    expect(recount!.spent).toBe(2_000);
  });
});

describe('the last hour, rolling', () => {
  it('carries what earlier five-minute buckets used, and frees it an hour after its bucket began', async () => {
    const agent = `roller-${Math.random().toString(36).slice(2, 8)}`;
    const budget = await aBudget({ scope: 'agent', scopeValue: agent, period: 'rolling_hour', limitUsd: 0.003 });
    // 10:00-10:05: two attempts of $0.001 spent.
    for (const _ of [1, 2])
      expect((await runStepCosting(at('2026-06-03T10:01:00Z'), { agent }, 1_000)).decision).toBe('run');
    // 10:30: the window still holds them; one more fits, the next waits until 10:35 (the next five minutes).
    expect((await runStepCosting(at('2026-06-03T10:30:00Z'), { agent }, 1_000)).decision).toBe('run');
    const refused = await beginStep(ctx(at('2026-06-03T10:31:00Z')), aStep({ agent }));
    expect(refused).toMatchObject({
      decision: 'wait',
      code: 'BUDGET_EXHAUSTED',
      retryAfterMs: 4 * 60_000,
      budget: { name: budget, period: 'rolling_hour', periodEndsAt: '2026-06-03T10:35:00.000Z' },
    });
    // 10:59: the 10:00 bucket is still in the last hour.
    expect((await beginStep(ctx(at('2026-06-03T10:59:59Z')), aStep({ agent }))).decision).toBe('wait');
    // 11:00: it has left; its two attempts' room is free, the 10:30 one still counts.
    const eleven = at('2026-06-03T11:00:00Z');
    expect((await runStepCosting(eleven, { agent }, 1_000)).decision).toBe('run');
    expect((await runStepCosting(eleven, { agent }, 1_000)).decision).toBe('run');
    expect((await beginStep(ctx(eleven), aStep({ agent }))).decision).toBe('wait');
    // 11:30: the 10:30 bucket has left too.
    expect((await beginStep(ctx(at('2026-06-03T11:30:00Z')), aStep({ agent }))).decision).toBe('run');
  });

  it('is refused beside its field when given a custom length or start', async () => {
    const refusal = await aBudget({
      scope: 'fleet',
      period: 'rolling_hour',
      limitUsd: 1,
      resetEveryHours: 3,
    }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(InvalidInputError);
    expect((refusal as InvalidInputError).fieldErrors).toEqual({
      resetEveryHours: ['only a custom period has a length'],
    });
  });
});

describe('a custom period', () => {
  it('turns every N hours from its start: a refused begin waits for the next turn, then runs', async () => {
    const agent = `sixer-${Math.random().toString(36).slice(2, 8)}`;
    const budget = await aBudget({
      scope: 'agent',
      scopeValue: agent,
      period: 'custom',
      resetEveryHours: 6,
      resetFrom: '2026-06-01T02:00:00Z',
      limitUsd: 0.001,
    });
    // Periods start at 02:00, 08:00, 14:00 and 20:00: 10:00 is in the one from 08:00 to 14:00.
    expect((await runStepCosting(TEN_AM, { agent }, 1_000)).decision).toBe('run');
    expect(await beginStep(ctx(), aStep({ agent }))).toMatchObject({
      decision: 'wait',
      retryAfterMs: 4 * 3_600_000,
      budget: { name: budget, period: 'custom', periodEndsAt: '2026-06-03T14:00:00.000Z' },
    });
    expect((await beginStep(ctx(at('2026-06-03T13:59:59Z')), aStep({ agent }))).decision).toBe('wait');
    expect((await beginStep(ctx(at('2026-06-03T14:00:00Z')), aStep({ agent }))).decision).toBe('run');
    const periods = await database.sql<{ period_start: string }[]>`
      select distinct u.period_start from spend_budget_usage u join spend_budgets b on b.id = u.budget_id
      where b.name = ${budget} order by 1`;
    expect(periods.map((row) => new Date(row.period_start).toISOString())).toEqual([
      '2026-06-03T08:00:00.000Z',
      '2026-06-03T14:00:00.000Z',
    ]);
  });

  it('names each mistake beside its field: a missing length or start, a start off the hour', async () => {
    const refusalOf = (fields: Partial<SaveSpendBudgetInput>) =>
      aBudget({ scope: 'fleet', period: 'custom', limitUsd: 1, ...fields }).catch((error: unknown) => error);
    expect(((await refusalOf({})) as InvalidInputError).fieldErrors).toEqual({
      resetEveryHours: ['say how many hours a period lasts'],
      resetFrom: ['say when the first period began'],
    });
    expect(
      ((await refusalOf({ resetEveryHours: 0, resetFrom: '2026-06-01T02:30:00Z' })) as InvalidInputError).fieldErrors,
    ).toEqual({
      resetEveryHours: ['must be at least 1 hour'],
      resetFrom: ['must be on the hour (minutes and seconds 0)'],
    });
  });
});

describe("a period's start, in the engine and in SQL", () => {
  it('is the same instant for every kind of period, at instants across months and around each turn', async () => {
    const specs: PeriodSpec[] = [
      { period: 'hour', resetEveryHours: null, resetFrom: null },
      { period: 'day', resetEveryHours: null, resetFrom: null },
      { period: 'month', resetEveryHours: null, resetFrom: null },
      { period: 'rolling_hour', resetEveryHours: null, resetFrom: null },
      { period: 'custom', resetEveryHours: 168, resetFrom: at('2026-11-30T00:00:00Z') },
      { period: 'custom', resetEveryHours: 7, resetFrom: at('2026-06-03T05:00:00Z') },
    ];
    // Random instants over a year, and the moments on either side of turns.
    let seed = 7;
    const random = () => {
      seed = (seed * 48_271) % 2_147_483_647;
      return seed / 2_147_483_647;
    };
    const instants = [
      ...Array.from({ length: 40 }, () => new Date(Date.UTC(2026, 0, 1) + Math.floor(random() * 365 * 86_400_000))),
      at('2026-02-28T23:59:59.999Z'),
      at('2026-03-01T00:00:00Z'),
      at('2026-06-03T04:59:59Z'),
      at('2026-06-03T05:00:00Z'),
      at('2026-06-03T10:04:59.999Z'),
    ];
    const cases = specs.flatMap((spec) => instants.map((instant) => ({ spec, instant })));
    const rows = await database.sql<{ start: string; window: string }[]>`
      select budget_period_start(c.period, c.hours, c.reset_from, c.at)::text as start,
        budget_window_start(c.period, c.hours, c.reset_from, c.at)::text as window
      from jsonb_to_recordset(${JSON.stringify(
        cases.map(({ spec, instant }, n) => ({
          n,
          period: spec.period,
          hours: spec.resetEveryHours,
          reset_from: spec.resetFrom?.toISOString() ?? null,
          at: instant.toISOString(),
        })),
      )}::jsonb) as c(n int, period text, hours int, reset_from timestamptz, at timestamptz)
      order by n`;
    expect(rows.map((row) => [new Date(row.start).toISOString(), new Date(row.window).toISOString()])).toEqual(
      cases.map(({ spec, instant }) => [
        periodStartOf(spec, instant).toISOString(),
        windowStartOf(spec, instant).toISOString(),
      ]),
    );
  });
});
