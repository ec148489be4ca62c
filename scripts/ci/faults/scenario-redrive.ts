import type { Database } from '@holdfast/engine/db';
import { runChecks, type Check } from './checks';
import type { KillablePostgres } from './killable-postgres';
import {
  DEAD_LETTERS,
  makeDeadLetters,
  progress,
  redriveOutcome,
  runRedrive,
  startRedrive,
  sweepAt,
  waitForProgress,
} from './redrive-and-sweep';

interface Setup {
  postgres: KillablePostgres;
  db: Database;
  log: (line: string) => void;
}

const MINUTE_MS = 60_000;

/**
 * A bulk redrive is killed under its runner; after the restart the sweep
 * carries it on and is killed in turn; after the second restart the next
 * sweep finishes it. The end state must be exact: every dead letter redriven
 * once, one outbox row each, the counts adding up to the total.
 */
export async function outageUnderRedriveAndSweep({ postgres, db, log }: Setup): Promise<Check[]> {
  const queue = `fault-redrive-${Date.now()}`;
  await makeDeadLetters(db, queue);
  const id = await startRedrive(db, queue);

  const runner = runRedrive(db, id);
  await waitForProgress(db, id, 60);
  await postgres.kill();
  const runnerError = await runner;
  log(
    `bulk redrive ${id}: PostgreSQL killed under its runner (${String((runnerError as { code?: string })?.code ?? runnerError)})`,
  );
  await postgres.start();
  const afterFirstKill = (await progress(db, id)).processed;

  const now = new Date();
  const sweep = sweepAt(db, id, now);
  await waitForProgress(db, id, afterFirstKill + 60);
  await postgres.kill();
  const sweepError = await sweep;
  log(
    `bulk redrive ${id}: PostgreSQL killed under the sweep carrying it on (${String((sweepError as { code?: string })?.code ?? sweepError)})`,
  );
  await postgres.start();
  const afterSecondKill = (await progress(db, id)).processed;

  // The next minute's pass: the cut-short pass's lease keeps its own bucket until it expires.
  const finalSweep = await sweepAt(db, id, new Date(now.getTime() + MINUTE_MS));
  const outcome = await redriveOutcome(db, queue, id);
  log(`bulk redrive ${id}: ${JSON.stringify(outcome)}`);

  return runChecks('a bulk redrive and a sweep through two outages', [
    [
      'the runner was cut short mid-run',
      runnerError !== undefined && afterFirstKill > 0 && afterFirstKill < DEAD_LETTERS,
      { afterFirstKill },
    ],
    [
      'the sweep was cut short mid-run',
      sweepError !== undefined && afterSecondKill > afterFirstKill && afterSecondKill < DEAD_LETTERS,
      { afterSecondKill },
    ],
    ['the sweep after recovery ran without error', finalSweep === undefined, String(finalSweep)],
    [
      'the run completed with exact counts',
      outcome.run.status === 'completed' &&
        outcome.run.total === DEAD_LETTERS &&
        outcome.run.processed === DEAD_LETTERS &&
        outcome.run.redriven === DEAD_LETTERS &&
        outcome.run.skipped === 0,
      outcome.run,
    ],
    [
      'every dead letter was redriven exactly once, one outbox row each',
      outcome.letters === DEAD_LETTERS &&
        outcome.redriven === DEAD_LETTERS &&
        outcome.outbox === DEAD_LETTERS &&
        outcome.distinctOutbox === DEAD_LETTERS,
      outcome,
    ],
    ['no hold was left open', outcome.openHolds === 0, outcome],
    [
      'its audit trail has one start and no repeats',
      outcome.audit.filter((action) => action === 'dead_letter.bulk_redrive.start').length === 1 &&
        new Set(outcome.audit).size === outcome.audit.length,
      outcome.audit,
    ],
  ]);
}
