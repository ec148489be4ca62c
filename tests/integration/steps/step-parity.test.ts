import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { runStep as runStepOverHttp } from '@holdfast/client';
import {
  beginStep,
  runStep,
  StepError,
  type BeginStepInput,
  type RunStepOutcome,
} from '../../../packages/engine/src/core';
import { holds, idempotencyKeys } from '../../../packages/engine/src/db/schema';
import { addKnownOwners } from '../../support/known-owners';
import { useApi } from '../../support/api-harness';

const api = useApi();
// The owners its agents name are known (an unknown one would be given the default owner).
beforeAll(() => addKnownOwners(api.database.db, ['team:growth']));

/** What one attempt of the scripted step does. */
type Act = 'ok' | 'transient' | 'rate_limited' | 'invalid_output' | 'permanent' | 'unknown';

function body(act: Act) {
  return async () => {
    switch (act) {
      case 'ok':
        return { result: { summary: 'done' }, costMicros: 500 };
      case 'rate_limited':
        throw new StepError('rate_limited', '429 Too Many Requests', { retryAfterMs: 5_000, costMicros: 10 });
      case 'unknown':
        throw new TypeError('cannot read properties of undefined');
      default:
        throw new StepError(act, `${act} failure`, { costMicros: 100 });
    }
  };
}

interface Path {
  name: string;
  run: (input: BeginStepInput, act: Act) => Promise<RunStepOutcome<unknown>>;
  begin: (input: BeginStepInput) => Promise<unknown>;
}

const inProcess: Path = {
  name: 'in-process',
  run: (input, act) => runStep({ db: api.database.db }, input, body(act)),
  begin: (input) => beginStep({ db: api.database.db }, input),
};
const overHttp: Path = {
  name: 'HTTP',
  run: (input, act) => runStepOverHttp(api.client(), input, body(act)),
  begin: (input) => api.client().beginStep(input),
};

/** An outcome without what differs by nature between two runs (ids, jittered delays, texts). */
function comparable(outcome: RunStepOutcome<unknown>) {
  switch (outcome.status) {
    case 'retry':
      return { status: outcome.status, attemptNumber: outcome.attemptNumber, errorClass: outcome.errorClass };
    case 'stop':
      return {
        status: outcome.status,
        code: outcome.code,
        reason: outcome.reason,
        hasHold: outcome.holdId !== undefined,
        hasDeadLetter: outcome.deadLetterId !== undefined,
      };
    default:
      return outcome;
  }
}

const script = (name: string, acts: Act[]) => ({ name, acts });
const scripts = [
  script('transient twice, then success', ['transient', 'transient', 'ok']),
  script('rate limited with Retry-After, then success', ['rate_limited', 'ok']),
  script('invalid output once, then success (the corrective retry)', ['invalid_output', 'ok']),
  script('invalid output twice (no second corrective retry)', ['invalid_output', 'invalid_output']),
  script('permanent', ['permanent']),
  script('unknown', ['unknown']),
  script('transient past the allowance of 2', ['transient', 'transient', 'transient']),
];

async function play(path: Path, acts: Act[]) {
  const input: BeginStepInput = {
    taskId: `parity-${randomUUID()}`,
    agent: 'research',
    owner: 'team:platform',
    step: 'summarize',
    content: { doc: 1 },
    retryAllowance: 2,
  };
  const outcomes: RunStepOutcome<unknown>[] = [];
  for (const act of acts) outcomes.push(await path.run(input, act));
  outcomes.push(await path.run(input, 'ok')); // one more delivery: replay, or the stop again
  return outcomes;
}

describe('the in-process runStep and the HTTP step protocol give the same outcomes', () => {
  it.each(scripts)('$name', async ({ acts }) => {
    const local = await play(inProcess, acts);
    const remote = await play(overHttp, acts);
    expect(remote.map(comparable)).toEqual(local.map(comparable));
    // Retry-After is a floor on the delay, on both paths.
    for (const [index, act] of acts.entries()) {
      if (act !== 'rate_limited') continue;
      for (const outcomes of [local, remote])
        expect(outcomes[index]).toMatchObject({ status: 'retry', delayMs: expect.any(Number) });
      for (const outcomes of [local, remote])
        expect((outcomes[index] as { delayMs: number }).delayMs).toBeGreaterThanOrEqual(5_000);
    }
  });

  it.each([inProcess, overHttp])(
    '$name: a crash after begin on a non-idempotent downstream is held as uncertain, never repeated',
    async (path) => {
      const input: BeginStepInput = {
        taskId: `crash-${randomUUID()}`,
        agent: 'outreach',
        owner: 'team:growth',
        step: 'send_email',
        content: { to: 'a@b.example' },
        downstreamIdempotent: false,
        inProgressTtlMs: 60_000,
      };
      await path.begin(input); // the worker acts, then dies before finishing
      const key = `${input.taskId}/send_email`;
      await api.database.db
        .update(idempotencyKeys)
        .set({ lockedUntil: sql`now() - interval '1 second'` })
        .where(eq(idempotencyKeys.key, key));
      let sentAgain = false;
      const redelivered = await path.run(input, 'ok').then((outcome) => {
        sentAgain = outcome.status === 'completed';
        return outcome;
      });
      expect(sentAgain).toBe(false);
      expect(redelivered).toMatchObject({
        status: 'stop',
        code: 'UNCERTAIN_OUTCOME',
        reason: 'uncertain_outcome',
        holdId: expect.any(Number),
      });
      const [hold] = await api.database.db.select().from(holds).where(eq(holds.itemId, key));
      expect(hold).toMatchObject({ reason: 'uncertain_outcome', owner: 'team:growth', status: 'open' });
    },
  );
});
