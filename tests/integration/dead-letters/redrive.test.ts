import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  clearHold,
  discardDeadLetter,
  drainRedrives,
  redriveDeadLetter,
  runStep,
  StepError,
  type Actor,
} from '../../../packages/engine/src/core';
import { connectDatabase } from '../../../packages/engine/src/db/client';
import { auditLog, deadLetters, holds, redrives, taskBudgets } from '../../../packages/engine/src/db/schema';
import { useTestDatabase } from '../../support/test-database';
import { oncall } from '../../support/actors';

const database = useTestDatabase();
const ctx = () => ({ db: database.db, actor: oncall });

beforeAll(async () => {
  // Stands in for a queue in the same database: one row per delivered message, keyed for deduplication.
  await database.sql`create table test_queue (outbox_key text primary key, payload jsonb not null)`;
});
afterAll(async () => {
  await database.sql`drop table if exists test_queue`;
});

/** A task whose first step failed permanently: one dead letter with one open hold. */
async function makeDeadLetter() {
  const taskId = `task-${randomUUID()}`;
  const step = {
    taskId,
    agent: 'publishing',
    owner: 'team:web',
    step: 'publish',
    content: { page: taskId },
    retryAllowance: 1,
  };
  const outcome = await runStep({ db: database.db }, step, async () => {
    throw new StepError('permanent', '400: template missing');
  });
  const deadLetterId = 'deadLetterId' in outcome ? outcome.deadLetterId : undefined;
  const holdId = 'holdId' in outcome ? outcome.holdId : undefined;
  if (!deadLetterId || !holdId) throw new Error(`expected a dead letter, got ${JSON.stringify(outcome)}`);
  return { step, deadLetterId, holdId };
}

async function outboxRows(deadLetterId: number) {
  return database.db.select().from(redrives).where(eq(redrives.deadLetterId, deadLetterId));
}

describe('redriveDeadLetter', () => {
  it('enqueues once for a double redrive, grants a fresh allowance and clears the hold', async () => {
    const { deadLetterId, holdId, step } = await makeDeadLetter();
    const pool = connectDatabase(database.url, { maxConnections: 2 });
    let results: Awaited<ReturnType<typeof redriveDeadLetter>>[];
    try {
      results = await Promise.all(
        [1, 2].map(() => redriveDeadLetter({ db: pool.db, actor: oncall }, { deadLetterId, reason: 'template fixed' })),
      );
    } finally {
      await pool.close();
    }
    expect(results.map((result) => result.changed).sort()).toEqual([false, true]);
    expect(results[0]!.redrive.id).toBe(results[1]!.redrive.id);
    expect(await outboxRows(deadLetterId)).toHaveLength(1);

    const [budget] = await database.db.select().from(taskBudgets).where(eq(taskBudgets.taskId, step.taskId));
    expect(budget).toMatchObject({ status: 'active', retriesUsed: 0, spendMicros: 0 });
    const [hold] = await database.db.select().from(holds).where(eq(holds.id, holdId));
    expect(hold).toMatchObject({ status: 'cleared', resolution: 'resume' });

    // The failed step runs again as its next attempt; its key was left alone.
    const rerun = await runStep({ db: database.db }, step, async ({ attemptNumber }) => ({
      result: `published on attempt ${attemptNumber}`,
    }));
    expect(rerun).toMatchObject({ status: 'completed', result: 'published on attempt 2', attemptNumber: 2 });
  });

  it('takes effect once when two responders redrive the same dead letter at the same moment', async () => {
    const { deadLetterId } = await makeDeadLetter();
    const second: Actor = { type: 'person', id: 'second@example.com', role: 'responder', teams: [] };
    const results = await Promise.all([
      redriveDeadLetter(ctx(), { deadLetterId, reason: 'fixed the template' }),
      redriveDeadLetter({ db: database.db, actor: second }, { deadLetterId, reason: 'fixed it too' }),
    ]);
    expect(results.map((result) => result.changed).sort()).toEqual([false, true]);
    expect(results[0]!.redrive).toEqual(results[1]!.redrive);
    expect(await outboxRows(deadLetterId)).toHaveLength(1);
    const records = await database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'dead_letter.redrive'), eq(auditLog.targetId, String(deadLetterId))));
    expect(records).toHaveLength(1);
  });

  it('never deadlocks when a person clears the hold while another redrives the dead letter', async () => {
    for (let round = 0; round < 8; round += 1) {
      const { deadLetterId, holdId } = await makeDeadLetter();
      const results = await Promise.allSettled([
        clearHold(ctx(), { holdId, resolution: 'resume', note: 'resume it' }),
        redriveDeadLetter(ctx(), { deadLetterId, reason: 'redrive it' }),
      ]);
      // Whatever the interleaving: no deadlock, no error, and one outbox row.
      expect(results.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled']);
      expect(await outboxRows(deadLetterId)).toHaveLength(1);
    }
  });

  it('redrives when a person clears the hold with resume, and discards with discard', async () => {
    const resumed = await makeDeadLetter();
    await clearHold(ctx(), { holdId: resumed.holdId, resolution: 'resume', note: 'fixed upstream' });
    expect(await outboxRows(resumed.deadLetterId)).toHaveLength(1);

    const discarded = await makeDeadLetter();
    await clearHold(ctx(), { holdId: discarded.holdId, resolution: 'discard', note: 'page retired' });
    const [letter] = await database.db.select().from(deadLetters).where(eq(deadLetters.id, discarded.deadLetterId));
    expect(letter?.status).toBe('discarded');
    expect(await outboxRows(discarded.deadLetterId)).toHaveLength(0);
    await expect(redriveDeadLetter(ctx(), { deadLetterId: discarded.deadLetterId, reason: 'x' })).rejects.toMatchObject(
      { code: 'STATE_CONFLICT' },
    );
    expect((await discardDeadLetter(ctx(), { deadLetterId: discarded.deadLetterId, reason: 'again' })).changed).toBe(
      false,
    );
  });
});

