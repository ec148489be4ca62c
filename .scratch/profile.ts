import { sql } from 'drizzle-orm';
import { connectDatabase } from '../lib/db/client';
import { planFigures } from '../lib/rollups/figures';
import { getStepAnomalies } from '../lib/queries/anomalies';
import { getStepStats } from '../lib/queries/step-stats';
import { resolveTimeWindow } from '../lib/time-window';

const url = process.env.BENCH_DATABASE_URL!;
const { db, close } = connectDatabase(url, { maxConnections: 4 });
const now = new Date();
async function t(name: string, work: () => Promise<unknown>) {
  await work();
  const s: number[] = [];
  for (let i = 0; i < 10; i++) { const b = performance.now(); await work(); s.push(performance.now() - b); }
  s.sort((a, b) => a - b);
  console.log(name.padEnd(40), s[5]!.toFixed(1), s[9]!.toFixed(1));
}
for (const w of ['24h', '30d'] as const) {
  const range = resolveTimeWindow(w, now);
  const plan = await planFigures(db, { windows: [{ label: 'window', ...range }] });
  await t(`${w} figures`, () => db.execute(sql`select agent, step, error_class, sum(attempts) from ${plan.figures} as f group by 1,2,3`));
  await t(`${w} latency`, () => db.execute(sql`select agent, step, latency_bucket, sum(attempts) from ${plan.latency} as l group by 1,2,3`));
  await t(`${w} latency rows only`, () => db.execute(sql`select count(*) from ${plan.latency} as l`));
  await t(`${w} getStepStats`, () => getStepStats(db, range));
  if (process.env.EXPLAIN) {
    const rows = await db.execute<{ 'QUERY PLAN': string }>(sql`explain (analyze, buffers) select agent, step, latency_bucket, sum(attempts) from ${plan.latency} as l group by 1,2,3`);
    console.log(rows.map((r) => r['QUERY PLAN']).join('\n'));
  }
}
await t('anomalies', () => getStepAnomalies(db, now));
await close();
