import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  acquireSlot,
  finishRun,
  forceReleaseSlot,
  GuardFailedError,
  heartbeatRun,
  heartbeatSlot,
  NotHolderError,
  overrideReleaseSlot,
  readReleaseGuards,
  recordEvidence,
  releaseSlot,
  setKillSwitch,
  StaleTokenError,
  startRun,
  type Actor,
} from '../../../packages/engine/src/core';
import { sweepStaleSlots } from '../../../packages/engine/src/core/slots/force-release';
import { connectDatabase } from '../../../packages/engine/src/db/client';
import { auditLog, slotLocks } from '../../../packages/engine/src/db/schema';
import { useTestDatabase } from '../../support/test-database';
import { oncall } from '../../support/actors';

const database = useTestDatabase();
const ctx = () => ({ db: database.db });
const freshSlot = () => `publish:site-${randomUUID().slice(0, 8)}:2026-11-30:morning`;

/** Moves a lock's expiry into the past instead of waiting for it. */
async function expire(slot: string) {
  await database.sql`update slot_locks set expires_at = now() - interval '1 second' where slot = ${slot}`;
}

async function auditFor(slot: string) {
  return database.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.targetType, 'slot'), eq(auditLog.targetId, slot)));
}

/** A lock whose run is over and whose TTL has passed: every guard holds unless a test breaks one. */
async function staleLock(options: { finishRun?: boolean; evidence?: boolean } = {}) {
  const slot = freshSlot();
  const runKey = `run-${randomUUID()}`;
  await startRun(ctx(), { runKey, taskId: `task-${randomUUID()}`, agent: 'publishing' });
  const lock = await acquireSlot(ctx(), { slot, runKey, ttlMs: 60_000 });
  if (lock.outcome !== 'acquired') throw new Error('expected to acquire');
  if (options.evidence) await recordEvidence(ctx(), { slot, runKey, fencingToken: lock.fencingToken, ref: 'page-42' });
  if (options.finishRun !== false) await finishRun(ctx(), { runKey, status: 'failed' });
  await expire(slot);
  return { slot, runKey, fencingToken: lock.fencingToken };
}

describe('acquireSlot', () => {
  it('gives a slot to exactly one of 32 concurrent runs, round after round', async () => {
    const pool = connectDatabase(database.url, { maxConnections: 32 });
    try {
      await Promise.all(Array.from({ length: 32 }, () => pool.sql`select 1`));
      for (let round = 0; round < 25; round++) {
        const slot = freshSlot();
        const runKeys = Array.from({ length: 32 }, (_, index) => `run-${round}-${index}`);
        const outcomes = await Promise.all(
          runKeys.map((runKey) => acquireSlot({ db: pool.db }, { slot, runKey, ttlMs: 60_000 })),
        );
        const winners = outcomes.filter((outcome) => outcome.outcome === 'acquired');
        expect(winners).toHaveLength(1);
        const winner = runKeys[outcomes.indexOf(winners[0]!)];
        for (const outcome of outcomes) {
          if (outcome.outcome === 'conflict') expect(outcome.holderRunKey).toBe(winner);
        }
      }
    } finally {
      await pool.close();
    }
  });

  it("lists only the slot's own evidence, never another slot's", async () => {
    const other = freshSlot();
    const otherLock = await acquireSlot(ctx(), { slot: other, runKey: 'run-other', ttlMs: 60_000 });
    if (otherLock.outcome !== 'acquired') throw new Error('expected to acquire');
    await recordEvidence(ctx(), {
      slot: other,
      runKey: 'run-other',
      fencingToken: otherLock.fencingToken,
      ref: 'someone-elses-page',
    });
    expect(await acquireSlot(ctx(), { slot: freshSlot(), runKey: 'run-mine', ttlMs: 60_000 })).toMatchObject({
      outcome: 'acquired',
      evidence: [],
    });
  });

  it('lets the same run ask again without a new token, and lists evidence to a successor', async () => {
    const slot = freshSlot();
    const first = await acquireSlot(ctx(), { slot, runKey: 'run-a', ttlMs: 60_000 });
    expect(first).toMatchObject({ outcome: 'acquired', fencingToken: 1, evidence: [] });
    expect(await acquireSlot(ctx(), { slot, runKey: 'run-a', ttlMs: 60_000 })).toMatchObject({
      outcome: 'acquired',
      fencingToken: 1,
    });
    await recordEvidence(ctx(), { slot, runKey: 'run-a', fencingToken: 1, ref: 'post-7' });
    await expire(slot);
    expect(await acquireSlot(ctx(), { slot, runKey: 'run-b', ttlMs: 60_000 })).toMatchObject({
      outcome: 'acquired',
      fencingToken: 2,
      evidence: ['post-7'],
    });
  });

  it('takes over an expired lock with a higher token; the zombie can neither release nor write', async () => {
    const slot = freshSlot();
    await acquireSlot(ctx(), { slot, runKey: 'zombie', ttlMs: 60_000 });
    await expire(slot);
    const successor = await acquireSlot(ctx(), { slot, runKey: 'successor', ttlMs: 60_000 });
    expect(successor).toMatchObject({ outcome: 'acquired', fencingToken: 2 });

    await expect(releaseSlot(ctx(), { slot, runKey: 'zombie' })).rejects.toBeInstanceOf(NotHolderError);
    await expect(
      recordEvidence(ctx(), { slot, runKey: 'zombie', fencingToken: 1, ref: 'late' }),
    ).rejects.toBeInstanceOf(StaleTokenError);
    expect(await acquireSlot(ctx(), { slot, runKey: 'third', ttlMs: 60_000 })).toMatchObject({
      outcome: 'conflict',
      holderRunKey: 'successor',
    });

    await releaseSlot(ctx(), { slot, runKey: 'successor' });
    await releaseSlot(ctx(), { slot, runKey: 'successor' }); // twice is harmless
    expect(await acquireSlot(ctx(), { slot, runKey: 'third', ttlMs: 60_000 })).toMatchObject({
      outcome: 'acquired',
      fencingToken: 3,
    });
  });
});

