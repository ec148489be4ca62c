import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  beginStep,
  runStep,
  saveStepPolicy,
  setPause,
  type BeginStepInput,
  type CoreContext,
} from '../../../packages/engine/src/core';
import { connectDatabase } from '../../../packages/engine/src/db/client';
import { attempts, deadLetters, holds, taskBudgets } from '../../../packages/engine/src/db/schema';
import { addKnownOwners } from '../../support/known-owners';
import { useTestDatabase } from '../../support/test-database';
import { aStepInput } from '../../support/step-input';
import { admin } from '../../support/actors';

/**
 * A new task's row is made by its first begin, in the begin's transaction with the claim
 * (packages/engine/src/core/steps/new-task.ts): these are the promises that move kept, whatever path the begin takes.
 */
const database = useTestDatabase({ maxConnections: 24 });
const at = new Date('2026-12-03T10:00:00.000Z');
const ctx = (): CoreContext => ({ db: database.db, clock: () => at });

beforeAll(() => addKnownOwners(database.db, ['team:support']));

const aStep = (overrides: Partial<BeginStepInput> = {}): BeginStepInput =>
  aStepInput({
    agent: `agent-${randomUUID().slice(0, 8)}`,
    owner: 'team:support',
    step: 'reply',
    content: { ticket: 9 },
    estimatedCostMicros: 1_000,
    ...overrides,
  });

async function taskRow(taskId: string) {
  const [row] = await database.db.select().from(taskBudgets).where(eq(taskBudgets.taskId, taskId));
  return row;
}

