import { describe, expect, it } from 'vitest';
import {
  beginStep,
  type BeginStepInput,
  finishStep,
  recordAttempt,
  saveSpendBudget,
  deleteSpendBudget,
  BUDGET_STRIPES,
} from '../../../packages/engine/src/core';
import { addKnownOwners } from '../../support/known-owners';
import { reserveAcrossStripes } from '../../../packages/engine/src/core/budgets/budget-stripes';
import { evaluateAlerts } from '../../../packages/engine/src/alerts/evaluate';
import { budgetKit, TEN_AM } from '../../support/budget-kit';
import { aStepInput, attemptOf } from '../../support/step-input';
import { useTestDatabase } from '../../support/test-database';

/**
 * The fleet's spend budgets at the begin (core/steps/gates/spend-budget.ts): reserved under concurrency with many
 * connections, never past a limit; swapped for the real cost at the finish; a period's turn frees the budget;
 * nested budgets each enforced; a stop is DO_NOT_RETRY; a replay stays free. Counted against the attempts.
 */
const database = useTestDatabase({ maxConnections: 24 });
const { asAdmin, ctx, aBudget } = budgetKit(database, 'budget');

async function usageOf(name: string) {
  const [row] = await database.sql<{ spent: number; reserved: number; refusals: number; retry_spent: number }[]>`
    select sum(u.spent_micros)::int as spent, sum(u.reserved_micros)::int as reserved, sum(u.refusals)::int as refusals,
      sum(u.retry_spent_micros)::int as retry_spent
    from spend_budget_usage u join spend_budgets b on b.id = u.budget_id where b.name = ${name}
    group by u.period_start`;
  return row;
}

const aStep = (fields: Partial<BeginStepInput>): BeginStepInput =>
  aStepInput({ owner: 'team:budgeted', estimatedCostMicros: 1_000, ...fields });