describe('heartbeats and runs', () => {
  it('extends the holder by heartbeat and refuses anyone else', async () => {
    const slot = freshSlot();
    const lock = await acquireSlot(ctx(), { slot, runKey: 'run-h', ttlMs: 1_000 });
    if (lock.outcome !== 'acquired') throw new Error('expected to acquire');
    const extended = await heartbeatSlot(ctx(), {
      slot,
      runKey: 'run-h',
      fencingToken: lock.fencingToken,
      ttlMs: 600_000,
    });
    expect(extended.getTime()).toBeGreaterThan(lock.expiresAt.getTime() + 500_000);
    await expect(
      heartbeatSlot(ctx(), { slot, runKey: 'intruder', fencingToken: lock.fencingToken, ttlMs: 1_000 }),
    ).rejects.toBeInstanceOf(NotHolderError);
  });

  it('starts a run once per run key and refuses the key for another task', async () => {
    const runKey = `run-${randomUUID()}`;
    const first = await startRun(ctx(), { runKey, taskId: 'task-1', agent: 'publishing' });
    expect(await startRun(ctx(), { runKey, taskId: 'task-1', agent: 'publishing' })).toEqual(first);
    await expect(startRun(ctx(), { runKey, taskId: 'task-2', agent: 'publishing' })).rejects.toMatchObject({
      code: 'STATE_CONFLICT',
    });
    await database.sql`update runs set heartbeat_at = now() - interval '1 hour' where run_key = ${runKey}`;
    await heartbeatRun(ctx(), { runKey });
    const [alive] = await database.sql<
      { fresh: boolean }[]
    >`select heartbeat_at > now() - interval '1 minute' as fresh from runs where run_key = ${runKey}`;
    expect(alive?.fresh).toBe(true);

    await finishRun(ctx(), { runKey, status: 'finished' });
    await finishRun(ctx(), { runKey, status: 'finished' }); // idempotent
    await expect(heartbeatRun(ctx(), { runKey })).rejects.toMatchObject({ code: 'NOT_FOUND' }); // a finished run is not alive
  });
});

