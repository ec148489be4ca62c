import type { BeginAnswer } from '@holdfast/protocol/steps/step-protocol';
import {
  countPausedBegin,
  pausedRetryAfterMs,
  rampMinute,
  takeRampGrant,
  type PauseFacts,
} from '../../pauses/pause-gate';
import type { GateBeforeClaim, GateInClaim } from './gate';

/** A pause covering the step (its agent, the step, or its downstream) turns the begin away until it ends. */
export const pausedGate: GateBeforeClaim = {
  name: 'pause',
  check({ facts }) {
    const gate = facts.pauseGate;
    if (gate.kind !== 'paused') return undefined;
    return {
      gate: 'pause',
      async answer({ ctx, request, now }) {
        await countPausedBegin(ctx.db, gate.pause.id, request.taskId, now);
        return pausedWait(gate.pause, pausedRetryAfterMs(gate.pause, now), false);
      },
    };
  },
};

/** A pause resuming slowly lets a share of begins through each minute: this one takes its grant or waits. */
export const rampGate: GateInClaim = {
  name: 'ramp',
  async take({ tx }, { facts, now }) {
    if (facts.pauseGate.kind !== 'ramping') return undefined;
    for (const ramp of facts.pauseGate.ramps) {
      if (await takeRampGrant(tx, ramp, now)) continue;
      return {
        gate: 'ramp',
        async answer({ ctx, request }) {
          await countPausedBegin(ctx.db, ramp.id, request.taskId, now);
          return pausedWait(ramp, rampMinute(ramp, now).nextMinuteInMs, true);
        },
      };
    }
    return undefined;
  },
};

/** The wait a pause (or a resume's ramp, its minute's share taken) answers, naming the pause. */
function pausedWait(pause: PauseFacts, retryAfterMs: number, ramping: boolean): BeginAnswer {
  const until = pause.endsAt ? ` until ${pause.endsAt}` : ' until someone resumes it';
  return {
    decision: 'wait',
    code: 'PAUSED',
    retryAfterMs,
    detail: ramping
      ? `${pause.target} is resuming slowly after a pause: this minute's begins are taken; begin again in the next minute`
      : `${pause.target} is paused by ${pause.pausedBy}${until}: ${pause.reason}`,
    pause: {
      id: pause.id,
      target: pause.target,
      reason: pause.reason,
      pausedBy: pause.pausedBy,
      until: pause.endsAt,
      ramping,
    },
  };
}
