import { eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { beginStep, runStep, type Actor, type RunStepInput } from '../../../packages/engine/src/core';
import { flushReplayTallies } from '../../../packages/engine/src/core/keys/replay-tally';
import { attempts, holds, idempotencyKeys } from '../../../packages/engine/src/db/schema';
import { deriveKey } from '@holdfast/protocol/keys/derive-key';
import { addKnownOwners } from '../../support/known-owners';
import { useTestDatabase } from '../../support/test-database';
import { aStepInput } from '../../support/step-input';

const database = useTestDatabase();
beforeAll(() => addKnownOwners(database.db, ['team:growth']));

const aStep = (overrides: Partial<RunStepInput> = {}): RunStepInput =>
  aStepInput({ content: { lead: 42 }, ...overrides });

/** The key's row as stored, with the transaction that last wrote it (xmin): a repeat that writes would change it. */
async function keyRow(input: RunStepInput) {
  const key = deriveKey({ taskId: input.taskId, step: input.step });
  const [row] = await database.db
    .select({
      status: idempotencyKeys.status,
      claimCalls: idempotencyKeys.claimCalls,
      acquisitions: idempotencyKeys.acquisitions,
      writtenBy: sql<string>`xmin::text`,
    })
    .from(idempotencyKeys)
    .where(eq(idempotencyKeys.key, key));
  return row!;
}

describe('a repeat of a completed step', () => {
  it('answers the stored result without running the body or writing anything, and is counted afterwards', async () => {
    const step = aStep();
    let runs = 0;
    const body = async () => {
      runs += 1;
      return { result: { draft: 'hello' }, costMicros: 10 };
    };
    expect(await runStep({ db: database.db }, step, body)).toMatchObject({
      status: 'completed',
      result: { draft: 'hello' },
    });
    await flushReplayTallies();
    const before = await keyRow(step);

    for (let repeat = 0; repeat < 5; repeat += 1) {
      const outcome = await runStep({ db: database.db }, step, body);
      expect(outcome).toMatchObject({ status: 'replayed', result: { draft: 'hello' } });
    }
    expect(runs).toBe(1);
    // Nothing written: the key's row is the very version the first run left, and no attempt was added.
    expect(await keyRow(step)).toEqual(before);
    const recorded = await database.db.select().from(attempts).where(eq(attempts.taskId, step.taskId));
    expect(recorded).toHaveLength(1);

    // The calls are still counted on the key, in one batch.
    await flushReplayTallies();
    expect(await keyRow(step)).toMatchObject({ claimCalls: before.claimCalls + 5, acquisitions: 1 });
  });

  it("is refused to a token limited to another agent, by the task's stored agent", async () => {
    const step = aStep();
    await runStep({ db: database.db }, step, async () => ({ result: 'secret', costMicros: 0 }));
    const stranger: Actor = { type: 'agent', id: 'other-token', scopes: ['ingest'], allowedAgents: ['research'] };
    await expect(beginStep({ db: database.db, actor: stranger }, step)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    // Naming the limited agent in the request begins research's own task of that name: never a replay of the result.
    const own = await beginStep({ db: database.db, actor: stranger }, { ...step, agent: 'research' });
    expect(own).toMatchObject({ decision: 'run', key: `~research/${step.taskId}/${step.step}` });
  });

  it('with other content is a payload mismatch, held for a person, never a replay', async () => {
    const step = aStep();
    await runStep({ db: database.db }, step, async () => ({ result: 'v1', costMicros: 0 }));
    const answer = await beginStep({ db: database.db }, { ...step, content: { lead: 43 } });
    expect(answer).toMatchObject({ decision: 'stop', code: 'KEY_PAYLOAD_MISMATCH' });
    const held = await database.db.select().from(holds).where(eq(holds.itemId, step.taskId));
    expect(held.map((hold) => hold.reason)).toEqual(['payload_mismatch']);
  });

  it('past its retention is a new operation: the body runs again', async () => {
    const step = aStep();
    let runs = 0;
    const body = async () => {
      runs += 1;
      return { result: runs, costMicros: 0 };
    };
    await runStep({ db: database.db }, step, body);
    await database.db
      .update(idempotencyKeys)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(idempotencyKeys.key, deriveKey({ taskId: step.taskId, step: step.step })));
    expect(await runStep({ db: database.db }, step, body)).toMatchObject({ status: 'completed', result: 2 });
    expect(runs).toBe(2);
  });
});
