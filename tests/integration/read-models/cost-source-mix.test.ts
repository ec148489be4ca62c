import { describe, expect, it } from 'vitest';
import { recordAttempt } from '../../../packages/engine/src/core';
import type { CostSource } from '../../../packages/engine/src/db/schema';
import { attempts } from '../../../packages/engine/src/db/schema';
import { getCostSourceMix, pricedRetryCostMicros } from '../../../lib/queries/cost-source-mix';
import { getStepDetail } from '../../../lib/queries/step-detail';
import { anAttempt, aFailedAttempt } from '../../support/attempt-factory';
import { useTestDatabase } from '../../support/test-database';

const database = useTestDatabase();
const now = new Date('2026-11-21T00:00:00Z');
const day = { from: new Date('2026-11-20T00:00:00Z'), to: now };
const rawFloor = new Date('2026-10-22T00:00:00Z');
const at = (iso: string) => ({ startedAt: new Date(iso), finishedAt: new Date(new Date(iso).getTime() + 400) });

/**
 * An attempt with its cost source, written as the traces receiver writes span-made ones. A retry failed, so its
 * share of retry spend is its own cost (the receiver computes span-made shares as it writes them).
 */
async function insertAttempt(
  names: { agent: string; step: string },
  costSource: CostSource | null,
  attemptNumber: number,
  costMicros: number,
  iso: string,
) {
  await database.db.insert(attempts).values({
    taskId: anAttempt().taskId,
    ...names,
    attemptNumber,
    costMicros,
    ...at(iso),
    latencyMs: 400,
    ...(attemptNumber > 1
      ? { outcome: 'failed' as const, errorClass: 'transient' as const, errorText: '503 from the provider' }
      : { outcome: 'succeeded' as const }),
    retryCostMicros: attemptNumber > 1 ? costMicros : 0,
    source: costSource === null ? 'library' : 'traces',
    costSource,
  });
}

describe('getCostSourceMix', () => {
  it("counts a window's attempts, cost, retries and retry spend per cost source, exactly", async () => {
    const names = { agent: 'mix', step: 'call_model' };
    await insertAttempt(names, 'reported', 1, 1_000, '2026-11-20T01:00:00Z');
    await insertAttempt(names, 'reported', 2, 2_500, '2026-11-20T01:01:00Z');
    await insertAttempt(names, 'priced', 1, 3_300, '2026-11-20T02:00:00Z');
    await insertAttempt(names, 'priced', 2, 4_400, '2026-11-20T02:01:00Z');
    await insertAttempt(names, 'priced', 3, 5_500, '2026-11-20T02:02:00Z');
    await insertAttempt(names, 'rule', 2, 0, '2026-11-20T03:00:00Z');
    await insertAttempt(names, 'none', 1, 0, '2026-11-20T04:00:00Z');
    await insertAttempt(names, null, 1, 700, '2026-11-20T05:00:00Z');
    // Outside the window, and another step: not counted.
    await insertAttempt(names, 'priced', 2, 99_000, '2026-11-19T23:59:59Z');
    await insertAttempt({ ...names, step: 'other' }, 'priced', 2, 99_000, '2026-11-20T06:00:00Z');

    const mix = await getCostSourceMix(database.db, { ...names, ...day, rawFloor });
    expect(mix).toEqual({
      from: day.from,
      to: day.to,
      clippedToRetention: false,
      cutAfter: null,
      shares: [
        { costSource: 'reported', attempts: 2, costMicros: 3_500, retries: 1, retryCostMicros: 2_500 },
        { costSource: 'priced', attempts: 3, costMicros: 13_200, retries: 2, retryCostMicros: 9_900 },
        { costSource: 'rule', attempts: 1, costMicros: 0, retries: 1, retryCostMicros: 0 },
        { costSource: 'none', attempts: 1, costMicros: 0, retries: 0, retryCostMicros: 0 },
        { costSource: null, attempts: 1, costMicros: 700, retries: 0, retryCostMicros: 0 },
      ],
    });
    expect(pricedRetryCostMicros(mix)).toBe(9_900);
  });

  it('reads only the latest attempts past its limit, and says after which start', async () => {
    const names = { agent: 'mix-cap', step: 'summarize' };
    const starts = ['01:00', '02:00', '03:00', '03:00', '04:00', '05:00'];
    for (const [index, time] of starts.entries())
      await insertAttempt(
        names,
        index % 2 === 0 ? 'reported' : 'priced',
        index + 1,
        100 * (index + 1),
        `2026-11-20T${time}:00Z`,
      );

    // Three fit: the fourth latest starts at 03:00, so the mix counts what started after it (04:00 and 05:00) and
    // leaves out both attempts of 03:00 alike.
    const capped = await getCostSourceMix(database.db, { ...names, ...day, rawFloor, maxAttempts: 3 });
    expect(capped.cutAfter).toEqual(new Date('2026-11-20T03:00:00Z'));
    expect(capped.shares).toEqual([
      { costSource: 'reported', attempts: 1, costMicros: 500, retries: 1, retryCostMicros: 500 },
      { costSource: 'priced', attempts: 1, costMicros: 600, retries: 1, retryCostMicros: 600 },
    ]);
    // Exactly as many as the limit: all of them, no cut.
    const whole = await getCostSourceMix(database.db, { ...names, ...day, rawFloor, maxAttempts: 6 });
    expect(whole.cutAfter).toBeNull();
    expect(whole.shares.reduce((sum, share) => sum + share.attempts, 0)).toBe(6);
    expect(whole.shares.reduce((sum, share) => sum + share.costMicros, 0)).toBe(2_100);
  });

  it('reads a window reaching past the raw retention from the oldest moment kept, and says so', async () => {
    const names = { agent: 'mix-old', step: 'publish' };
    await insertAttempt(names, 'reported', 1, 400, '2026-11-20T08:00:00Z');
    const long = { from: new Date('2026-09-01T00:00:00Z'), to: now };
    const mix = await getCostSourceMix(database.db, { ...names, ...long, rawFloor });
    expect(mix.clippedToRetention).toBe(true);
    expect(mix.from).toEqual(rawFloor);
    expect(mix.shares).toEqual([
      { costSource: 'reported', attempts: 1, costMicros: 400, retries: 0, retryCostMicros: 0 },
    ]);
    const empty = await getCostSourceMix(database.db, { ...names, from: day.from, to: day.to, rawFloor: now });
    expect(empty).toMatchObject({ clippedToRetention: true, shares: [] });
  });
});

describe("a step's latest failures", () => {
  it('carry their cost and where it came from', async () => {
    const ctx = { db: database.db, clock: () => now };
    await recordAttempt(
      ctx,
      aFailedAttempt({ agent: 'mix-fail', step: 'charge', costMicros: 1_234, ...at('2026-11-20T10:00:00Z') }),
    );
    const detail = await getStepDetail(database.db, { agent: 'mix-fail', step: 'charge', ...day });
    expect(detail.recentFailures).toMatchObject([{ costMicros: 1_234, costSource: 'reported' }]);
  });
});