describe('a fleet spend budget at the begin', () => {
  it('lets 64 concurrent begins across 16 tasks reserve exactly up to an agent day budget, and counts their cost', async () => {
    await addKnownOwners(database.db, ['team:budgeted']);
    const budget = await aBudget({ scope: 'agent', scopeValue: 'racer', limitUsd: 0.01 }); // 10 attempts of $0.001
    const tasks = Array.from({ length: 16 }, () => aStep({ agent: 'racer' }).taskId);
    const answers = await Promise.all(
      Array.from({ length: 64 }, (_, index) =>
        beginStep(ctx(), aStep({ agent: 'racer', taskId: tasks[index % 16], step: `s${index}` })),
      ),
    );
    const ran = answers.filter((answer) => answer.decision === 'run');
    const waited = answers.filter((answer) => answer.decision === 'wait');
    expect(ran).toHaveLength(10);
    expect(waited).toHaveLength(54);
    for (const answer of waited) {
      expect(answer).toMatchObject({
        code: 'BUDGET_EXHAUSTED',
        retryAfterMs: 14 * 3_600_000,
        budget: { name: budget, period: 'day', limitMicros: 10_000, periodEndsAt: '2026-06-04T00:00:00.000Z' },
      });
    }
    expect(await usageOf(budget)).toMatchObject({ spent: 0, reserved: 10_000, refusals: 54 });

    // Each finish swaps its reservation for what it really cost (here less than estimated): room again.
    for (const answer of ran) {
      await finishStep(ctx(), { ...attemptOf(answer), outcome: 'succeeded', costMicros: 600 });
    }
    expect(await usageOf(budget)).toMatchObject({ spent: 6_000, reserved: 0 });
    const [recount] = await database.sql<{ spent: number }[]>`
      select sum(cost_micros)::int as spent from attempts
      where agent = 'racer' and started_at >= '2026-06-03' and started_at < '2026-06-04' and outcome <> 'running'`;
    expect(recount!.spent).toBe(6_000);
    const again = await Promise.all(
      Array.from({ length: 8 }, (_, index) => beginStep(ctx(), aStep({ agent: 'racer', step: `again-${index}` }))),
    );
    expect(again.filter((answer) => answer.decision === 'run')).toHaveLength(4);
  });

  it('frees the budget when its day turns', async () => {
    await aBudget({ scope: 'agent', scopeValue: 'turner', limitUsd: 0.001 });
    expect(await beginStep(ctx(), aStep({ agent: 'turner' }))).toMatchObject({ decision: 'run' });
    expect(await beginStep(ctx(), aStep({ agent: 'turner' }))).toMatchObject({ decision: 'wait' });
    const tomorrow = new Date('2026-06-04T00:00:01Z');
    expect(await beginStep(ctx(tomorrow), aStep({ agent: 'turner' }))).toMatchObject({ decision: 'run' });
  });

  it('enforces nested budgets each: the agent, its owner, the fleet', async () => {
    await addKnownOwners(database.db, ['team:nested']);
    const owner = await aBudget({ scope: 'owner', scopeValue: 'team:nested', limitUsd: 0.002 });
    await aBudget({ scope: 'agent', scopeValue: 'nested-a', limitUsd: 1 });
    const begin = (agent: string) => beginStep(ctx(), aStep({ agent, owner: 'team:nested' }));
    expect((await begin('nested-a')).decision).toBe('run');
    expect((await begin('nested-b')).decision).toBe('run');
    // The agent's budget has room; its owner's has none left.
    expect(await begin('nested-a')).toMatchObject({ decision: 'wait', budget: { name: owner } });
    // Work of another owner is not under it.
    expect((await beginStep(ctx(), aStep({ agent: 'nested-a' }))).decision).toBe('run');
  });

  it('stops the task with DO_NOT_RETRY when the budget says stop, naming it, and leaves a replay free', async () => {
    const budget = await aBudget({ scope: 'step', scopeValue: 'pricey', limitUsd: 0.001, onExhausted: 'stop' });
    const first = aStep({ agent: 'stopper', step: 'pricey' });
    const ran = await beginStep(ctx(), first);
    await finishStep(ctx(), { ...attemptOf(ran), outcome: 'succeeded', costMicros: 1_000, result: { ok: 1 } });
    // The same step again: its stored result, though the budget is spent.
    expect(await beginStep(ctx(), first)).toMatchObject({ decision: 'replay', result: { ok: 1 } });
    const stopped = await beginStep(ctx(), aStep({ agent: 'stopper', step: 'pricey' }));
    expect(stopped).toMatchObject({
      decision: 'stop',
      code: 'DO_NOT_RETRY',
      reason: 'budget_exhausted',
      budget: { name: budget, scope: 'step', scopeValue: 'pricey' },
    });
    expect(stopped.decision === 'stop' && stopped.deadLetterId).toBeGreaterThan(0);
  });

  it('keeps a share for first attempts: retries stop at the rest', async () => {
    await aBudget({ scope: 'agent', scopeValue: 'retrier', limitUsd: 0.004, firstAttemptPercent: 50 });
    const task = aStep({ agent: 'retrier', retryAllowance: 5 });
    let answer = await beginStep(ctx(), task);
    const fail = () =>
      finishStep(ctx(), {
        ...attemptOf(answer),
        outcome: 'failed',
        errorClass: 'transient',
        errorText: '503',
        costMicros: 1_000,
      });
    await fail();
    for (const _retry of [1, 2]) {
      answer = await beginStep(ctx(), task);
      expect(answer.decision).toBe('run');
      await fail();
    }
    // Two retries spent $0.002, the half retries may use: the third waits, while a first attempt still runs.
    expect(await beginStep(ctx(), task)).toMatchObject({ decision: 'wait', code: 'BUDGET_EXHAUSTED' });
    expect((await beginStep(ctx(), aStep({ agent: 'retrier' }))).decision).toBe('run');
  });

  it('counts spend it only sees (a reported attempt) under the budgets, past the limit, refusing nothing', async () => {
    const budget = await aBudget({ scope: 'agent', scopeValue: 'reporter', limitUsd: 0.001 });
    for (const attemptNumber of [1, 2]) {
      const startedAt = new Date(TEN_AM.getTime() - 60_000 + attemptNumber * 1_000);
      const report = {
        taskId: 'reported-task',
        agent: 'reporter',
        step: 'summarize',
        attemptNumber,
        outcome: attemptNumber === 1 ? ('failed' as const) : ('succeeded' as const),
        ...(attemptNumber === 1 ? { errorClass: 'transient' as const, errorText: '503' } : {}),
        costMicros: 800,
        startedAt,
        finishedAt: new Date(startedAt.getTime() + 500),
      };
      expect((await recordAttempt(ctx(), report)).duplicate).toBe(false);
      // A redelivery of the same report counts nothing again.
      expect((await recordAttempt(ctx(), report)).duplicate).toBe(true);
    }
    const [row] = await database.sql<{ spent: number; seen: number; reserved: number }[]>`
      select sum(spent_micros)::int as spent, sum(seen_micros)::int as seen, sum(reserved_micros)::int as reserved
      from spend_budget_usage u join spend_budgets b on b.id = u.budget_id where b.name = ${budget}`;
    expect(row).toEqual({ spent: 1_600, seen: 1_600, reserved: 0 });
    // What it saw fills the budget for the begins it decides.
    expect(await beginStep(ctx(), aStep({ agent: 'reporter' }))).toMatchObject({ decision: 'wait' });
  });
});

