import { randomUUID } from 'node:crypto';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  cancelBulkRedrive,
  hashContent,
  previewBulkRedrive,
  previewRedrive,
  redriveDeadLetter,
  runBulkRedrive,
  startBulkRedrive,
  type Actor,
} from '../../../packages/engine/src/core';
import { runDueSweeps } from '../../../packages/engine/src/scheduler/sweeps';
import {
  auditLog,
  bulkRedrives,
  deadLetters,
  holds,
  idempotencyKeys,
  redrives,
} from '../../../packages/engine/src/db/schema';
import { insertWithHolds, retriedOutRows } from '../../support/dead-letter-input';
import { useTestDatabase } from '../../support/test-database';
import { aPerson, oncall } from '../../support/actors';

const database = useTestDatabase({ maxConnections: 12 });
const viewer = aPerson('viewer', 'vera@example.com');
const ctx = (actor: Actor = oncall) => ({ db: database.db, actor });

/** A bulk redrive of one queue's dead letters, fast enough that a test never waits on its rate. */
const redriveQueue = (queue: string, reason: string) =>
  startBulkRedrive(ctx(), { requestId: randomUUID(), filter: { queue }, reason, ratePerSecond: 1_000 });

/** `count` pending dead letters of one queue, each with its open hold, written set-based. */
async function makeDeadLetters(count: number, queue: string, overrides: Partial<typeof deadLetters.$inferInsert> = {}) {
  return insertWithHolds(
    database.db,
    retriedOutRows(queue, count, () => overrides),
  );
}

async function progressOf(id: number) {
  const [run] = await database.db.select().from(bulkRedrives).where(eq(bulkRedrives.id, id));
  return run!;
}