describe('drainRedrives', () => {
  async function undeliveredKeys(): Promise<string[]> {
    const rows = await database.db
      .select({ key: redrives.outboxKey })
      .from(redrives)
      .where(sql`${redrives.deliveredAt} is null`);
    return rows.map((row) => row.key);
  }

  it('loses and duplicates nothing when the drainer dies mid-batch', async () => {
    await drainRedrives({ db: database.db }, async () => {}); // deliver anything left by earlier tests
    for (let index = 0; index < 5; index++) {
      const { deadLetterId } = await makeDeadLetter();
      await redriveDeadLetter(ctx(), { deadLetterId, reason: 'batch' });
    }
    const pending = await undeliveredKeys();
    expect(pending).toHaveLength(5);

    // A separate process, killed with SIGKILL after enqueueing its third redrive and before committing it.
    const crashed = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'tests/support/crashing-drainer.ts', database.url],
      {
        cwd: path.resolve(import.meta.dirname, '../../..'),
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(crashed.signal).toBe('SIGKILL');
    expect(await undeliveredKeys()).toHaveLength(3);
    // Its backend rolls back and lets go of the row it had claimed once it notices the client is gone, which a
    // loaded machine may take a moment to do: until then a drain skips that row as taken.
    for (let waited = 0; ; waited += 50) {
      const [row] = await database.sql<{ open: number }[]>`select count(*)::int as open from pg_stat_activity
        where datname = current_database() and state like 'idle in transaction%'`;
      if (row!.open === 0) break;
      if (waited > 30_000) throw new Error("the crashed drainer's transaction is still open after 30 s");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }

    const result = await drainRedrives({ db: database.db }, async (redrive, tx) => {
      await tx.execute(
        sql`insert into test_queue values (${redrive.outboxKey}, ${JSON.stringify(redrive.payload)}::jsonb)`,
      );
    });
    expect(result.delivered).toBe(3); // two committed before the crash; the third rolled back with it
    expect(await undeliveredKeys()).toEqual([]);
    const queued = await database.sql<
      { outbox_key: string }[]
    >`select outbox_key from test_queue where outbox_key = any(${database.sql.array(pending)})`;
    expect(queued.map((row) => row.outbox_key).sort()).toEqual([...pending].sort());
  });

  it('keeps a failed delivery with its error and tries it again after a backoff', async () => {
    const { deadLetterId } = await makeDeadLetter();
    await redriveDeadLetter(ctx(), { deadLetterId, reason: 'retry later' });
    const failed = await drainRedrives({ db: database.db }, async () => {
      throw new Error('queue unavailable');
    });
    expect(failed).toEqual({ delivered: 0, failed: 1 });
    const [row] = await outboxRows(deadLetterId);
    expect(row).toMatchObject({ deliveredAt: null, deliveryAttempts: 1, lastError: 'queue unavailable' });

    expect(await drainRedrives({ db: database.db }, async () => {})).toEqual({ delivered: 0, failed: 0 }); // not due yet
    await database.db
      .update(redrives)
      .set({ nextAttemptAt: sql`now()` })
      .where(and(eq(redrives.deadLetterId, deadLetterId)));
    expect(await drainRedrives({ db: database.db }, async () => {})).toEqual({ delivered: 1, failed: 0 });
  });
});