/** A budget's current period stripe by stripe: their number, what they reserve, and the shares they were cut. */
async function stripesOf(name: string) {
  const [row] = await database.sql<{ stripes: number; reserved: number; shares: number; over: number }[]>`
    select count(*)::int as stripes, sum(u.reserved_micros)::int as reserved, sum(u.share_micros)::int as shares,
      count(*) filter (where u.spent_micros + u.reserved_micros > u.share_micros)::int as over
    from spend_budget_usage u join spend_budgets b on b.id = u.budget_id where b.name = ${name}`;
  return row!;
}

describe("a budget's period split over stripes", () => {
  it('lets 64 concurrent begins reserve on free stripes side by side, their reservations adding up exactly', async () => {
    const budget = await aBudget({ scope: 'agent', scopeValue: 'striped', limitUsd: 1 });
    const answers = await Promise.all(
      Array.from({ length: 64 }, (_, index) => beginStep(ctx(), aStep({ agent: 'striped', step: `s${index}` }))),
    );
    expect(answers.filter((answer) => answer.decision === 'run')).toHaveLength(64);
    // Every stripe made with its share of the $1 limit; none reserves past its share.
    expect(await stripesOf(budget)).toEqual({ stripes: BUDGET_STRIPES, reserved: 64_000, shares: 1_000_000, over: 0 });
  });

  it('cuts the shares again when no free stripe has room: 64 concurrent begins under 40 attempts run exactly 40', async () => {
    // $0.04 over 32 stripes is $0.00125 a stripe: one $0.001 attempt each, then the shares are cut from the totals.
    const budget = await aBudget({ scope: 'agent', scopeValue: 'recut', limitUsd: 0.04 });
    const answers = await Promise.all(
      Array.from({ length: 64 }, (_, index) => beginStep(ctx(), aStep({ agent: 'recut', step: `s${index}` }))),
    );
    expect(answers.filter((answer) => answer.decision === 'run')).toHaveLength(40);
    expect(answers.filter((answer) => answer.decision === 'wait')).toHaveLength(24);
    expect(await stripesOf(budget)).toMatchObject({ reserved: 40_000, shares: 40_000, over: 0 });
  });

  it('refuses the next begin once one attempt overdraws its stripe past the limit: the others do not spend their room', async () => {
    // 32 stripes of $0.001 each; one $0.0001 estimate that really costs $0.03195.
    const budget = await aBudget({ scope: 'agent', scopeValue: 'overdrawn', limitUsd: 0.032 });
    const first = await beginStep(ctx(), aStep({ agent: 'overdrawn', estimatedCostMicros: 100 }));
    await beginStep(ctx(), aStep({ agent: 'overdrawn', estimatedCostMicros: 100, step: 'warm' })); // shares cut
    await finishStep(ctx(), { ...attemptOf(first), outcome: 'succeeded', costMicros: 31_950 });
    // 31,950 spent and 100 reserved: 50 left, less than another estimate, on any stripe.
    expect(await beginStep(ctx(), aStep({ agent: 'overdrawn', estimatedCostMicros: 100 }))).toMatchObject({
      decision: 'wait',
      code: 'BUDGET_EXHAUSTED',
    });
    expect(await usageOf(budget)).toMatchObject({ spent: 31_950, reserved: 100 });

    // Spend only seen does the same: a reported $0.03 fills what another budget had left.
    const seen = await aBudget({ scope: 'agent', scopeValue: 'overseen', limitUsd: 0.032 });
    await beginStep(ctx(), aStep({ agent: 'overseen', estimatedCostMicros: 100 }));
    await recordAttempt(ctx(), {
      taskId: aStepInput().taskId,
      agent: 'overseen',
      step: 'reported',
      attemptNumber: 1,
      outcome: 'succeeded',
      costMicros: 31_850,
      startedAt: new Date(TEN_AM.getTime() - 60_000),
      finishedAt: TEN_AM,
    });
    expect(await beginStep(ctx(), aStep({ agent: 'overseen', estimatedCostMicros: 100 }))).toMatchObject({
      decision: 'wait',
      budget: { name: seen },
    });
  });

  it('cuts every share again at the next begin after a stripe is overdrawn, so begins go the fast way again', async () => {
    const budget = await aBudget({ scope: 'agent', scopeValue: 'recovering', limitUsd: 0.032 });
    const first = await beginStep(ctx(), aStep({ agent: 'recovering', estimatedCostMicros: 100 }));
    // $0.002 against a $0.0001 reservation: past its stripe's share, the period is stale.
    await finishStep(ctx(), { ...attemptOf(first), outcome: 'succeeded', costMicros: 2_000 });
    const staleStripes = async () => {
      const [row] = await database.sql<{ stale: number }[]>`
        select count(*) filter (where u.cut_limit_micros = -1)::int as stale
        from spend_budget_usage u join spend_budgets b on b.id = u.budget_id where b.name = ${budget}`;
      return row!.stale;
    };
    expect(await staleStripes()).toBeGreaterThan(0);
    expect((await beginStep(ctx(), aStep({ agent: 'recovering', estimatedCostMicros: 100 }))).decision).toBe('run');
    expect(await staleStripes()).toBe(0);
    expect(await stripesOf(budget)).toMatchObject({ reserved: 100, shares: 32_000, over: 0 });
  });

  it('takes a budget deleted since the begin read it as covering nothing', async () => {
    const name = await aBudget({ scope: 'agent', scopeValue: 'vanishing', limitUsd: 1 });
    const [row] = await database.sql<{ id: string }[]>`select id from spend_budgets where name = ${name}`;
    await deleteSpendBudget(asAdmin(), { name, reason: 'gone' });
    const answer = await database.db.transaction((tx) =>
      reserveAcrossStripes(
        tx,
        {
          budgetId: Number(row!.id),
          periodStart: TEN_AM.toISOString(),
          carriedFrom: null,
          limitMicros: 1_000_000,
          retryCapMicros: 1_000_000,
        },
        { estimate: 1_000, retryEstimate: 0, preferredStripe: 3 },
      ),
    );
    expect(answer).toBe('gone');
  });

  it('runs a claim again in budget order when its write took a later budget and an earlier one has no free room', async () => {
    // Made first, so ordered first: 3.5 attempts, never room on one stripe, decided across all of them.
    const tight = await aBudget({ scope: 'queue', scopeValue: 'ordered', limitUsd: 0.0035 });
    const roomy = await aBudget({ scope: 'agent', scopeValue: 'ordered-agent', limitUsd: 1 });
    const begin = (index: number) =>
      beginStep(ctx(), aStep({ agent: 'ordered-agent', queue: 'ordered', step: `s${index}` }));
    // The first begin makes both periods' stripes; then the roomy budget has free stripes with room, the tight none.
    const answers = [
      await begin(0),
      ...(await Promise.all(Array.from({ length: 11 }, (_, index) => begin(index + 1)))),
    ];
    expect(answers.filter((answer) => answer.decision === 'run')).toHaveLength(3);
    expect(answers.filter((answer) => answer.decision === 'wait')).toMatchObject(
      Array.from({ length: 9 }, () => ({ budget: { name: tight } })),
    );
    // The refused claims rolled back what they had taken under the roomy budget.
    expect(await stripesOf(tight)).toMatchObject({ reserved: 3_000, shares: 3_500, over: 0 });
    expect(await stripesOf(roomy)).toMatchObject({ reserved: 3_000, over: 0 });
  });
});

