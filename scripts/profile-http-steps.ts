/**
 * Where the server's time goes for one step over HTTP: starts the production server (as bench:peers does) with
 * a CPU profile, runs new steps through POST /api/v1/steps/begin and /finish from PROFILE_CLIENTS clients
 * (default 8) for PROFILE_SECONDS (default 10), then stops the server, which writes the profile into
 * PROFILE_DIR (default a temporary folder, printed). Read it with Chrome's DevTools (Performance, load profile)
 * or `node --import tsx scripts/summarize-cpu-profile.ts <file>`.
 *
 *   npm run build && node --import tsx scripts/profile-http-steps.ts
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ensureAttemptPartitions } from '../lib/db/attempt-partitions';
import { connectDatabase } from '../lib/db/client';
import { migrateDatabase } from '../lib/db/migrate';
import { httpSide } from './lib/bench-peers-sides';
import { benchDatabase, benchServer, createBenchToken } from './lib/bench-setup';

const CLIENTS = Number(process.env.PROFILE_CLIENTS ?? 8);
const SECONDS = Number(process.env.PROFILE_SECONDS ?? 10);
const KIND = process.env.PROFILE_KIND === 'repeat' ? 'repeat' : 'new';

const dir = process.env.PROFILE_DIR ?? (await fs.mkdtemp(path.join(os.tmpdir(), 'holdfast-profile-')));
const database = await benchDatabase('profile');
let server: Awaited<ReturnType<typeof benchServer>> | undefined;
try {
  await migrateDatabase(database.url);
  const setup = connectDatabase(database.url, { maxConnections: 1 });
  await ensureAttemptPartitions(setup.db, {
    from: new Date(Date.now() - 86_400_000),
    to: new Date(Date.now() + 86_400_000),
  });
  await setup.close();
  const token = await createBenchToken(database.url, 'profile', ['ingest']);
  process.env.BENCH_SERVER_NODE_ARGS = `--cpu-prof --cpu-prof-dir=${dir}`;
  server = await benchServer(database.url);
  const side = httpSide(server.baseUrl, token);
  await side.prepareRepeats(64);
  await side.measure(KIND, CLIENTS, 2);
  const round = await side.measure(KIND, CLIENTS, SECONDS);
  console.log(
    `${KIND} steps, ${CLIENTS} clients: ${Math.round(round.figures.perSecond)}/s (p95 ${round.figures.p95Ms.toFixed(1)} ms)`,
  );
  await side.stop();
} finally {
  await server?.stop();
  await database.stop();
}
console.log(`CPU profile of the server: ${dir}`);
