import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { beginStep, finishStep, recordAttempt, saveSpendBudget } from '../../../packages/engine/src/core';
import { rollUpAttempts } from '../../../packages/engine/src/rollups/roll-up';
import { readBudgetBurn } from '../../../lib/queries/budget-burn';
import { getSpendBudgets } from '../../../lib/queries/spend-budgets';
import { forecastAtRecentRate } from '../../../app/(console)/settings/budgets/[id]/forecast';
import { admin, anAgent } from '../../support/actors';
import { anAttempt } from '../../support/attempt-factory';
import { addKnownOwners } from '../../support/known-owners';
import { aStepInput, attemptOf } from '../../support/step-input';
import { useTestDatabase } from '../../support/test-database';

/**
 * A budget's page: its burn-down and top spenders add up to exactly what the budget counted (enforced begins and
 * spend only seen alike), read from the rollups for an agent's budget and from the attempt log for a queue's, the
 * same before and after the rollup pass; its forecast runs at the last hour's rate.
 */
const database = useTestDatabase();
const now = new Date('2026-11-21T12:30:00Z');
const at = (hour: number, minute = 0) => new Date(Date.UTC(2026, 10, 21, hour, minute));
const worker = anAgent('burn-test');
const ctxAt = (moment: Date) => ({ db: database.db, actor: worker, clock: () => moment });

/** A step begun and finished at `moment` with its cost: enforced spend. */
async function runStepAt(moment: Date, fields: { agent: string; step: string; queue: string; cost: number }) {
  const begun = await beginStep(
    ctxAt(moment),
    aStepInput({
      agent: fields.agent,
      step: fields.step,
      queue: fields.queue,
      owner: 'team:burn',
      estimatedCostMicros: 100,
    }),
  );
  await finishStep(ctxAt(new Date(moment.getTime() + 1_000)), {
    ...attemptOf(begun),
    outcome: 'succeeded',
    costMicros: fields.cost,
  });
}

async function budgetNamed(name: string) {
  const budget = (await getSpendBudgets(database.db, now)).find((candidate) => candidate.name === name);
  if (!budget) throw new Error(`no budget ${name}`);
  return budget;
}

describe("a spend budget's burn-down and top spenders", () => {
  it('add up to what the budget counted, from the rollups and from the attempt log, and forecast at the last hour', async () => {
    await addKnownOwners(database.db, ['team:burn']);
    const agent = `burner-${randomUUID().slice(0, 6)}`;
    const queue = `burn-queue-${randomUUID().slice(0, 6)}`;
    const asAdmin = { db: database.db, actor: admin };
    const base = { period: 'day' as const, limitUsd: 0.02, reason: 'test' };
    await saveSpendBudget(asAdmin, { name: `${agent} daily`, scope: 'agent', scopeValue: agent, ...base });
    await saveSpendBudget(asAdmin, { name: `${queue} daily`, scope: 'queue', scopeValue: queue, ...base });

    // Enforced: three steps on the queue at 09:10, 11:40 and 12:10; seen only: a reported retry at 12:20.
    await runStepAt(at(9, 10), { agent, step: 'draft', queue, cost: 1_000 });
    await runStepAt(at(11, 40), { agent, step: 'send', queue, cost: 3_000 });
    await runStepAt(at(12, 10), { agent, step: 'draft', queue, cost: 2_000 });
    const report = anAttempt({
      agent,
      step: 'draft',
      taskId: `reported-${randomUUID()}`,
      attemptNumber: 2,
      costMicros: 500,
      startedAt: at(12, 20),
      finishedAt: at(12, 21),
    });
    await recordAttempt({ db: database.db, actor: worker }, report);

    const agentBudget = await budgetNamed(`${agent} daily`);
    expect(agentBudget).toMatchObject({ spentMicros: 6_500, seenMicros: 500 });
    const retry = agentBudget.retrySpentMicros;
    const period = { start: agentBudget.periodStart, now };
    const beforeRollup = await readBudgetBurn(database.db, agentBudget, period);
    await rollUpAttempts(database.db, { now, retentionFloor: new Date('2026-10-01T00:00:00Z') });
    const burn = await readBudgetBurn(database.db, agentBudget, period);
    expect(burn).toEqual(beforeRollup);
    expect(burn.source).toBe('rollups');
    expect(burn.points).toEqual([
      { at: '2026-11-21T09:00:00Z', spentMicros: 1_000, retrySpentMicros: 0 },
      { at: '2026-11-21T11:00:00Z', spentMicros: 4_000, retrySpentMicros: 0 },
      { at: '2026-11-21T12:00:00Z', spentMicros: 6_500, retrySpentMicros: retry },
    ]);
    expect(burn.spenders).toEqual([
      { agent, step: 'draft', attempts: 3, spentMicros: 3_500, retrySpentMicros: retry },
      { agent, step: 'send', attempts: 1, spentMicros: 3_000, retrySpentMicros: 0 },
    ]);
    // The last hour, from 11:00 (the hour holding 11:30): $0.0055 in 90 minutes; $0.0135 left lasts 220.9 minutes.
    expect(burn.recent).toEqual({ since: at(11), micros: 5_500 });
    const forecast = forecastAtRecentRate(agentBudget, burn.recent, now);
    expect(forecast).toEqual({ kind: 'at', at: new Date(now.getTime() + (13_500 * 90 * 60_000) / 5_500) });

    // The queue's budget: only its tasks' attempts (the reported one has no task on the queue), from the attempt log.
    const queueBudget = await budgetNamed(`${queue} daily`);
    expect(queueBudget.spentMicros).toBe(6_000);
    const queueBurn = await readBudgetBurn(database.db, queueBudget, period);
    expect(queueBurn.source).toBe('attempt log');
    expect(queueBurn.points.at(-1)).toEqual({ at: '2026-11-21T12:00:00Z', spentMicros: 6_000, retrySpentMicros: 0 });
    expect(queueBurn.spenders.map((spender) => [spender.step, spender.spentMicros])).toEqual([
      ['draft', 3_000],
      ['send', 3_000],
    ]);
  });
});
