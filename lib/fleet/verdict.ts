import type { RunStepOutcome } from '@holdfast/protocol/steps/step-outcome';
import type { FleetTally } from './tally';

/** What the worker does with a task after a step: go on, try the whole job later, or stop (held or dead-lettered). */
export type StepVerdict = 'next' | 'later' | 'stop';

/** What the worker does after a step, in-process or over HTTP alike; parked work is counted in the tally. */
export function verdictOf(outcome: RunStepOutcome<unknown>, tally: FleetTally): StepVerdict {
  switch (outcome.status) {
    case 'completed':
      return 'next';
    case 'replayed':
      tally.replays += 1;
      return 'next';
    case 'retry':
    case 'wait':
      return 'later';
    case 'stop':
      if (outcome.holdId !== undefined) tally.holdIds.add(outcome.holdId);
      if (outcome.deadLetterId !== undefined) tally.deadLetterIds.add(outcome.deadLetterId);
      return 'stop';
  }
}
