import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  deadLetterTask,
  recordAttempt,
  redriveDeadLetter,
  resumePause,
  saveStepPolicy,
  setPause,
} from '../../../packages/engine/src/core';
import { aDeadLetterInput } from '../../support/dead-letter-input';
import { breakerEvents } from '../../../packages/engine/src/db/schema';
import { getStepEvents } from '../../../lib/queries/step-events';
import { admin, anAgent, oncall } from '../../support/actors';
import { anAttempt } from '../../support/attempt-factory';
import { handClock } from '../../support/hand-clock';
import { useTestDatabase } from '../../support/test-database';

/**
 * What happened when, on a step's charts: its pauses and ramps, its breaker opening and closing, its policy, its
 * redrives; never another step's.
 */
const database = useTestDatabase();
const worker = anAgent('events-test');

async function knownStep(agent: string, step: string, at: Date) {
  await recordAttempt({ db: database.db, actor: worker }, anAttempt({ agent, step, startedAt: at, finishedAt: at }));
}

describe("a step's events", () => {
  it("lists its and its agent's pauses, resumes and ramps, its breaker and its policy, oldest first, in the window only", async () => {
    const agent = `evented-${randomUUID().slice(0, 8)}`;
    // Half an hour ago: the audit log keeps the database's own time, so the policy change is now.
    const start = new Date(Date.now() - 30 * 60_000);
    const clock = handClock(start);
    const as = (actor: typeof admin) => ({ db: database.db, actor, clock: clock.now });
    await knownStep(agent, 'send', start);
    await knownStep(agent, 'other', start);

    clock.advance(60_000);
    const stepPause = await setPause(as(oncall), { scope: 'step', agent, step: 'send', reason: 'mail API down' });
    clock.advance(60_000);
    await resumePause(as(oncall), {
      pauseId: stepPause.pause.id,
      reason: 'back',
      ramp: { startPerMinute: 5, overMinutes: 10 },
    });
    clock.advance(60_000);
    const agentPause = await setPause(as(oncall), { scope: 'agent', agent, reason: 'all of it' });
    clock.advance(60_000);
    await resumePause(as(oncall), { pauseId: agentPause.pause.id, reason: 'fine' });
    // Another step's pause is not this step's event.
    await setPause(as(oncall), { scope: 'step', agent, step: 'other', reason: 'not this one' });
    clock.advance(60_000);
    await saveStepPolicy(as(admin), { agent, step: 'send', maxAttempts: 2, reason: 'fewer tries' });
    await database.db.insert(breakerEvents).values([
      { target: `step:${agent}/send`, event: 'opened', at: new Date(start.getTime() + 6 * 60_000) },
      { target: `step:${agent}/other`, event: 'opened', at: new Date(start.getTime() + 6 * 60_000) },
      { target: `step:${agent}/send`, event: 'closed', at: new Date(start.getTime() + 8 * 60_000) },
    ]);
    // Two of the step's dead letters redriven now (a redrive keeps the database's time), one of another step.
    for (const step of ['send', 'send', 'other']) {
      const { deadLetter } = await database.db.transaction((tx) =>
        deadLetterTask(tx, worker, aDeadLetterInput({ agent, step, queue: agent, owner: 'team:events' })),
      );
      await redriveDeadLetter({ db: database.db, actor: oncall }, { deadLetterId: deadLetter.id, reason: 'fixed' });
    }

    const events = await getStepEvents(
      database.db,
      { agent, step: 'send' },
      { from: start, to: new Date(start.getTime() + 3_600_000) },
    );
    const listed = events.map((event) => [event.kind, event.detail]);
    expect(listed.slice(0, 7)).toEqual([
      ['paused', `person:${oncall.id}`],
      ['ramping', `person:${oncall.id}`],
      ['paused', `person:${oncall.id}`],
      ['resumed', `person:${oncall.id}`],
      ['breaker_opened', null],
      ['breaker_closed', null],
      // The ramp that began at minute 2 ran ten minutes.
      ['ramp_ended', null],
    ]);
    // Both now, by the database's clock: the redrives are marked at their minute, so either may come first.
    expect(listed.slice(7)).toHaveLength(2);
    expect(listed.slice(7)).toEqual(
      expect.arrayContaining([
        ['policy_changed', admin.id],
        ['redriven', '2 redriven'],
      ]),
    );
    // A window that ends before the first pause holds none of them.
    expect(
      await getStepEvents(
        database.db,
        { agent, step: 'send' },
        { from: start, to: new Date(start.getTime() + 30_000) },
      ),
    ).toEqual([]);
  });
});
