import { randomUUID } from 'node:crypto';
import { and, eq, like, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { evaluateAlerts } from '../../../packages/engine/src/alerts/evaluate';
import { QUIET_BEFORE_RESOLVE_MS } from '../../../packages/engine/src/alerts/flap-damping';
import {
  beginStep,
  DEFAULT_BREAKER_SETTINGS,
  finishStep,
  readBreakerSettings,
  saveBreakerSettings,
  type BeginStepInput,
  type CoreContext,
} from '../../../packages/engine/src/core';
import { connectDatabase } from '../../../packages/engine/src/db/client';
import { alertInstances, auditLog, circuitBreakers } from '../../../packages/engine/src/db/schema';
import { addKnownOwners } from '../../support/known-owners';
import { useTestDatabase } from '../../support/test-database';
import { aStepInput, attemptOf } from '../../support/step-input';
import { admin, aPerson, anAgent } from '../../support/actors';
import { handClock } from '../../support/hand-clock';
import { breakerEventsOf, useBreakerSettings } from '../../support/breakers';

const database = useTestDatabase({ maxConnections: 8 });
beforeAll(() => addKnownOwners(database.db, ['team:growth']));

const responder = aPerson('responder', 'rex@example.com');
const agentToken = anAgent('breaker-test');

const aBegin = (overrides: Partial<BeginStepInput> = {}): BeginStepInput =>
  aStepInput({ agent: 'billing', step: 'charge_card', content: { amount: 5 }, estimatedCostMicros: 100, ...overrides });

/** One attempt that begins and fails with a 503 (a new task each time, so allowances never run out). */
async function failedAttempt(ctx: CoreContext, overrides: Partial<BeginStepInput>) {
  const answer = await beginStep(ctx, aBegin(overrides));
  if (answer.decision !== 'run') return answer;
  await finishStep(ctx, {
    ...attemptOf(answer),
    outcome: 'failed',
    errorClass: 'transient',
    errorText: '503 Service Unavailable',
  });
  return answer;
}

describe('circuit breakers', () => {
  useBreakerSettings(database, 10);

  it('a storm of 503s opens the step breaker after the minimum volume; begins wait; a probe after the rest; its success closes it; one alert each way', async () => {
    const clock = handClock(new Date('2026-12-02T09:00:00.000Z'));
    const agent = `billing-${randomUUID().slice(0, 8)}`;
    const ctx: CoreContext = { db: database.db, actor: agentToken, clock: clock.now };
    const target = `step:${agent}/charge_card`;

    // Nine failures: below the minimum volume, the breaker stays closed and begins run.
    for (let index = 0; index < 9; index++) {
      expect((await failedAttempt(ctx, { agent })).decision).toBe('run');
      clock.advance(1_000);
    }
    expect(await database.db.select().from(circuitBreakers).where(eq(circuitBreakers.target, target))).toEqual([]);
    // The tenth: 10 attempts, all failing: it opens.
    expect((await failedAttempt(ctx, { agent })).decision).toBe('run');
    const [opened] = await database.db.select().from(circuitBreakers).where(eq(circuitBreakers.target, target));
    expect(opened).toMatchObject({ state: 'open', failureShare: 1, volume: 10 });

    const held = await beginStep(ctx, aBegin({ agent }));
    expect(held).toMatchObject({
      decision: 'wait',
      code: 'CIRCUIT_OPEN',
      retryAfterMs: 30_000,
      breaker: { target: `${agent}/charge_card`, state: 'open', failureShare: 1, volume: 10 },
    });
    // Its alert fires once, however often the rules are evaluated.
    await evaluateAlerts({ db: database.db }, { now: clock.now() });
    await evaluateAlerts({ db: database.db }, { now: clock.now() });

    // After the rest, one probe runs; the next begin waits for it.
    clock.advance(30_000);
    const probe = await beginStep(ctx, aBegin({ agent }));
    expect(probe.decision).toBe('run');
    expect(await beginStep(ctx, aBegin({ agent }))).toMatchObject({
      decision: 'wait',
      code: 'CIRCUIT_OPEN',
      breaker: { state: 'half_open' },
    });
    if (probe.decision !== 'run') throw new Error('expected a probe');
    await finishStep(ctx, { key: probe.key, fencingToken: probe.fencingToken, outcome: 'succeeded' });
    expect((await database.db.select().from(circuitBreakers).where(eq(circuitBreakers.target, target)))[0]?.state).toBe(
      'closed',
    );
    expect((await beginStep(ctx, aBegin({ agent }))).decision).toBe('run');
    // Closed, the storm that opened it is not counted again: one more failure does not reopen it.
    expect((await failedAttempt(ctx, { agent })).decision).toBe('run');
    expect((await database.db.select().from(circuitBreakers).where(eq(circuitBreakers.target, target)))[0]?.state).toBe(
      'closed',
    );
    expect(await breakerEventsOf(database, target)).toEqual(['opened', 'probing', 'closed']);

    // Closed, its alert is cleared at once and resolves once it has stayed clear for the quiet time (flap damping).
    await evaluateAlerts({ db: database.db }, { now: clock.now() });
    await evaluateAlerts({ db: database.db }, { now: new Date(clock.now().getTime() + QUIET_BEFORE_RESOLVE_MS) });
    const alerts = await database.db
      .select({ status: alertInstances.status })
      .from(alertInstances)
      .where(and(eq(alertInstances.kind, 'circuit_open'), like(alertInstances.identity, `%${agent}%`)));
    expect(alerts).toEqual([{ status: 'resolved' }]);
  });

  it("a failed probe reopens it for another rest; an agent's downstream breaker holds every step of that agent that names it", async () => {
    const clock = handClock(new Date('2026-12-02T10:00:00.000Z'));
    const downstream = `psp-${randomUUID().slice(0, 8)}`;
    const ctx: CoreContext = { db: database.db, actor: agentToken, clock: clock.now };
    // Failures spread over two of billing's steps, each below the volume alone: billing's breaker for the
    // downstream sees all ten.
    for (let index = 0; index < 10; index++) {
      await failedAttempt(ctx, { agent: 'billing', step: index % 2 ? 'call_psp' : 'refund_psp', downstream });
    }
    const downstreamTarget = `downstream:billing/${downstream}`;
    expect(
      (await database.db.select().from(circuitBreakers).where(eq(circuitBreakers.target, downstreamTarget)))[0],
    ).toMatchObject({ state: 'open', scope: 'downstream', agent: 'billing', step: null, downstream });
    expect(await beginStep(ctx, aBegin({ agent: 'billing', step: 'send', downstream }))).toMatchObject({
      code: 'CIRCUIT_OPEN',
      breaker: { target: downstream },
    });
    // A step that does not name it is not held, nor another agent's step that does (tenant-scope.test.ts).
    expect((await beginStep(ctx, aBegin({ agent: 'billing', step: 'send' }))).decision).toBe('run');
    expect((await beginStep(ctx, aBegin({ agent: 'payouts', step: 'send', downstream }))).decision).toBe('run');

    clock.advance(30_000);
    const probe = await failedAttempt(ctx, { agent: 'billing', step: 'send', downstream });
    expect(probe.decision).toBe('run');
    const [reopened] = await database.db
      .select()
      .from(circuitBreakers)
      .where(eq(circuitBreakers.target, downstreamTarget));
    expect(reopened).toMatchObject({ state: 'open' });
    expect(reopened!.probeAt).toEqual(new Date(clock.now().getTime() + 30_000));
    expect(await breakerEventsOf(database, downstreamTarget)).toEqual(['opened', 'probing', 'reopened']);
  });

  it('several instances see one breaker: concurrent failures open it once, concurrent probes take one', async () => {
    const clock = handClock(new Date('2026-12-02T11:00:00.000Z'));
    const agent = `billing-${randomUUID().slice(0, 8)}`;
    const target = `step:${agent}/charge_card`;
    const instances = Array.from({ length: 4 }, () => connectDatabase(database.url, { maxConnections: 4 }));
    try {
      await Promise.all(
        Array.from({ length: 16 }, (_, index) =>
          failedAttempt({ db: instances[index % 4]!.db, actor: agentToken, clock: clock.now }, { agent }),
        ),
      );
      expect(await breakerEventsOf(database, target)).toEqual(['opened']);
      clock.advance(30_000);
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, index) =>
          beginStep({ db: instances[index % 4]!.db, actor: agentToken, clock: clock.now }, aBegin({ agent })),
        ),
      );
      expect(answers.filter((answer) => answer.decision === 'run')).toHaveLength(1);
      expect(answers.filter((answer) => answer.decision === 'wait' && answer.code === 'CIRCUIT_OPEN')).toHaveLength(11);
    } finally {
      await Promise.all(instances.map((instance) => instance.close()));
    }
  });

  it('admins edit the settings (audited, before and after); others and bad values are refused, each field named', async () => {
    const before = await readBreakerSettings(database.db);
    await saveBreakerSettings(
      { db: database.db, actor: admin },
      {
        windowSeconds: 120,
        failurePercent: 40,
        minimumVolume: 10,
        coolDownSeconds: 30,
        probes: 1,
        reason: 'wider window',
      },
    );
    const [record] = await database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, 'breaker_settings.save'))
      .orderBy(sql`${auditLog.id} desc`)
      .limit(1);
    expect(record).toMatchObject({
      actorId: 'ada@example.com',
      reason: 'wider window',
      before: { windowSeconds: before.windowSeconds, failureShare: before.failureShare },
      after: { windowSeconds: 120, failureShare: 0.4, minimumVolume: 10, coolDownSeconds: 30, probes: 1 },
    });
    await expect(
      saveBreakerSettings(
        { db: database.db, actor: responder },
        { windowSeconds: 60, failurePercent: 50, minimumVolume: 10, coolDownSeconds: 30, probes: 1, reason: 'x' },
      ),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(
      saveBreakerSettings(
        { db: database.db, actor: admin },
        { windowSeconds: 5, failurePercent: 0, minimumVolume: 0, coolDownSeconds: 0.5, probes: 101, reason: '' },
      ),
    ).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      fieldErrors: {
        windowSeconds: ['must be at least 10'],
        failurePercent: ['must be above 0'],
        minimumVolume: ['must be at least 1'],
        coolDownSeconds: expect.arrayContaining(['must be whole seconds']),
        probes: ['must be at most 100'],
        reason: ['say why'],
      },
    });
    // Put back what the other tests use.
    await saveBreakerSettings(
      { db: database.db, actor: admin },
      { windowSeconds: 60, failurePercent: 50, minimumVolume: 10, coolDownSeconds: 30, probes: 1, reason: 'back' },
    );
    expect(DEFAULT_BREAKER_SETTINGS).toEqual({
      windowSeconds: 60,
      failureShare: 0.5,
      minimumVolume: 20,
      coolDownSeconds: 30,
      probes: 3,
    });
  });
});
