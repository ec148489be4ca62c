import { randomUUID } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  beginStep,
  finishStep,
  PAUSED_POLL_MS,
  endRamp,
  resumePause,
  setPause,
  type Actor,
  type BeginStepInput,
  type CoreContext,
} from '../../../packages/engine/src/core';
import { connectDatabase } from '../../../packages/engine/src/db/client';
import { attempts, auditLog, deadLetters, pauses, taskBudgets } from '../../../packages/engine/src/db/schema';
import { addKnownOwners } from '../../support/known-owners';
import { handClock } from '../../support/hand-clock';
import { useTestDatabase } from '../../support/test-database';
import { aStepInput, attemptOf } from '../../support/step-input';
import { anAgent } from '../../support/actors';

const database = useTestDatabase({ maxConnections: 8 });
beforeAll(() => addKnownOwners(database.db, ['team:growth']));

type Person = Extract<Actor, { type: 'person' }>;
const responder: Person = { type: 'person', id: 'rex@example.com', role: 'responder', teams: [] };
const viewer: Person = { type: 'person', id: 'viv@example.com', role: 'viewer', teams: [] };
const agentToken = anAgent('pause-test');

const as = (actor: Actor, clock?: () => Date): CoreContext => ({ db: database.db, actor, clock });

/** A step with history, so that it is known and may be paused. */
async function knownStep(agent = `agent-${randomUUID().slice(0, 8)}`, step = 'send_email') {
  const answer = await beginStep(as(agentToken), aBegin({ agent, step }));
  if (answer.decision !== 'run') throw new Error(`expected run, got ${answer.decision}`);
  await finishStep(as(agentToken), { key: answer.key, fencingToken: answer.fencingToken, outcome: 'succeeded' });
  return { agent, step };
}

const aBegin = (overrides: Partial<BeginStepInput> = {}): BeginStepInput =>
  aStepInput({ step: 'send_email', estimatedCostMicros: 1_000, ...overrides });

async function auditOf(pauseId: number) {
  return database.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.targetType, 'pause'), eq(auditLog.targetId, String(pauseId))))
    .orderBy(auditLog.id);
}

