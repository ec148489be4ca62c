import { randomUUID } from 'node:crypto';
import { eq, like } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  beginStep,
  finishStep,
  type Actor,
  type BeginStepInput,
  type CoreContext,
} from '../../../packages/engine/src/core';
import { breakerSlices, circuitBreakers } from '../../../packages/engine/src/db/schema';
import { addKnownOwners } from '../../support/known-owners';
import { useTestDatabase } from '../../support/test-database';
import { handClock } from '../../support/hand-clock';
import { breakerEventsOf, useBreakerSettings } from '../../support/breakers';
import { attemptOf } from '../../support/step-input';

/**
 * Downstream names are free text any agent may state at begin. A limited tenant's failures naming one open only
 * its own breaker for it, and its successes close only its own: another agent's begins naming the same downstream
 * are never held by them (docs/operations/security.md, Circuit breakers).
 */
const database = useTestDatabase();
beforeAll(() => addKnownOwners(database.db, ['team:research', 'team:payments']));

const research: Actor = {
  type: 'agent',
  id: 'token:7:research',
  scopes: ['ingest'],
  allowedAgents: ['research'],
  allowedQueues: ['research'],
};
const payments: Actor = { type: 'agent', id: 'token:8:payments', scopes: ['ingest'], allowedAgents: ['payments'] };

/**
 * A begin of a new task. Failures are spread over four steps (`index`), each below the minimum volume alone, so
 * only the downstream's breaker sees them all and the wait it answers is the downstream's.
 */
function aBegin(agent: 'research' | 'payments', downstream: string, index = 0): BeginStepInput {
  return {
    taskId: `${agent}-${randomUUID()}`,
    agent,
    queue: agent,
    owner: `team:${agent}`,
    step: `${agent === 'research' ? 'fetch_paper' : 'charge_card'}_${index % 4}`,
    content: { n: randomUUID() },
    downstream,
    estimatedCostMicros: 100,
  };
}

/** One attempt that begins and finishes as told (a new task each time, so allowances never run out). */
async function attempt(ctx: CoreContext, begin: BeginStepInput, outcome: 'succeeded' | 'failed') {
  const answer = await beginStep(ctx, begin);
  if (answer.decision !== 'run') return answer;
  await finishStep(
    ctx,
    outcome === 'failed'
      ? { ...attemptOf(answer), outcome, errorClass: 'transient', errorText: '503 Service Unavailable' }
      : { key: answer.key, fencingToken: answer.fencingToken, outcome },
  );
  return answer;
}

async function breakersOf(downstream: string) {
  return database.db
    .select({
      target: circuitBreakers.target,
      agent: circuitBreakers.agent,
      downstream: circuitBreakers.downstream,
      state: circuitBreakers.state,
    })
    .from(circuitBreakers)
    .where(eq(circuitBreakers.downstream, downstream))
    .orderBy(circuitBreakers.target);
}

