/**
 * `npm run sweep`: runs every due sweep once against DATABASE_URL and exits.
 * Each sweep takes a lease on its time bucket, so this is safe to run from cron
 * beside `npm start` (which also sweeps on an interval): a bucket is swept once.
 */
import { runDueSweeps } from '../lib/core';
import { connectDatabase } from '../lib/db/client';
import { corePolicyFrom, getEnvironment } from '../lib/env';
import { describeStartupError } from './lib/startup-error';
import { sweepSettingsFrom } from './lib/sweep-loop';

try {
  const env = getEnvironment();
  if (!env.DATABASE_URL)
    throw new Error('DATABASE_URL is not set: name the database to sweep (`npm start` sweeps its embedded one itself)');
  const connection = connectDatabase(env.DATABASE_URL, { maxConnections: 2 });
  try {
    const reports = await runDueSweeps({ db: connection.db, policy: corePolicyFrom(env) }, sweepSettingsFrom(env));
    for (const report of reports) {
      console.log(
        `[holdfast] ${report.job} ${report.bucket}: ${report.result?.summary ?? 'already swept in this bucket'}`,
      );
    }
  } finally {
    await connection.close();
  }
} catch (error) {
  console.error(`[holdfast] ${describeStartupError(error)}`);
  process.exitCode = 1;
}
