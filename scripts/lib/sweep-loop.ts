import { runDueSweeps, type SweepReport, type SweepSettings } from '../../lib/core';
import { connectDatabase } from '../../lib/db/client';
import type { Environment } from '../../lib/env';

/** The sweeps' settings as the environment gives them. */
export function sweepSettingsFrom(env: Environment): SweepSettings {
  return {
    frozenAfterDays: env.HOLDFAST_FROZEN_AFTER_DAYS,
    attemptRetentionDays: env.HOLDFAST_ATTEMPT_RETENTION_DAYS,
    rollupRetentionDays: env.HOLDFAST_ROLLUP_RETENTION_DAYS,
  };
}

/** Runs the due sweeps every `intervalSeconds` until stopped; logs only the passes that did something. */
export function startSweepLoop(options: { databaseUrl: string; intervalSeconds: number; settings: SweepSettings; log: (line: string) => void }) {
  const connection = connectDatabase(options.databaseUrl, { maxConnections: 2 });
  let running: Promise<void> | undefined;

  const tick = () => {
    if (running) return; // a slow pass is not stacked on by the next tick
    running = runDueSweeps({ db: connection.db }, options.settings)
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
      await running;
      await connection.close();
    },
  };
}

/** One line per sweep pass that changed something. */
export function describeSweeps(reports: SweepReport[]): string[] {
  return reports.filter((report) => (report.result?.changed ?? 0) > 0).map((report) => `Sweep ${report.job}: ${report.result?.summary}`);
}
