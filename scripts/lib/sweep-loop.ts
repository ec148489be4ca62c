import {
  runDueSweeps,
  startDatabaseClock,
  type CorePolicy,
  type SweepReport,
  type SweepSettings,
} from '../../lib/core';
import { connectDatabase } from '../../lib/db/client';
import { corePolicyFrom, getEnvironment, type Environment } from '../../lib/env';

/** The sweeps' settings as the environment gives them. */
export function sweepSettingsFrom(env: Environment): SweepSettings {
  return {
    frozenAfterDays: env.HOLDFAST_FROZEN_AFTER_DAYS,
    attemptRetentionDays: env.HOLDFAST_ATTEMPT_RETENTION_DAYS,
    rollupRetentionDays: env.HOLDFAST_ROLLUP_RETENTION_DAYS,
    uncertainEscalateAfterMs: env.HOLDFAST_UNCERTAIN_ESCALATE_MINUTES * 60_000,
    staleLockEscalateAfterMs: env.HOLDFAST_STALE_LOCK_ESCALATE_MINUTES * 60_000,
    defaultOwner: env.HOLDFAST_DEFAULT_OWNER,
  };
}

/**
 * Runs the due sweeps every `intervalSeconds` until stopped; logs only the
 * passes that did something. The library's policy is the environment's
 * unless the caller passes one.
 */
export function startSweepLoop(options: {
  databaseUrl: string;
  intervalSeconds: number;
  settings: SweepSettings;
  policy?: CorePolicy;
  log: (line: string) => void;
}) {
  const connection = connectDatabase(options.databaseUrl, { maxConnections: 2 });
  const policy = options.policy ?? corePolicyFrom(getEnvironment());
  const clock = startDatabaseClock(() => connection.db);
  let running: Promise<void> | undefined;

  const tick = () => {
    if (running) return; // a slow pass is not stacked on by the next tick
    running = runDueSweeps({ db: connection.db, clock: clock.now, policy }, options.settings)
      .then((reports) => {
        for (const line of describeSweeps(reports)) options.log(line);
      })
      .catch((error: unknown) => options.log(`Sweep failed: ${error instanceof Error ? error.message : String(error)}`))
      .finally(() => {
        running = undefined;
      });
  };
  tick();
  const timer = setInterval(tick, options.intervalSeconds * 1_000);

  return {
    stop: async () => {
      clearInterval(timer);
      clock.stop();
      await running;
      await connection.close();
    },
  };
}

/** One line per sweep pass that changed something. */
export function describeSweeps(reports: SweepReport[]): string[] {
  return reports
    .filter((report) => (report.result?.changed ?? 0) > 0)
    .map((report) => `Sweep ${report.job}: ${report.result?.summary}`);
}
