import type { Database } from '@holdfast/engine/db';
import {
  DEAD_LETTERS,
  makeDeadLetters,
  progress,
  redriveOutcome,
  retryWhileUnavailable,
  runRedrive,
  startRedrive,
  sweepAt,
  waitForProgress,
} from '../faults/redrive-and-sweep';

const MINUTE_MS = 60_000;

/**
 * A bulk redrive whose runner loses its primary mid-run: started before a switch, and carried on across it, by the
 * runner itself (a query that found no primary waits for a connection to the new one) or, when a transaction of its
 * was cut short, by the sweep on the new primary (the fault suite's redrive, across a failover instead of a
 * restart). `begin` returns once the runner has redriven some dead letters; call `finish` once the new primary
 * serves.
 */
export async function beginRedriveAcrossSwitch(db: Database, log: (line: string) => void) {
  const queue = `failover-redrive-${Date.now()}`;
  await makeDeadLetters(db, queue);
  // 50 a second (6 s for the run): the switch comes after a few polls, later on a loaded machine.
  const id = await startRedrive(db, queue, 50);
  const runner = runRedrive(db, id);
  await waitForProgress(db, id, 60);
  const atSwitch = (await progress(db, id)).processed;
  log(`bulk redrive ${id}: ${atSwitch} of ${DEAD_LETTERS} processed as the switch is caused`);

  return {
    async finish(switchName: string): Promise<[string, boolean, unknown][]> {
      const runnerError = await runner;
      const afterSwitch = (await progress(db, id)).processed;
      const runnerSaw = runnerError === undefined ? 'carried on across the switch' : 'was cut short by it';
      log(`bulk redrive ${id}: the runner ${runnerSaw}; ${afterSwitch} of ${DEAD_LETTERS} processed when it ended`);
      // The first pass may still meet a pooled connection to the old primary; the next minute's pass is clean.
      const now = new Date();
      let sweepError = await sweepAt(db, id, now);
      if (sweepError !== undefined) sweepError = await sweepAt(db, id, new Date(now.getTime() + MINUTE_MS));
      const outcome = await retryWhileUnavailable(() => redriveOutcome(db, queue, id));
      log(`bulk redrive ${id}: ${JSON.stringify(outcome)}`);
      return [
        [
          `a bulk redrive was under way when the ${switchName}`,
          atSwitch < DEAD_LETTERS,
          { atSwitch, afterSwitch, runnerError: String((runnerError as { code?: string })?.code ?? runnerError) },
        ],
        ['the sweep on the new primary ran without error', sweepError === undefined, String(sweepError)],
        [
          'the bulk redrive completed with exact counts, every dead letter redriven once, one outbox row each',
          outcome.run.status === 'completed' &&
            outcome.run.processed === DEAD_LETTERS &&
            outcome.run.redriven === DEAD_LETTERS &&
            outcome.redriven === DEAD_LETTERS &&
            outcome.outbox === DEAD_LETTERS &&
            outcome.distinctOutbox === DEAD_LETTERS,
          outcome,
        ],
        ['no dead letter hold was left open', outcome.openHolds === 0, outcome.openHolds],
      ];
    },
  };
}