describe('pausing a step', () => {
  it('turns away 16 concurrent agents begins (first tries and retries alike): none runs, none dead-letters', async () => {
    const { agent, step } = await knownStep();
    // Half the tasks have a failed first try, so their begins are retries.
    const retrying = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const begin = aBegin({ agent, step });
        const answer = await beginStep(as(agentToken), begin);
        if (answer.decision !== 'run') throw new Error('expected run');
        await finishStep(as(agentToken), {
          ...attemptOf(answer),
          outcome: 'failed',
          errorClass: 'transient',
          errorText: '503 from the mail API',
        });
        return begin;
      }),
    );
    const firstTries = Array.from({ length: 8 }, () => aBegin({ agent, step }));
    const attemptsBefore = await attemptCount(agent);

    const paused = await setPause(as(responder), {
      scope: 'step',
      agent,
      step,
      reason: 'mail API returns 503 for everyone',
    });
    expect(paused.paused).toBe(true);

    const pool = connectDatabase(database.url, { maxConnections: 16 });
    try {
      const answers = await Promise.all(
        [...retrying, ...firstTries].map((begin) => beginStep({ db: pool.db, actor: agentToken }, begin)),
      );
      expect(answers.map((answer) => answer.decision)).toEqual(Array(16).fill('wait'));
      for (const answer of answers) {
        if (answer.decision !== 'wait') continue;
        expect(answer.code).toBe('PAUSED');
        expect(answer.retryAfterMs).toBe(PAUSED_POLL_MS);
        expect(answer.pause).toMatchObject({
          id: paused.pause.id,
          target: `${agent}/${step}`,
          reason: 'mail API returns 503 for everyone',
          pausedBy: 'person:rex@example.com',
          until: null,
          ramping: false,
        });
      }
    } finally {
      await pool.close();
    }
    expect(await attemptCount(agent)).toBe(attemptsBefore);
    expect(await database.db.select().from(deadLetters).where(eq(deadLetters.agent, agent))).toEqual([]);
    const tasks = await database.db.select().from(taskBudgets).where(eq(taskBudgets.agent, agent));
    expect(tasks.every((task) => task.status === 'active' && task.reservedMicros === 0)).toBe(true);
    // The backlog it holds back: 16 waiting begins from 16 distinct tasks.
    const [backlog] = await database.db.execute<{ waits: number; tasks: number }>(sql`
      select sum(waits)::int as waits, count(distinct task_id)::int as tasks from pause_wait_minutes where pause_id = ${paused.pause.id}`);
    expect(backlog).toEqual({ waits: 16, tasks: 16 });

    // Resumed at once: the same begins run.
    await resumePause(as(responder), { pauseId: paused.pause.id, reason: 'mail API is back' });
    const after = await beginStep(as(agentToken), firstTries[0]!);
    expect(after.decision).toBe('run');
  });

  it('still replays a completed step while paused: its stored result touches nothing downstream', async () => {
    const { agent, step } = await knownStep();
    const begin = aBegin({ agent, step });
    const ran = await beginStep(as(agentToken), begin);
    if (ran.decision !== 'run') throw new Error('expected run');
    await finishStep(as(agentToken), { ...attemptOf(ran), outcome: 'succeeded', result: { messageId: 'm-1' } });
    await setPause(as(responder), { scope: 'agent', agent, reason: 'agent misbehaving' });
    expect(await beginStep(as(agentToken), begin)).toEqual({
      decision: 'replay',
      key: ran.key,
      result: { messageId: 'm-1' },
    });
    expect(await beginStep(as(agentToken), aBegin({ agent, step: 'another_step' }))).toMatchObject({
      decision: 'wait',
      code: 'PAUSED',
    });
  });

  it('holds every step that names a paused downstream, and only those', async () => {
    const clock = handClock();
    const downstream = `mail-${randomUUID().slice(0, 8)}`;
    const paused = await setPause(as(responder, clock.now), {
      scope: 'downstream',
      downstream,
      reason: 'provider incident',
      forMinutes: 10,
    });
    expect(paused.paused).toBe(true);
    const held = await beginStep(as(agentToken, clock.now), aBegin({ agent: 'billing', step: 'notify', downstream }));
    expect(held).toMatchObject({ decision: 'wait', code: 'PAUSED', retryAfterMs: PAUSED_POLL_MS });
    expect(await beginStep(as(agentToken, clock.now), aBegin({ agent: 'billing', step: 'notify' }))).toMatchObject({
      decision: 'run',
    });

    // With less than a poll left, the agent is told to come back when the pause ends; after its end, begins run.
    clock.advance(10 * 60_000 - 5_000);
    expect(
      await beginStep(as(agentToken, clock.now), aBegin({ agent: 'billing', step: 'notify', downstream })),
    ).toMatchObject({ decision: 'wait', code: 'PAUSED', retryAfterMs: 5_000 });
    clock.advance(5_000);
    expect(
      await beginStep(as(agentToken, clock.now), aBegin({ agent: 'billing', step: 'notify', downstream })),
    ).toMatchObject({ decision: 'run' });
    // A pause that ended is no longer resumable: a no-op with a message, no audit record.
    const again = await resumePause(as(responder, clock.now), { pauseId: paused.pause.id, reason: 'done' });
    expect(again).toEqual({
      resumed: false,
      message: expect.stringContaining(`${downstream} is not paused: its pause ended at`),
    });
    expect((await auditOf(paused.pause.id)).map((record) => record.action)).toEqual(['pause.set']);
  });

  it('resumes with a ramp: begins granted per minute follow it, then are unlimited', async () => {
    const clock = handClock(new Date('2026-12-02T10:00:00.000Z'));
    const { agent, step } = await knownStep();
    const paused = await setPause(as(responder, clock.now), { scope: 'step', agent, step, reason: 'storm' });
    clock.advance(60_000);
    const resumed = await resumePause(as(responder, clock.now), {
      pauseId: paused.pause.id,
      reason: 'downstream recovering',
      ramp: { startPerMinute: 2, overMinutes: 3 },
    });
    expect(resumed.resumed).toBe(true);

    const granted: number[] = [];
    for (let minute = 0; minute < 4; minute++) {
      const answers = [];
      for (let index = 0; index < 8; index++) {
        answers.push(await beginStep(as(agentToken, clock.now), aBegin({ agent, step })));
      }
      granted.push(answers.filter((answer) => answer.decision === 'run').length);
      const waited = answers.filter((answer) => answer.decision === 'wait');
      for (const answer of waited) {
        expect(answer).toMatchObject({ code: 'PAUSED', retryAfterMs: 60_000, pause: { ramping: true } });
      }
      clock.advance(60_000);
    }
    // Minute 0: 2, minute 1: 4, minute 2: 6 (of 8 asked), then the ramp is over.
    expect(granted).toEqual([2, 4, 6, 8]);
  });

  it('a ramp grant is given back when the begin is refused later (here: no budget left)', async () => {
    const clock = handClock(new Date('2026-12-02T11:00:00.000Z'));
    const { agent, step } = await knownStep();
    const paused = await setPause(as(responder, clock.now), { scope: 'step', agent, step, reason: 'storm' });
    await resumePause(as(responder, clock.now), {
      pauseId: paused.pause.id,
      reason: 'slowly',
      ramp: { startPerMinute: 1, overMinutes: 5 },
    });
    const refused = await beginStep(
      as(agentToken, clock.now),
      aBegin({ agent, step, spendCeilingMicros: 100, estimatedCostMicros: 1_000 }),
    );
    expect(refused).toMatchObject({ decision: 'stop', reason: 'budget_exhausted' });
    expect(await beginStep(as(agentToken, clock.now), aBegin({ agent, step }))).toMatchObject({ decision: 'run' });
  });
});

