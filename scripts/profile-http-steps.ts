/**
 * Where the server's time goes for one step over HTTP: starts the production server (as bench:peers does) with
 * a CPU profile, runs new steps through POST /api/v1/steps/begin and /finish from PROFILE_CLIENTS clients
 * (default 8) for PROFILE_SECONDS (default 10), then stops the server, which writes the profile into
 * PROFILE_DIR (default a temporary folder, printed). Read it with Chrome's DevTools (Performance, load profile)
 * or `node --import tsx scripts/summarize-cpu-profile.ts <file>`. It also prints the server's CPU time per
 * step (user + system, from /proc), which load on the machine does not inflate as it does a profile's wall
 * clock; PROFILE_CPU=off measures that alone, without the profiler's own cost. PROFILE_KIND=repeat: repeats; PROFILE_KIND=empty: the empty route; PROFILE_KIND=attempt: single attempt reports (POST /api/v1/attempts).
 *
 *   npm run build && node --import tsx scripts/profile-http-steps.ts
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ensureAttemptPartitions } from '@holdfast/engine/db';
import { connectDatabase } from '@holdfast/engine/db';
import { migrateDatabase } from '@holdfast/engine/db';
import { attemptsOverHttp } from './lib/bench-attempts';
import { emptyRouteSide, httpSide } from './lib/bench-peers-sides';
import { benchDatabase, benchServer, createBenchToken } from './lib/bench-setup';
import { processCpuMs } from './lib/process-cpu';

const CLIENTS = Number(process.env.PROFILE_CLIENTS ?? 8);
const SECONDS = Number(process.env.PROFILE_SECONDS ?? 10);
const KINDS = ['new', 'repeat', 'empty', 'attempt'] as const;
const KIND = KINDS.find((kind) => kind === process.env.PROFILE_KIND) ?? 'new';

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
  if (process.env.PROFILE_CPU !== 'off') process.env.BENCH_SERVER_NODE_ARGS = `--cpu-prof --cpu-prof-dir=${dir}`;
  server = await benchServer(database.url, { HOLDFAST_BENCH_EMPTY_ROUTE: 'on' });
  const { baseUrl } = server;
  const side = httpSide(baseUrl, token);
  const emptyRoute = emptyRouteSide(server.baseUrl, token);
  const measure = (seconds: number) => {
    if (KIND === 'empty') return emptyRoute.measure(CLIENTS, seconds);
    if (KIND === 'attempt') return attemptsOverHttp(baseUrl, token, CLIENTS, false, seconds);
    return side.measure(KIND, CLIENTS, seconds).then((round) => round.figures);
  };
  await side.prepareRepeats(64);
  await measure(2);
  const cpuBefore = await processCpuMs(server.pid);
  const figures = await measure(SECONDS);
  const cpuMs = (await processCpuMs(server.pid)) - cpuBefore;
  console.log(
    `${KIND === 'empty' ? 'empty-route requests' : KIND === 'attempt' ? 'single attempt reports' : `${KIND} steps`}, ${CLIENTS} clients: ${Math.round(figures.perSecond)}/s (p95 ${figures.p95Ms.toFixed(1)} ms); the server's CPU: ${(cpuMs / figures.calls).toFixed(2)} ms each`,
  );
  await side.stop();
  await emptyRoute.stop();
} finally {
  await server?.stop();
  await database.stop();
}
console.log(`CPU profile of the server: ${dir}`);
