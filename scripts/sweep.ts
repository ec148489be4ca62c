/**
 * `npm run sweep`: runs every due sweep once against DATABASE_URL, then the
 * alert evaluation and delivery, and exits.
 * Each sweep takes a lease on its time bucket, so this is safe to run from cron
 * beside `npm start` (which also sweeps on an interval): a bucket is swept once.
 */
import { startDatabaseClock } from '@holdfast/engine/core';
import { runDueSweeps } from '@holdfast/engine/scheduler';
import { connectDatabase } from '@holdfast/engine/db';
import { corePolicyFrom, getEnvironment } from '@holdfast/engine/env';
import { describeStartupError } from './lib/startup-error';
import { describeAlertPasses, runAlertPasses, sweepSettingsFrom } from './lib/sweep-loop';

try {
  const env = getEnvironment();
  if (!env.DATABASE_URL)
    throw new Error('DATABASE_URL is not set: name the database to sweep (`npm start` sweeps its embedded one itself)');
  const connection = connectDatabase(env.DATABASE_URL, { maxConnections: 2 });
  try {
    const clock = startDatabaseClock(() => connection.db);
    await clock.ready;
    clock.stop();
    const ctx = { db: connection.db, clock: clock.now, policy: corePolicyFrom(env) };
    const reports = await runDueSweeps(ctx, sweepSettingsFrom(env));
    for (const report of reports) {
      console.log(
        `[holdfast] ${report.job} ${report.bucket}: ${report.result?.summary ?? 'already swept in this bucket'}`,
      );
    }
    // Then the alerts, as the running server's loop does: evaluate (once per minute bucket) and deliver what is due.
    const alerts = await runAlertPasses(ctx);
    for (const line of describeAlertPasses(alerts)) console.log(`[holdfast] ${line}`);
  } finally {
    await connection.close();
  }
} catch (error) {
  console.error(`[holdfast] ${describeStartupError(error)}`);
  process.exitCode = 1;
}