describe('the budgets admins keep', () => {
  it("counts its period's spend so far when made mid-period (all of it seen), and keeps its count when changed", async () => {
    const report = (agent: string, costMicros: number, minutes: number) =>
      recordAttempt(ctx(), {
        taskId: aStepInput().taskId,
        agent,
        step: 'early',
        attemptNumber: 1,
        outcome: 'succeeded' as const,
        costMicros,
        startedAt: new Date(TEN_AM.getTime() - minutes * 60_000),
        finishedAt: new Date(TEN_AM.getTime() - minutes * 60_000 + 1_000),
      });
    await report('early-a', 1_500, 30);
    await report('early-a', 2_500, 20);
    await report('early-b', 700, 10);
    // Yesterday's spend is another period's.
    await report('early-a', 9_000, 11 * 60);
    const atTen = { ...asAdmin(), clock: () => TEN_AM };
    const base = { name: 'made-mid-day', period: 'day' as const, limitUsd: 1, reason: 'test' };
    await saveSpendBudget(atTen, { ...base, scope: 'agent', scopeValue: 'early-a' });
    expect(await usageOf('made-mid-day')).toMatchObject({ spent: 4_000, reserved: 0 });
    const [seen] = await database.sql<{ seen: number }[]>`
      select sum(u.seen_micros)::int as seen from spend_budget_usage u join spend_budgets b on b.id = u.budget_id
      where b.name = 'made-mid-day'`;
    expect(seen!.seen).toBe(4_000);
    // A changed budget keeps its count, another scope included (running attempts hold reservations on its rows).
    await saveSpendBudget(atTen, { ...base, scope: 'agent', scopeValue: 'early-a', limitUsd: 2 });
    expect(await usageOf('made-mid-day')).toMatchObject({ spent: 4_000 });
    await saveSpendBudget(atTen, { ...base, scope: 'agent', scopeValue: 'early-b' });
    expect(await usageOf('made-mid-day')).toMatchObject({ spent: 4_000 });
    // A new budget over the other agent starts from its spend.
    await saveSpendBudget(atTen, { ...base, name: 'made-for-b', scope: 'agent', scopeValue: 'early-b' });
    expect(await usageOf('made-for-b')).toMatchObject({ spent: 700 });
  });

  it('saves, changes and deletes a budget, each audited; the same save writes nothing; bad values are named', async () => {
    const budget = {
      name: 'audited-budget',
      scope: 'owner' as const,
      scopeValue: 'team:budgeted',
      period: 'month' as const,
    };
    expect(await saveSpendBudget(asAdmin(), { ...budget, limitUsd: 100, reason: 'quarter plan' })).toEqual({
      changed: true,
      created: true,
    });
    expect(await saveSpendBudget(asAdmin(), { ...budget, limitUsd: 100, reason: 'again' })).toEqual({
      changed: false,
      created: false,
    });
    await saveSpendBudget(asAdmin(), { ...budget, limitUsd: 120, warnPercents: [90, 50], reason: 'more' });
    expect(await deleteSpendBudget(asAdmin(), { name: budget.name, reason: 'done' })).toEqual({ changed: true });
    const records = await database.sql<{ action: string; reason: string; after: { limitMicros: number } | null }[]>`
      select action, reason, after from audit_log where target_type = 'spend_budget' and target_id = ${budget.name}
      order by id`;
    expect(records.map((record) => [record.action, record.reason, record.after?.limitMicros ?? null])).toEqual([
      ['spend_budget.save', 'quarter plan', 100_000_000],
      ['spend_budget.save', 'more', 120_000_000],
      ['spend_budget.delete', 'done', null],
    ]);
    const refused = (input: Record<string, unknown>) =>
      saveSpendBudget(asAdmin(), { ...budget, limitUsd: 1, reason: 'r', ...input } as never).then(
        () => [],
        (error: { fieldErrors?: Record<string, string[]> }) => Object.keys(error.fieldErrors ?? {}),
      );
    expect(await refused({ limitUsd: 0 })).toEqual(['limitUsd']);
    expect(await refused({ scope: 'fleet' })).toEqual(['scopeValue']);
    expect(await refused({ period: 'week' })).toEqual(['period']);
    expect(await refused({ warnPercents: [150] })).toEqual(['warnPercents.0']);
    expect(await refused({ firstAttemptPercent: 101 })).toEqual(['firstAttemptPercent']);
  });
});

