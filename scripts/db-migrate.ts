/**
 * `npm run db:migrate`: applies pending migrations to DATABASE_URL and exits,
 * for operators who migrate before deploying. `npm start` does the same itself.
 */
import { migrateDatabase } from '../lib/db/migrate';
import { getEnvironment } from '../lib/env';
import { describeStartupError } from './lib/startup-error';

try {
  const url = getEnvironment().DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set: name the database to migrate');
  await migrateDatabase(url);
  console.log('[holdfast] Migrations applied');
} catch (error) {
  console.error(`[holdfast] ${describeStartupError(error)}`);
  process.exitCode = 1;
}