describe('downstream breakers are each agent’s own', () => {
  useBreakerSettings(database, 20);

  it("a limited tenant's failures naming stripe hold its own begins only: payments' begins naming stripe still run, at every probe time too", async () => {
    const clock = handClock(new Date('2026-12-05T09:00:00.000Z'));
    const asResearch: CoreContext = { db: database.db, actor: research, clock: clock.now };
    const asPayments: CoreContext = { db: database.db, actor: payments, clock: clock.now };

    // Failed transient attempts naming stripe within a minute, by a token limited to research: the 20th opens its
    // breaker, and research's own begins wait from then on.
    const answers = [];
    for (let index = 0; index < 24; index++) {
      answers.push(await attempt(asResearch, aBegin('research', 'stripe', index), 'failed'));
      clock.advance(2_000);
    }
    expect(answers.map((answer) => (answer.decision === 'wait' ? answer.code : answer.decision))).toEqual([
      ...Array<string>(20).fill('run'),
      ...Array<string>(4).fill('CIRCUIT_OPEN'),
    ]);
    expect(await beginStep(asResearch, aBegin('research', 'stripe'))).toMatchObject({
      decision: 'wait',
      code: 'CIRCUIT_OPEN',
      breaker: { target: 'stripe', state: 'open', volume: 20 },
    });
    expect((await attempt(asPayments, aBegin('payments', 'stripe'), 'succeeded')).decision).toBe('run');

    // At research's probe time and after: payments' begins run, none of them taken as research's probe.
    for (let round = 0; round < 3; round++) {
      clock.advance(30_000);
      expect((await attempt(asPayments, aBegin('payments', 'stripe'), 'succeeded')).decision).toBe('run');
      expect((await beginStep(asPayments, aBegin('payments', 'stripe'))).decision).toBe('run');
    }

    // One breaker for stripe, research's, still open (payments' successes did not close it); none of payments'.
    expect(await breakersOf('stripe')).toEqual([
      { target: 'downstream:research/stripe', agent: 'research', downstream: 'stripe', state: 'open' },
    ]);
    expect(await breakerEventsOf(database, 'downstream:research/stripe')).toEqual(['opened']);
    const counted = await database.db
      .select({ target: breakerSlices.target, failures: breakerSlices.failures })
      .from(breakerSlices)
      .where(like(breakerSlices.target, 'downstream:%stripe'));
    expect(new Set(counted.map((slice) => slice.target))).toEqual(
      new Set(['downstream:research/stripe', 'downstream:payments/stripe']),
    );
    expect(
      counted.filter((slice) => slice.target === 'downstream:payments/stripe').every((slice) => slice.failures === 0),
    ).toBe(true);
  });

  it("payments' own failures open payments' breaker; research's successes naming the same downstream neither take its probe nor close it", async () => {
    const clock = handClock(new Date('2026-12-05T10:00:00.000Z'));
    const downstream = `stripe-${randomUUID().slice(0, 8)}`;
    const asResearch: CoreContext = { db: database.db, actor: research, clock: clock.now };
    const asPayments: CoreContext = { db: database.db, actor: payments, clock: clock.now };
    const target = `downstream:payments/${downstream}`;

    for (let index = 0; index < 20; index++) {
      expect((await attempt(asPayments, aBegin('payments', downstream, index), 'failed')).decision).toBe('run');
      clock.advance(1_000);
    }
    expect(await beginStep(asPayments, aBegin('payments', downstream))).toMatchObject({
      code: 'CIRCUIT_OPEN',
      breaker: { target: downstream, state: 'open' },
    });

    // After the rest: research's begins naming it run as ever, and their successes leave payments' breaker open.
    clock.advance(30_000);
    expect((await attempt(asResearch, aBegin('research', downstream), 'succeeded')).decision).toBe('run');
    expect((await breakersOf(downstream)).map((row) => row.state)).toEqual(['open']);

    // Payments' own probe makes it half-open; research's success meanwhile does not close it.
    const probe = await beginStep(asPayments, aBegin('payments', downstream));
    if (probe.decision !== 'run') throw new Error(`expected payments' probe, got ${JSON.stringify(probe)}`);
    expect((await attempt(asResearch, aBegin('research', downstream), 'succeeded')).decision).toBe('run');
    expect(await breakersOf(downstream)).toEqual([{ target, agent: 'payments', downstream, state: 'half_open' }]);
    expect(await beginStep(asPayments, aBegin('payments', downstream))).toMatchObject({
      code: 'CIRCUIT_OPEN',
      breaker: { state: 'half_open' },
    });

    // Only payments' own probe decides: it fails, and the breaker reopens for another rest.
    await finishStep(asPayments, {
      ...attemptOf(probe),
      outcome: 'failed',
      errorClass: 'timeout',
      errorText: 'timed out after 10 s',
    });
    expect((await breakersOf(downstream)).map((row) => row.state)).toEqual(['open']);
    expect(await breakerEventsOf(database, target)).toEqual(['opened', 'probing', 'reopened']);
    // Research never had a breaker for it.
    expect(await breakerEventsOf(database, `downstream:research/${downstream}`)).toEqual([]);
  });
});
