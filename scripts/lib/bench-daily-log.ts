import { type SQL, sql } from 'drizzle-orm';
import { connectDatabase, type Database, ensureAttemptPartitions } from '@holdfast/engine/db';

const DAY_MS = 86_400_000;
const seconds = (since: number) => ((performance.now() - since) / 1_000).toFixed(1);

/**
 * Builds a benchmark's attempt log, a day at a time over the `days` before `now` from two connections, unless the
 * database already holds 95 % of `attempts` (counted by `counted`, a `count(*)::int as count` query): a rerun
 * reuses the log. Returns whether it built one, and prints what it did.
 */
export async function buildDailyLog({
  url,
  now,
  days,
  attempts,
  executionsPerDay,
  counted,
  buildDay,
}: {
  url: string;
  now: Date;
  days: number;
  attempts: number;
  executionsPerDay: number;
  counted: SQL;
  /** Writes one day's executions, numbered from `firstExecution`. */
  buildDay: (db: Database, day: Date, executions: number, firstExecution: number) => Promise<void>;
}): Promise<boolean> {
  const setup = connectDatabase(url, { maxConnections: 1 });
  const [existing] = await setup.db.execute<{ count: number }>(counted);
  if ((existing?.count ?? 0) >= attempts * 0.95) {
    console.log(`Reusing the ${existing!.count.toLocaleString('en-US')} attempts already in the database`);
    await setup.close();
    return false;
  }
  const first = new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS - days * DAY_MS);
  await ensureAttemptPartitions(setup.db, { from: first, to: new Date(now.getTime() + DAY_MS) });
  await setup.close();
  const began = performance.now();
  const loaders = Array.from({ length: 2 }, () => connectDatabase(url, { maxConnections: 1 }));
  await Promise.all(
    loaders.map(async ({ db }, loader) => {
      for (let day = loader; day < days; day += loaders.length) {
        await buildDay(db, new Date(first.getTime() + day * DAY_MS), executionsPerDay, day * executionsPerDay);
        process.stdout.write('.');
      }
    }),
  );
  await Promise.all(loaders.map((loader) => loader.close()));
  const check = connectDatabase(url, { maxConnections: 1 });
  const [built] = await check.db.execute<{ count: number }>(counted);
  await check.db.execute(sql`vacuum analyze attempts`);
  await check.close();
  console.log(`\nBuilt ${built!.count.toLocaleString('en-US')} attempts over ${days} days in ${seconds(began)} s`);
  return true;
}
