import type { RedriveOutcome } from '@holdfast/engine/core';

/** What a redrive will do to a dead letter's failed step, as the previews say it. */
export const redriveOutcomeLabels: Record<RedriveOutcome, string> = {
  runs_again: 'runs again',
  replays_result: 'replays its completed result (no new side effect)',
  conflicts_in_progress: 'conflicts with a run in progress (waits for it)',
  payload_mismatch: 'payload mismatch (will be held)',
  held_uncertain: 'outcome uncertain (will be held for a person)',
};