describe("a budget's warnings", () => {
  it('alerts once for each threshold its period reaches, and not again on the next pass', async () => {
    const name = await aBudget({ scope: 'agent', scopeValue: 'warned', limitUsd: 0.01, warnPercents: [50, 80] });
    const spend = async (micros: number) => {
      const ran = await beginStep(ctx(), aStep({ agent: 'warned', estimatedCostMicros: micros }));
      await finishStep(ctx(), { ...attemptOf(ran), outcome: 'succeeded', costMicros: micros });
    };
    const firedFor = async () =>
      (
        await database.sql<{ identity: string }[]>`
          select identity from alert_instances where kind = 'spend_budget' and identity like ${`spend_budget:${name}:%`}
          order by id`
      ).map((row) => row.identity.split(':').at(-1));
    await spend(4_000);
    await evaluateAlerts({ db: database.db }, { now: TEN_AM });
    expect(await firedFor()).toEqual([]);
    await spend(2_000);
    for (const pass of [0, 1]) await evaluateAlerts({ db: database.db }, { now: new Date(TEN_AM.getTime() + pass) });
    expect(await firedFor()).toEqual(['50']);
    await spend(3_000);
    await evaluateAlerts({ db: database.db }, { now: new Date(TEN_AM.getTime() + 60_000) });
    await evaluateAlerts({ db: database.db }, { now: new Date(TEN_AM.getTime() + 120_000) });
    expect(await firedFor()).toEqual(['50', '80']);
  });
});
