import { describe, expect, it } from 'vitest';
import {
  admitBatchWork,
  admitTokenBatch,
  answerRefusal,
  REPEAT_REFUSAL_DELAY_MS,
  BATCHES_PER_TOKEN,
  type Slot,
  WAITING_BATCHES,
  WORKING_BATCHES,
  WORKING_PER_TOKEN,
} from '../../../lib/server/traces-admission';

/** Whether a turn has started by the time the microtasks queued so far have run. */
async function started(turn: Promise<Slot>): Promise<Slot | undefined> {
  return Promise.race([turn, new Promise<undefined>((resolve) => setImmediate(() => resolve(undefined)))]);
}

describe('trace batches admitted', () => {
  it('bounds one token’s batches in flight, before their bodies are read', () => {
    const places = Array.from({ length: BATCHES_PER_TOKEN }, () => admitTokenBatch(1));
    expect(places.every((place) => place !== undefined)).toBe(true);
    expect(admitTokenBatch(1)).toBeUndefined();
    // Another token is not held back by the first one's.
    const other = admitTokenBatch(2);
    expect(other).toBeDefined();
    other!.release();
    places[0]!.release();
    places[0]!.release(); // a second release gives nothing back twice
    const again = admitTokenBatch(1);
    expect(again).toBeDefined();
    expect(admitTokenBatch(1)).toBeUndefined();
    for (const place of [again, ...places.slice(1)]) place!.release();
  });

  it('works on a few batches at once, never all of one token’s, and starts the waiting ones in turn', async () => {
    // One token takes what it may; its next batch waits although a slot is free.
    const flood = await Promise.all(Array.from({ length: WORKING_PER_TOKEN }, () => admitBatchWork(1)!));
    const floodNext = admitBatchWork(1)!;
    expect(await started(floodNext)).toBeUndefined();
    // Another token's batch starts at once in the slot the first may not take.
    expect(WORKING_BATCHES).toBeGreaterThan(WORKING_PER_TOKEN);
    const quiet = await started(admitBatchWork(2)!);
    expect(quiet).toBeDefined();
    // All slots taken: a third token waits too, after the first token's waiting batch.
    const third = admitBatchWork(3)!;
    expect(await started(third)).toBeUndefined();
    // A slot of the first token frees: its own waiting batch takes it (first come, and it may), not the third's.
    flood[0]!.release();
    const floodStarted = await started(floodNext);
    expect(floodStarted).toBeDefined();
    expect(await started(third)).toBeUndefined();
    // The quiet token's slot frees: the third token's batch starts.
    quiet!.release();
    const thirdStarted = await started(third);
    expect(thirdStarted).toBeDefined();
    for (const slot of [flood[1], floodStarted, thirdStarted]) slot!.release();
  });

  it('refuses a batch when too many wait already', async () => {
    const working = await Promise.all(
      Array.from({ length: WORKING_BATCHES }, (_, index) => admitBatchWork(100 + index)!),
    );
    const waiting = Array.from({ length: WAITING_BATCHES }, (_, index) => admitBatchWork(200 + index)!);
    expect(waiting.every((turn) => turn !== undefined)).toBe(true);
    expect(admitBatchWork(999)).toBeUndefined();
    // Everything frees in turn: every waiting batch starts once, and none is left over.
    for (const slot of working) slot.release();
    for (const turn of waiting) (await turn).release();
    const after = await started(admitBatchWork(999)!);
    expect(after).toBeDefined();
    after!.release();
  });
});

describe('refusals repeated at once', () => {
  it('are answered after a delay, the first and a later one at once', async () => {
    let now = 1_000_000;
    const slept: number[] = [];
    const sleep = async (ms: number) => {
      slept.push(ms);
    };
    const refuse = () => answerRefusal(42, new Response(null, { status: 429 }), () => now, sleep);
    await refuse();
    expect(slept).toEqual([]);
    now += 10;
    await refuse();
    expect(slept).toEqual([REPEAT_REFUSAL_DELAY_MS]);
    // Another token is not slowed by the first one's refusals.
    await answerRefusal(43, new Response(null, { status: 429 }), () => now, sleep);
    expect(slept).toHaveLength(1);
    now += REPEAT_REFUSAL_DELAY_MS;
    await refuse();
    expect(slept).toHaveLength(1);
  });
});