describe("a new task's first begin", () => {
  it('makes its row with the begin’s allowance, its owner and a deadline from this begin', async () => {
    const input = aStep({ retryAllowance: 3, spendCeilingMicros: 40_000, timeAllowanceMs: 60_000 });
    const begun = await beginStep(ctx(), input);
    expect(begun.decision).toBe('run');
    expect(await taskRow(input.taskId)).toMatchObject({
      agent: input.agent,
      queue: input.agent,
      owner: 'team:support',
      retryAllowance: 3,
      spendCeilingMicros: 40_000,
      reservedMicros: 1_000,
      deadline: new Date(at.getTime() + 60_000),
      status: 'active',
    });
  });

  it('stores an unknown owner as the default owner', async () => {
    const input = aStep({ owner: 'team:nobody-knows' });
    await beginStep(ctx(), input);
    expect((await taskRow(input.taskId))?.owner).toBe('team:platform');
  });

  it("takes the retry allowance of an admin's override of the step's policy, read in the same statement", async () => {
    const first = aStep();
    await runStep(ctx(), first, async () => ({ result: 'ok' }));
    await saveStepPolicy(
      { db: database.db, actor: admin },
      { agent: first.agent, step: first.step, retryAllowance: 1, reason: 'this step is costly' },
    );
    const next = aStep({ agent: first.agent, retryAllowance: 5 });
    await beginStep(ctx(), next);
    expect((await taskRow(next.taskId))?.retryAllowance).toBe(1);
  });

  it('refused by its own gate, still leaves its task seen: dead-lettered with one dead letter and no attempt', async () => {
    const input = aStep({ spendCeilingMicros: 500, estimatedCostMicros: 1_000 });
    const answer = await beginStep(ctx(), input);
    expect(answer).toMatchObject({ decision: 'stop', code: 'DO_NOT_RETRY', reason: 'budget_exhausted' });
    expect(await taskRow(input.taskId)).toMatchObject({ status: 'dead_lettered', reservedMicros: 0 });
    const letters = await database.db.select().from(deadLetters).where(eq(deadLetters.taskId, input.taskId));
    expect(letters).toHaveLength(1);
    expect(await database.db.select().from(attempts).where(eq(attempts.taskId, input.taskId))).toEqual([]);
  });

  it('held by a pause, still leaves its task seen with the deadline of this first begin', async () => {
    const downstream = `mail-${randomUUID().slice(0, 8)}`;
    await setPause(
      { db: database.db, actor: admin, clock: () => at },
      { scope: 'downstream', downstream, reason: 'provider outage' },
    );
    const input = aStep({ downstream, timeAllowanceMs: 120_000 });
    const answer = await beginStep(ctx(), input);
    expect(answer).toMatchObject({ decision: 'wait', code: 'PAUSED' });
    expect(await taskRow(input.taskId)).toMatchObject({
      status: 'active',
      reservedMicros: 0,
      deadline: new Date(at.getTime() + 120_000),
    });
  });

  it('raced by 24 first begins naming two agents, each agent gets one task of that name: one runs each, the rest wait', async () => {
    const taskId = `task-${randomUUID()}`;
    const [winnerCandidate, otherCandidate] = [`alpha-${randomUUID().slice(0, 6)}`, `beta-${randomUUID().slice(0, 6)}`];
    const begins = Array.from({ length: 24 }, (_, index) =>
      beginStep(ctx(), aStep({ taskId, agent: index % 2 === 0 ? winnerCandidate : otherCandidate })).then(
        (answer) => ({ answer }),
        (error: unknown) => ({ error }),
      ),
    );
    const outcomes = await Promise.all(begins);
    expect(outcomes.filter((outcome) => 'error' in outcome)).toEqual([]);
    const stored = await taskRow(taskId);
    if (!stored) throw new Error('the task has no row');
    expect([winnerCandidate, otherCandidate]).toContain(stored.agent);
    // The other agent's task of that name is stored under its alias (task-alias.ts).
    const other = stored.agent === winnerCandidate ? otherCandidate : winnerCandidate;
    const alias = `~${other}/${taskId}`;
    expect(await taskRow(alias)).toMatchObject({ agent: other });
    const answers = outcomes.flatMap((outcome) => ('answer' in outcome ? [outcome.answer] : []));
    expect(answers.filter((answer) => answer.decision === 'run')).toHaveLength(2);
    expect(answers.filter((answer) => answer.decision === 'wait')).toHaveLength(22);
    expect(await database.db.select().from(attempts).where(eq(attempts.taskId, taskId))).toHaveLength(1);
    expect(await database.db.select().from(attempts).where(eq(attempts.taskId, alias))).toHaveLength(1);
  });
  it("racing another agent's uncommitted first begin, runs its own task of that name, not judged by the other's content", async () => {
    const first = aStep({ content: { ticket: 1 } });
    const intruder = { ...first, agent: `intruder-${randomUUID().slice(0, 6)}`, content: { ticket: 2 } };
    let raced: Promise<unknown> | undefined;
    await database.db.transaction(async (tx) => {
      expect((await beginStep({ db: tx, clock: () => at }, first)).decision).toBe('run');
      // Another agent's first begin of the same task, with other content: it sees no task yet, and its insert
      // waits on this transaction's row.
      raced = beginStep(ctx(), intruder).then(
        (answer) => ({ answer }),
        (error: unknown) => ({ error }),
      );
      await untilABeginWaitsOnALock();
    });
    const outcome = await raced;
    expect(outcome).toMatchObject({
      answer: { decision: 'run', key: `~${intruder.agent}/${first.taskId}/${first.step}` },
    });
    // No payload-mismatch hold on the other agent's task.
    const held = await database.db.select().from(holds).where(eq(holds.itemId, first.taskId));
    expect(held).toEqual([]);
  });
});

/** Polls until some session of the test database waits on a lock (the racing begin's insert). */
async function untilABeginWaitsOnALock(): Promise<void> {
  for (let tries = 0; tries < 500; tries++) {
    const waiting = await database.sql`
      select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`;
    if (waiting.length > 0) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error('no begin came to wait on the lock');
}

describe('the statements of one new step', () => {
  it('are five: a read and a transaction to begin, one statement to finish; a repeat is one read', async () => {
    const seen: string[] = [];
    const counted = connectDatabase(database.url, {
      maxConnections: 1,
      logger: { logQuery: (query) => seen.push(query) },
    });
    try {
      const input = aStep();
      const body = async () => ({ result: 'ok', costMicros: 900 });
      expect((await runStep({ db: counted.db }, input, body)).status).toBe('completed');
      // The begin's reads (task, key, pauses, breakers), then in its transaction the task's row, the claim and the
      // begin's writes; the finish's one statement.
      expect(seen).toHaveLength(5);
      seen.length = 0;
      expect((await runStep({ db: counted.db }, input, body)).status).toBe('replayed');
      expect(seen).toHaveLength(1);
    } finally {
      await counted.close();
    }
  });
});