describe('forceReleaseSlot', () => {
  it('releases when every guard holds, once, with an audit record', async () => {
    const { slot, fencingToken } = await staleLock();
    const first = await forceReleaseSlot(
      { ...ctx(), actor: oncall },
      { slot, fencingToken, reason: 'run died at 03:10' },
    );
    const second = await forceReleaseSlot({ ...ctx(), actor: oncall }, { slot, fencingToken, reason: 'double click' });

    expect(first).toMatchObject({ released: true, lock: { releasedBy: 'person:oncall@example.com' } });
    expect(second).toMatchObject({ released: false, alreadyReleased: true });
    const records = await auditFor(slot);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      action: 'slot.force_release',
      actorType: 'person',
      actorId: 'oncall@example.com',
      reason: 'run died at 03:10',
    });
  });

  it.each([
    [
      'past_ttl',
      async () => {
        const lock = await staleLock();
        await database.sql`update slot_locks set expires_at = now() + interval '1 hour' where slot = ${lock.slot}`;
        return lock;
      },
    ],
    ['holder_run_finished', () => staleLock({ finishRun: false })],
    ['no_evidence', () => staleLock({ evidence: true })],
  ] as const)('refuses when %s does not hold, and audits nothing', async (guard, arrange) => {
    const { slot, fencingToken } = await arrange();
    const attempt = forceReleaseSlot({ ...ctx(), actor: oncall }, { slot, fencingToken, reason: 'looks stuck' });
    await expect(attempt).rejects.toBeInstanceOf(GuardFailedError);
    await expect(attempt).rejects.toMatchObject({ code: 'GUARD_FAILED', failedGuards: [guard] });
    expect(await auditFor(slot)).toEqual([]);
  });

  it('takes effect once for two responders releasing at the same moment, and both see the lock released', async () => {
    const { slot, fencingToken } = await staleLock();
    const other: Actor = { type: 'person', id: 'second@example.com', role: 'responder', teams: [] };
    const results = await Promise.all([
      forceReleaseSlot({ ...ctx(), actor: oncall }, { slot, fencingToken, reason: 'first responder' }),
      forceReleaseSlot({ ...ctx(), actor: other }, { slot, fencingToken, reason: 'second responder' }),
    ]);
    expect(results.filter((result) => result.released)).toHaveLength(1);
    expect(results[0]!.lock.releasedAt).toEqual(results[1]!.lock.releasedAt);
    expect(results[0]!.lock.releasedBy).toEqual(results[1]!.lock.releasedBy);
    expect(await auditFor(slot)).toHaveLength(1);
  });

  it('shows the facts behind each guard, and which fail, the way the release judges them', async () => {
    const passing = await staleLock();
    const withEvidence = await staleLock({ evidence: true, finishRun: false });
    const facts = await readReleaseGuards(database.db, { slots: [passing.slot, withEvidence.slot] });
    expect(facts.find((fact) => fact.slot === passing.slot)).toMatchObject({
      pastTtl: true,
      runStatus: 'failed',
      runDone: true,
      evidenceCount: 0,
      failedGuards: [],
    });
    expect(facts.find((fact) => fact.slot === withEvidence.slot)).toMatchObject({
      runStatus: 'running',
      runDone: false,
      evidenceCount: 1,
      latestEvidence: 'page-42',
      failedGuards: ['holder_run_finished', 'no_evidence'],
    });
  });

  it('trusts a run that stopped heartbeating past the grace period as finished', async () => {
    const { slot, fencingToken, runKey } = await staleLock({ finishRun: false });
    await database.sql`update runs set heartbeat_at = now() - interval '1 hour' where run_key = ${runKey}`;
    const released = await forceReleaseSlot(
      { ...ctx(), actor: oncall },
      { slot, fencingToken, reason: 'worker gone', heartbeatGraceMs: 60_000 },
    );
    expect(released.released).toBe(true);
  });

  it('refuses while the kill switch is engaged, for people and the sweeper alike', async () => {
    const admin: Actor = { type: 'person', id: 'admin@example.com', role: 'admin', teams: [] };
    const { slot, fencingToken } = await staleLock();
    await setKillSwitch(
      { ...ctx(), actor: admin },
      { name: 'stale_lock_release', engaged: true, reason: 'incident 42' },
    );
    try {
      await expect(
        forceReleaseSlot({ ...ctx(), actor: oncall }, { slot, fencingToken, reason: 'x' }),
      ).rejects.toMatchObject({
        failedGuards: ['kill_switch_off'],
      });
      const sweep = await sweepStaleSlots(ctx());
      expect(sweep.refused).toContainEqual({ slot, failedGuards: ['kill_switch_off'] });
      expect(sweep.released).not.toContain(slot);
    } finally {
      await setKillSwitch(
        { ...ctx(), actor: admin },
        { name: 'stale_lock_release', engaged: false, reason: 'incident over' },
      );
    }
  });

  it('refuses a stale click after the lock changed hands, and a release without a reason', async () => {
    const { slot, fencingToken } = await staleLock();
    await acquireSlot(ctx(), { slot, runKey: 'new-owner', ttlMs: 60_000 });
    await expect(
      forceReleaseSlot({ ...ctx(), actor: oncall }, { slot, fencingToken, reason: 'x' }),
    ).rejects.toMatchObject({ code: 'STATE_CONFLICT' });
    await expect(
      forceReleaseSlot({ ...ctx(), actor: oncall }, { slot, fencingToken: fencingToken + 1, reason: '  ' }),
    ).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  });

  it('lets the sweeper release what passes the guard, audit-logged as the system', async () => {
    const releasable = await staleLock();
    const withEvidence = await staleLock({ evidence: true });
    const sweep = await sweepStaleSlots(ctx());
    expect(sweep.released).toContain(releasable.slot);
    expect(sweep.refused).toContainEqual({ slot: withEvidence.slot, failedGuards: ['no_evidence'] });
    expect(await auditFor(releasable.slot)).toMatchObject([
      { action: 'slot.auto_release', actorType: 'system', actorId: 'sweeper' },
    ]);
    expect(await auditFor(withEvidence.slot)).toEqual([]);
  });
});

