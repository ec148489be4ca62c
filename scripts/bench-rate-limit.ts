/**
 * `node --import tsx scripts/bench-rate-limit.ts`: what the agent API's rate limit costs a request. Times the
 * bucket's one statement (takeRequestToken) against the raw ceiling of one round trip (`select 1`) and against
 * the token lookup every request already makes, sequentially on one connection and from 8 concurrent callers
 * on one token (its row is the point of contention). Runs on BENCH_DATABASE_URL, migrated first; prints figures.
 */
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { authenticateApiTokenWithLimits, createApiToken, takeRequestToken } from '@holdfast/engine/core';
import { connectDatabase } from '@holdfast/engine/db';
import { migrateDatabase } from '@holdfast/engine/db';

const url = process.env.BENCH_DATABASE_URL;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5_000);

async function timed(label: string, callers: number, call: () => Promise<unknown>) {
  for (let i = 0; i < 200; i++) await call(); // warm-up
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async () => {
      for (let i = 0; i < ROUNDS / callers; i++) {
        const at = performance.now();
        await call();
        latencies.push(performance.now() - at);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1_000;
  latencies.sort((a, b) => a - b);
  const pick = (q: number) => (latencies[Math.floor(q * (latencies.length - 1))] ?? 0).toFixed(3);
  console.log(
    `${label.padEnd(34)} ${String(callers).padStart(7)}   median ${pick(0.5)} ms   p99 ${pick(0.99)} ms   ${Math.round(latencies.length / seconds)}/s`,
  );
}

async function main() {
  if (!url) throw new Error('Set BENCH_DATABASE_URL to a database this may migrate and write to');
  await migrateDatabase(url);
  const connection = connectDatabase(url, { maxConnections: 8 });
  const db = connection.db;
  try {
    const { token, record } = await createApiToken(
      { db, actor: { type: 'person', id: 'bench@holdfast.local', role: 'admin', teams: [] } },
      { name: 'bench-rate-limit', scopes: ['ingest'] },
    );
    // Never refused here: the figure is the statement's cost, granted or not.
    const limit = { perSecond: 100_000, burst: 1_000_000 };
    console.log(`${ROUNDS} calls per line`);
    console.log('statement                          callers');
    for (const callers of [1, 8]) {
      await timed('select 1 (one round trip)', callers, () => db.execute(sql`select 1`));
      await timed('token lookup (every request)', callers, () => authenticateApiTokenWithLimits(db, `Bearer ${token}`));
      await timed('rate limit: takeRequestToken', callers, () => takeRequestToken(db, record.id, limit));
    }
  } finally {
    await connection.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
