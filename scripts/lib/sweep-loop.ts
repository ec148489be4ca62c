import { runDueSweeps, type SweepReport } from '../../lib/core';
import { connectDatabase } from '../../lib/db/client';

/** Runs the due sweeps every `intervalSeconds` until stopped; logs only the passes that did something. */
export function startSweepLoop(options: { databaseUrl: string; intervalSeconds: number; frozenAfterDays: number; log: (line: string) => void }) {
  const connection = connectDatabase(options.databaseUrl, { maxConnections: 2 });
  let running: Promise<void> | undefined;

  const tick = () => {
    if (running) return; // a slow pass is not stacked on by the next tick
    running = runDueSweeps({ db: connection.db }, { frozenAfterDays: options.frozenAfterDays })
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