describe('pause and resume as actions', () => {
  it('audits a pause and a resume with who, why, before and after', async () => {
    const { agent, step } = await knownStep();
    const paused = await setPause(as(responder), { scope: 'step', agent, step, reason: 'storm', forMinutes: 30 });
    if (!paused.paused) throw new Error('expected a new pause');
    await resumePause(as(responder), {
      pauseId: paused.pause.id,
      reason: 'calm',
      ramp: { startPerMinute: 5, overMinutes: 10 },
    });
    const records = await auditOf(paused.pause.id);
    expect(records.map(({ action, actorId, reason }) => ({ action, actorId, reason }))).toEqual([
      { action: 'pause.set', actorId: 'rex@example.com', reason: 'storm' },
      { action: 'pause.resume', actorId: 'rex@example.com', reason: 'calm' },
    ]);
    // Each record says what the target's begins did before and after: running, paused, ramping.
    expect(records[0]).toMatchObject({
      before: { scope: 'step', target: `${agent}/${step}`, state: 'running' },
      after: { scope: 'step', target: `${agent}/${step}`, state: 'paused', endsAt: paused.pause.endsAt?.toISOString() },
    });
    expect(records[1]).toMatchObject({
      before: { target: `${agent}/${step}`, state: 'paused' },
      after: { state: 'ramping', ramp: { startPerMinute: 5, overMinutes: 10 } },
    });
  });

  it('two people pausing one step at once make one pause; the other is told whose', async () => {
    const { agent, step } = await knownStep();
    const pool = connectDatabase(database.url, { maxConnections: 8 });
    try {
      const outcomes = await Promise.all(
        Array.from({ length: 8 }, (_, index) =>
          setPause({ db: pool.db, actor: responder }, { scope: 'step', agent, step, reason: `responder ${index}` }),
        ),
      );
      expect(outcomes.filter((outcome) => outcome.paused)).toHaveLength(1);
      for (const outcome of outcomes.filter((outcome) => !outcome.paused)) {
        expect(outcome).toMatchObject({
          message: expect.stringContaining('is already paused by person:rex@example.com'),
        });
      }
    } finally {
      await pool.close();
    }
    const rows = await database.db
      .select()
      .from(pauses)
      .where(and(eq(pauses.agent, agent), eq(pauses.step, step)));
    expect(rows).toHaveLength(1);
    expect(await auditOf(rows[0]!.id)).toHaveLength(1);
  });

  it('resuming what is not paused is a no-op with a clear message and no audit record', async () => {
    const { agent, step } = await knownStep();
    const paused = await setPause(as(responder), { scope: 'step', agent, step, reason: 'storm' });
    expect((await resumePause(as(responder), { pauseId: paused.pause.id, reason: 'calm' })).resumed).toBe(true);
    const again = await resumePause(as(responder), { pauseId: paused.pause.id, reason: 'calm again' });
    expect(again).toEqual({
      resumed: false,
      message: expect.stringMatching(/is not paused: person:rex@example.com resumed it at /),
    });
    expect(await auditOf(paused.pause.id)).toHaveLength(2);
  });

  it('refuses an unknown step or agent (404), bad fields by name, and viewers and agents', async () => {
    await expect(
      setPause(as(responder), { scope: 'step', agent: 'nobody', step: 'nothing', reason: 'x' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(
      setPause(as(responder), { scope: 'agent', agent: 'nobody-at-all', reason: 'x' }),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(
      setPause(as(responder), { scope: 'step', agent: 'has space', step: '', reason: ' ', forMinutes: 0 }),
    ).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      fieldErrors: {
        agent: [expect.any(String)],
        step: expect.arrayContaining(['must not be blank']),
        reason: [expect.any(String)],
        forMinutes: ['must be at least 1'],
      },
    });
    await expect(
      resumePause(as(responder), { pauseId: 1, reason: 'x', ramp: { startPerMinute: 0, overMinutes: 2_000 } }),
    ).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      fieldErrors: { 'ramp.startPerMinute': ['must be at least 1'], 'ramp.overMinutes': ['must be at most 1,440'] },
    });
    await expect(resumePause(as(responder), { pauseId: 987_654, reason: 'x' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    const { agent, step } = await knownStep();
    await expect(setPause(as(viewer), { scope: 'step', agent, step, reason: 'x' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    await expect(setPause(as(agentToken), { scope: 'step', agent, step, reason: 'x' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
  });
});

async function attemptCount(agent: string): Promise<number> {
  const [row] = await database.db
    .select({ n: sql<number>`count(*)::int` })
    .from(attempts)
    .where(eq(attempts.agent, agent));
  return row?.n ?? 0;
}

describe('ending a ramp', () => {
  it('lets every begin run again now, audited; a pause not ramping is left alone; viewers may not', async () => {
    const { agent, step } = await knownStep();
    const clock = handClock();
    const paused = await setPause(as(responder, clock.now), { scope: 'step', agent, step, reason: 'storm' });
    await resumePause(as(responder, clock.now), {
      pauseId: paused.pause.id,
      reason: 'calm',
      ramp: { startPerMinute: 1, overMinutes: 30 },
    });
    clock.advance(60_000);
    await expect(endRamp(as(viewer, clock.now), { pauseId: paused.pause.id, reason: 'x' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    const ended = await endRamp(as(responder, clock.now), { pauseId: paused.pause.id, reason: 'holding well' });
    expect(ended).toMatchObject({ ended: true, pause: { rampEndsAt: clock.now() } });
    expect(await endRamp(as(responder, clock.now), { pauseId: paused.pause.id, reason: 'again' })).toEqual({
      ended: false,
      message: `${agent}/${step} is not ramping up now`,
    });
    const records = await auditOf(paused.pause.id);
    expect(records.map((record) => record.action)).toEqual(['pause.set', 'pause.resume', 'pause.ramp_end']);
    expect(records[2]).toMatchObject({
      reason: 'holding well',
      before: { state: 'ramping' },
      after: { state: 'running' },
    });
  });
});
