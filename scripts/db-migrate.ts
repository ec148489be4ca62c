/**
 * `npm run db:migrate`: applies pending migrations and exits, for operators who
 * migrate before deploying. `npm start` does the same itself. Migrates as
 * DATABASE_MIGRATION_URL's role (the tables' owner) when set, else as DATABASE_URL's.
 */
import { migrateNamedDatabase } from '@holdfast/engine/db';
import { getEnvironment } from '@holdfast/engine/env';
import { describeStartupError } from './lib/startup-error';

const log = (line: string) => console.log(`[holdfast] ${line}`);

try {
  const env = getEnvironment();
  // The owner's URL alone is enough to migrate; the application's alone migrates as before.
  const databaseUrl = env.DATABASE_URL ?? env.DATABASE_MIGRATION_URL;
  if (!databaseUrl)
    throw new Error('DATABASE_URL is not set (nor DATABASE_MIGRATION_URL): name the database to migrate');
  await migrateNamedDatabase({ databaseUrl, migrationUrl: env.DATABASE_MIGRATION_URL }, log);
  log('Migrations applied');
} catch (error) {
  console.error(`[holdfast] ${describeStartupError(error)}`);
  process.exitCode = 1;
}