describe('previewBulkRedrive', () => {
  it("says what will happen to each failed step's key, and what the rerun steps are expected to cost", async () => {
    const queue = `preview-${randomUUID()}`;
    const letters = await makeDeadLetters(6, queue);
    const future = new Date(Date.now() + 600_000);
    const past = new Date(Date.now() - 600_000);
    const key = (index: number, facts: Partial<typeof idempotencyKeys.$inferInsert>) => ({
      key: `${letters[index]!.taskId}/charge`,
      scope: 'step',
      requestHash: hashContent({ index }),
      status: 'failed' as const,
      fencingToken: 1,
      holderClaim: 'c',
      downstreamIdempotent: true,
      expiresAt: future,
      ...facts,
    });
    await database.db.insert(idempotencyKeys).values([
      // 0: no key at all: runs again.
      key(1, { status: 'failed' }), // runs again
      key(2, { status: 'completed', result: { charged: true } }), // replays
      key(3, { status: 'in_progress', lockedUntil: future }), // a live run holds it
      key(4, { status: 'completed', requestHash: hashContent({ index: 'other' }) }), // different content
      key(5, { status: 'in_progress', lockedUntil: past, downstreamIdempotent: false }), // uncertain
    ]);
    // History: payments/charge has cost 1,000 micro-dollars an attempt lately.
    await database.db.execute(sql`
      insert into attempt_rollups (grain, bucket_start, agent, step, error_class, attempts, retries, failures, executions, first_try_successes, cost_micros, retry_cost_micros)
      values ('hour', date_trunc('hour', now() - interval '2 hours'), 'payments', 'charge', null, 4, 1, 0, 3, 3, 4000, 1000)`);

    const preview = await previewBulkRedrive(ctx(), { queue });
    expect(preview.total).toBe(6);
    expect(preview.outcomes).toEqual({
      runs_again: 2,
      replays_result: 1,
      conflicts_in_progress: 1,
      payload_mismatch: 1,
      held_uncertain: 1,
    });
    expect(preview.expectedSpendMicros).toBe(2_000);
    expect(preview.sample.map((item) => [item.deadLetter.id, item.outcome])).toEqual(
      letters.map((letter, index) => [
        letter.id,
        ['runs_again', 'runs_again', 'replays_result', 'conflicts_in_progress', 'payload_mismatch', 'held_uncertain'][
          index
        ],
      ]),
    );
    // Nothing was done.
    expect(
      await database.db
        .select()
        .from(redrives)
        .where(
          inArray(
            redrives.deadLetterId,
            letters.map((letter) => letter.id),
          ),
        ),
    ).toEqual([]);
  });

  it('counts the items that last failed permanently, for the preview to warn', async () => {
    const queue = `permanent-${randomUUID()}`;
    await makeDeadLetters(3, queue);
    await makeDeadLetters(2, queue, { errorClass: 'permanent', lastError: '400 Bad Request: invalid recipient' });
    const preview = await previewBulkRedrive(ctx(), { queue });
    expect(preview).toMatchObject({ total: 5, brakedTotal: 0, lastFailedPermanently: 2 });
    expect((await previewBulkRedrive(ctx(), { queue, errorClass: 'transient' })).lastFailedPermanently).toBe(0);
  });

  it('previews one dead letter as the bulk preview judges each item; a viewer may not, an unknown id is not found', async () => {
    const queue = `one-${randomUUID()}`;
    const [letter] = await makeDeadLetters(1, queue, { errorClass: 'permanent', lastError: '400: bad input' });
    expect(await previewRedrive(ctx(), letter!.id)).toEqual({
      deadLetterId: letter!.id,
      outcome: 'runs_again',
      brakes: [],
      lastFailedPermanently: true,
    });
    await expect(previewRedrive(ctx(viewer), letter!.id)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(previewRedrive(ctx(), 999_999_999)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('filters by error class and searches the error text literally', async () => {
    const queue = `search-${randomUUID()}`;
    await makeDeadLetters(3, queue);
    await makeDeadLetters(2, queue, { errorClass: 'rate_limited', lastError: '429: 100% of quota used' });
    expect((await previewBulkRedrive(ctx(), { queue, errorClass: 'rate_limited' })).total).toBe(2);
    expect((await previewBulkRedrive(ctx(), { queue, search: '100%' })).total).toBe(2);
    expect((await previewBulkRedrive(ctx(), { queue, search: 'CARD NETWORK' })).total).toBe(3);
    expect((await previewBulkRedrive(ctx(), { queue, search: '_' })).total).toBe(0);
  });

  it('filters by attempts, spend and age, from numbers or form text', async () => {
    const queue = `bounds-${randomUUID()}`;
    await makeDeadLetters(2, queue, { attempts: 2, spendMicros: 100 });
    await makeDeadLetters(3, queue, { attempts: 7, spendMicros: 5_000_000 });
    await database.db.execute(
      sql`update dead_letters set created_at = now() - interval '3 hours' where queue = ${queue} and attempts = 2`,
    );
    expect((await previewBulkRedrive(ctx(), { queue, minAttempts: '5' })).total).toBe(3);
    expect((await previewBulkRedrive(ctx(), { queue, minSpendMicros: 1_000_000 })).total).toBe(3);
    expect((await previewBulkRedrive(ctx(), { queue, minAgeHours: '2' })).total).toBe(2);
    await expect(previewBulkRedrive(ctx(), { queue, minAttempts: 'many' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      fieldErrors: { minAttempts: expect.any(Array) },
    });
  });

  it('is refused to a viewer', async () => {
    await expect(previewBulkRedrive(ctx(viewer), {})).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });
});

describe('bulk redrive', () => {
  it('redrives 1,000 dead letters at its rate limit, shows progress, stops on cancel, and counts add up', async () => {
    const queue = `bulk-${randomUUID()}`;
    const letters = await makeDeadLetters(1_000, queue);
    const { bulkRedrive, created } = await startBulkRedrive(ctx(), {
      requestId: randomUUID(),
      filter: { queue },
      reason: 'card network recovered',
      ratePerSecond: 400,
    });
    expect(created).toBe(true);
    expect(bulkRedrive).toMatchObject({ total: 1_000, processed: 0, status: 'running' });

    const began = Date.now();
    const running = runBulkRedrive(ctx(), bulkRedrive.id);
    const seen: number[] = [];
    for (;;) {
      const { processed } = await progressOf(bulkRedrive.id);
      seen.push(processed);
      if (processed >= 300) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const cancel = await cancelBulkRedrive(ctx(), { bulkRedriveId: bulkRedrive.id });
    expect(cancel.changed).toBe(true);
    expect((await cancelBulkRedrive(ctx(), { bulkRedriveId: bulkRedrive.id })).changed).toBe(false);
    const finished = await running;
    const elapsedSeconds = (Date.now() - began) / 1_000;

    // Progress advanced through values between none and all, never backwards.
    expect(seen.some((processed) => processed > 0 && processed < 1_000)).toBe(true);
    expect([...seen].sort((a, b) => a - b)).toEqual(seen);
    // It stopped early, and its counts add up.
    expect(finished.status).toBe('cancelled');
    expect(finished.processed).toBeGreaterThanOrEqual(300);
    expect(finished.processed).toBeLessThan(1_000);
    expect(finished.redriven + finished.skipped).toBe(finished.processed);
    // The rate limit held: 40 items a batch at 400 a second.
    expect(elapsedSeconds).toBeGreaterThanOrEqual((finished.processed - 40) / 400);

    // Each redriven dead letter has exactly one outbox row; the rest are still pending with their holds open.
    const ids = letters.map((letter) => letter.id);
    const outbox = await database.db.select().from(redrives).where(inArray(redrives.deadLetterId, ids));
    expect(outbox).toHaveLength(finished.redriven);
    expect(new Set(outbox.map((row) => row.deadLetterId)).size).toBe(outbox.length);
    const stillPending = await database.db
      .select()
      .from(deadLetters)
      .where(and(inArray(deadLetters.id, ids), eq(deadLetters.status, 'pending')));
    expect(stillPending).toHaveLength(1_000 - finished.redriven);
    const openHolds = await database.db
      .select()
      .from(holds)
      .where(and(eq(holds.itemType, 'dead_letter'), inArray(holds.itemId, ids.map(String)), eq(holds.status, 'open')));
    expect(openHolds).toHaveLength(1_000 - finished.redriven);

    const trail = await database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetType, 'bulk_redrive'), eq(auditLog.targetId, String(bulkRedrive.id))));
    expect(trail.map((record) => record.action).sort()).toEqual([
      'dead_letter.bulk_redrive.cancel',
      'dead_letter.bulk_redrive.cancelled',
      'dead_letter.bulk_redrive.start',
    ]);
  });

  it('enqueues nothing twice with two runners at once and a person redriving some by hand', async () => {
    const queue = `race-${randomUUID()}`;
    const letters = await makeDeadLetters(300, queue);
    const { bulkRedrive } = await redriveQueue(queue, 'retry all');
    const byHand = letters.filter((_, index) => index % 10 === 0);
    const [first, second] = await Promise.all([
      runBulkRedrive(ctx(), bulkRedrive.id),
      runBulkRedrive(ctx(), bulkRedrive.id),
      ...byHand.map((letter) => redriveDeadLetter(ctx(), { deadLetterId: letter.id, reason: 'this one first' })),
    ]);
    const finished = await progressOf(bulkRedrive.id);
    expect(finished).toMatchObject({ status: 'completed', processed: 300 });
    expect(first!.status).toBe('completed');
    expect(second!.status).toBe('completed');
    expect(finished.redriven + finished.skipped).toBe(300);

    const outbox = await database.db
      .select()
      .from(redrives)
      .where(
        inArray(
          redrives.deadLetterId,
          letters.map((letter) => letter.id),
        ),
      );
    expect(outbox).toHaveLength(300);
    expect(new Set(outbox.map((row) => row.deadLetterId)).size).toBe(300);
  });

  it('is carried on by the sweep when its runner died', async () => {
    const queue = `stalled-${randomUUID()}`;
    await makeDeadLetters(30, queue);
    const { bulkRedrive } = await redriveQueue(queue, 'resume me');
    // No runner ever picked it up, and it has been quiet for two minutes.
    await database.db
      .update(bulkRedrives)
      .set({ heartbeatAt: new Date(Date.now() - 120_000) })
      .where(eq(bulkRedrives.id, bulkRedrive.id));
    const reports = await runDueSweeps({ db: database.db });
    expect(reports.find((report) => report.job === 'resume_bulk_redrives')?.result?.changed).toBeGreaterThanOrEqual(1);
    expect(await progressOf(bulkRedrive.id)).toMatchObject({ status: 'completed', processed: 30, redriven: 30 });
  });

  it('is left to its runner while its heartbeat is younger than the stalled threshold', async () => {
    const queue = `quiet-${randomUUID()}`;
    await makeDeadLetters(3, queue);
    const { bulkRedrive } = await redriveQueue(queue, 'threshold');
    await database.db
      .update(bulkRedrives)
      .set({ heartbeatAt: sql`now() - interval '20 seconds'` })
      .where(eq(bulkRedrives.id, bulkRedrive.id));
    // Quiet for 20 s: not stalled by the default 30 s, stalled by a 10 s threshold. The passes are judged
    // minutes ahead, in buckets of their own (the other tests' sweeps took this minute's).
    const resumed = async (settings: { bulkRedriveStalledMs?: number }, aheadMs: number) =>
      (await runDueSweeps({ db: database.db }, settings, new Date(Date.now() + aheadMs))).find(
        (report) => report.job === 'resume_bulk_redrives',
      );
    expect(await resumed({}, 120_000)).toMatchObject({ ran: true, result: { changed: 0 } });
    expect(await progressOf(bulkRedrive.id)).toMatchObject({ status: 'running', processed: 0 });
    expect(await resumed({ bulkRedriveStalledMs: 10_000 }, 180_000)).toMatchObject({
      ran: true,
      result: { changed: 1 },
    });
    expect(await progressOf(bulkRedrive.id)).toMatchObject({ status: 'completed', processed: 3, redriven: 3 });
  });

  it('may be started, run or cancelled only by someone who may redrive', async () => {
    const queue = `roles-${randomUUID()}`;
    await makeDeadLetters(2, queue);
    await expect(
      startBulkRedrive(ctx(viewer), { requestId: randomUUID(), filter: { queue }, reason: 'viewer tries' }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
    const { bulkRedrive } = await startBulkRedrive(ctx(), {
      requestId: randomUUID(),
      filter: { queue },
      reason: 'responder starts',
      ratePerSecond: 100,
    });
    await expect(cancelBulkRedrive(ctx(viewer), { bulkRedriveId: bulkRedrive.id })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    await expect(runBulkRedrive(ctx(viewer), bulkRedrive.id)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(await progressOf(bulkRedrive.id)).toMatchObject({ status: 'running', processed: 0 });
    const trail = await database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetType, 'bulk_redrive'), eq(auditLog.targetId, String(bulkRedrive.id))));
    expect(trail.map((record) => record.action)).toEqual(['dead_letter.bulk_redrive.start']);
  });

  it('starts one run for a request submitted twice at once', async () => {
    const queue = `double-${randomUUID()}`;
    await makeDeadLetters(5, queue);
    const requestId = randomUUID();
    const request = { requestId, filter: { queue }, reason: 'double click', ratePerSecond: 50 };
    const results = await Promise.all([startBulkRedrive(ctx(), request), startBulkRedrive(ctx(), request)]);
    expect(results.filter((result) => result.created)).toHaveLength(1);
    expect(results[0]!.bulkRedrive.id).toBe(results[1]!.bulkRedrive.id);
    expect(await database.db.select().from(bulkRedrives).where(eq(bulkRedrives.requestId, requestId))).toHaveLength(1);
  });

  it('refuses a filter that matches nothing, and bad input, naming the field', async () => {
    await expect(
      startBulkRedrive(ctx(), { requestId: randomUUID(), filter: { queue: `none-${randomUUID()}` }, reason: 'x' }),
    ).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      fieldErrors: { filter: ['matches no pending dead letter'] },
    });
    await expect(
      startBulkRedrive(ctx(), { requestId: 'not-a-uuid', filter: {}, reason: '', ratePerSecond: 0 }),
    ).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      fieldErrors: { requestId: expect.any(Array), reason: expect.any(Array), ratePerSecond: expect.any(Array) },
    });
  });
});