describe("the sweeper's refusals", () => {
  async function refusal(slot: string) {
    const [lock] = await database.db
      .select({
        since: slotLocks.releaseRefusedSince,
        guards: slotLocks.releaseRefusedGuards,
        escalatedAt: slotLocks.escalatedAt,
      })
      .from(slotLocks)
      .where(eq(slotLocks.slot, slot));
    return lock;
  }

  it('notes since when a lock is refused and the guards that fail, and a release clears the note', async () => {
    const { slot, runKey } = await staleLock({ finishRun: false });
    const first = new Date('2031-05-05T10:00:00Z');
    await sweepStaleSlots(ctx(), { now: first });
    expect(await refusal(slot)).toEqual({ since: first, guards: ['holder_run_finished'], escalatedAt: null });

    await sweepStaleSlots(ctx(), { now: new Date('2031-05-05T10:05:00Z') });
    expect((await refusal(slot))?.since).toEqual(first); // since the first refusal, not the latest

    await finishRun(ctx(), { runKey, status: 'failed' });
    expect((await sweepStaleSlots(ctx(), { now: new Date('2031-05-05T10:10:00Z') })).released).toContain(slot);
    expect(await refusal(slot)).toEqual({ since: null, guards: null, escalatedAt: null });
  });

  it("starts a new holder's lock with no refusal and no escalation, and a heartbeat clears the holder's refusal", async () => {
    const { slot, runKey, fencingToken } = await staleLock({ evidence: true, finishRun: false });
    await sweepStaleSlots(ctx());
    await database.sql`update slot_locks set escalated_at = now() where slot = ${slot}`;
    await heartbeatSlot(ctx(), { slot, runKey, fencingToken, ttlMs: 60_000 });
    expect(await refusal(slot)).toMatchObject({ since: null, guards: null, escalatedAt: expect.any(Date) }); // still this holder's

    await sweepStaleSlots(ctx()); // not stale any more: nothing to refuse
    expect((await refusal(slot))?.since).toBeNull();
    await expire(slot);
    await sweepStaleSlots(ctx());
    expect((await refusal(slot))?.guards).toEqual(['holder_run_finished', 'no_evidence']);

    expect(await acquireSlot(ctx(), { slot, runKey: `run-${randomUUID()}`, ttlMs: 60_000 })).toMatchObject({
      outcome: 'acquired',
    });
    expect(await refusal(slot)).toEqual({ since: null, guards: null, escalatedAt: null });
  });
});

describe('overrideReleaseSlot', () => {
  const admin: Actor = { type: 'person', id: 'ada@example.com', role: 'admin', teams: [] };

  it('lets an admin release a stale lock its guards refuse, auditing what was overridden; once', async () => {
    const { slot, fencingToken } = await staleLock({ finishRun: false, evidence: true });
    // A responder may not: it takes a person's judgement that the holder is gone, over evidence.
    await expect(
      overrideReleaseSlot({ ...ctx(), actor: oncall }, { slot, fencingToken, reason: 'gone' }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(
      overrideReleaseSlot({ ...ctx(), actor: admin }, { slot, fencingToken: fencingToken + 1, reason: 'gone' }),
    ).rejects.toMatchObject({ code: 'STATE_CONFLICT' });
    await expect(
      overrideReleaseSlot({ ...ctx(), actor: admin }, { slot, fencingToken, reason: ' ' }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT', fieldErrors: { reason: ['say why the guards are overridden'] } });

    const first = await overrideReleaseSlot(
      { ...ctx(), actor: admin },
      { slot, fencingToken, reason: 'host decommissioned; page-42 checked' },
    );
    const again = await overrideReleaseSlot({ ...ctx(), actor: admin }, { slot, fencingToken, reason: 'again' });
    expect(first).toMatchObject({ released: true, lock: { releasedBy: 'person:ada@example.com' } });
    expect(again).toMatchObject({ released: false, alreadyReleased: true });
    const records = await auditFor(slot);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      action: 'slot.override_release',
      reason: 'host decommissioned; page-42 checked',
      before: {
        overriddenGuards: ['holder_run_finished', 'no_evidence'],
        evidenceCount: 1,
        latestEvidence: 'page-42',
      },
    });
  });

  it('refuses a lock within its time to live: it is not stuck', async () => {
    const { slot, fencingToken } = await staleLock();
    await database.sql`update slot_locks set expires_at = now() + interval '1 hour' where slot = ${slot}`;
    await expect(
      overrideReleaseSlot({ ...ctx(), actor: admin }, { slot, fencingToken, reason: 'impatient' }),
    ).rejects.toMatchObject({ code: 'GUARD_FAILED', failedGuards: ['past_ttl'] });
    expect(await auditFor(slot)).toEqual([]);
  });
});
