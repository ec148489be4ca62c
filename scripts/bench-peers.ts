/**
 * `npm run bench:peers`: one durable step in Holdfast beside its peers, in one run on one PostgreSQL server:
 * Holdfast's runStep in-process, Holdfast over HTTP (POST /api/v1/steps/begin and /finish against the
 * production server), DBOS Transact (a workflow of one DBOS.runStep, in its own database, in a child process
 * in a network namespace with loopback alone), and the bare-SQL ceiling (one transaction: a primary-key select,
 * else an insert ON CONFLICT DO NOTHING RETURNING). Each side is measured for new steps (a new task every call)
 * and repeats (a step already completed, called again: the stored result, the body not run), at 1 and 8
 * clients: a discarded warm-up round each, then rounds rotated so that each side goes first in turn; the
 * median round and the median p95 are reported. Afterwards each side's persisted rows are counted, and the
 * body's run counter shows that no repeat ran it.
 *
 * Runs on a throwaway embedded PostgreSQL, or on BENCH_DATABASE_URL's server (fresh databases
 * holdfast_bench_peers and dbos_bench_peers, dropped after). BENCH_DURABLE=on|off (see
 * scripts/lib/bench-peers-database.ts), BENCH_SECONDS (default 4), BENCH_ROUNDS (default 5),
 * BENCH_CLIENTS (default 1,8). Restate is left out: its server looks for a newer release on the internet at
 * every start (docs/performance/peers.md cites figures measured earlier in a namespace of its own).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { ensureAttemptPartitions } from '@holdfast/engine/db';
import { connectDatabase } from '@holdfast/engine/db';
import { migrateDatabase } from '@holdfast/engine/db';
import { type Figures, medianRound, rotateRounds } from './lib/bench-compare';
import { DURABILITY_SETTINGS, peersDatabases } from './lib/bench-peers-database';
import {
  BARE_TABLE,
  bareSqlSide,
  emptyRouteSide,
  HTTP_PREFIX,
  httpSide,
  type PeerSide,
  REPEAT_POOL,
  RUN_STEP_PREFIX,
  runStepSide,
} from './lib/bench-peers-sides';
import { benchServer, createBenchToken } from './lib/bench-setup';
import { type StepKind, startDbosSide } from './lib/dbos-side';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const WARM_UP_SECONDS = Math.min(2, SECONDS);
const CLIENT_COUNTS = (process.env.BENCH_CLIENTS ?? '1,8').split(',').map(Number);
const KINDS: StepKind[] = ['new', 'repeat'];

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dbosVersion = (
  JSON.parse(fs.readFileSync(path.join(projectRoot, 'node_modules/@dbos-inc/dbos-sdk/package.json'), 'utf8')) as {
    version: string;
  }
).version;

interface Tally {
  calls: number;
  bodyRuns: number;
}

interface Side {
  label: string;
  side: PeerSide;
  tally: Record<StepKind, Tally>;
}

interface Cell {
  median: Figures;
  p95Ms: number;
  fewestCalls: number;
}

const formatRate = (perSecond: number) => Math.round(perSecond).toLocaleString('en-US');
const count = (n: number) => n.toLocaleString('en-US');

function summarize(rounds: Figures[]): Cell {
  return {
    median: medianRound(rounds, (figures) => figures.perSecond),
    p95Ms: medianRound(rounds, (figures) => figures.p95Ms).p95Ms,
    fewestCalls: Math.min(...rounds.map((figures) => figures.calls)),
  };
}

async function countRows(holdfastUrl: string, dbosUrl: string) {
  const holdfast = postgres(holdfastUrl, { max: 1, onnotice: () => {} });
  const dbos = postgres(dbosUrl, { max: 1, onnotice: () => {} });
  try {
    const holdfastRows = async (prefix: string) => {
      const [keys] = await holdfast<{ completed: number }[]>`
        select count(*)::int as completed from idempotency_keys where task_id like ${`${prefix}%`} and status = 'completed'`;
      const [attempts] = await holdfast<{ succeeded: number; all: number }[]>`
        select count(*) filter (where outcome = 'succeeded')::int as succeeded, count(*)::int as all
        from attempts where task_id like ${`${prefix}%`}`;
      return `${count(keys!.completed)} completed keys / ${count(attempts!.all)} attempts (${count(attempts!.succeeded)} succeeded)`;
    };
    const [bare] = await holdfast<{ rows: number }[]>`select count(*)::int as rows from ${holdfast(BARE_TABLE)}`;
    const [workflows] = await dbos<{ rows: number; succeeded: number }[]>`
      select count(*)::int as rows, count(*) filter (where status = 'SUCCESS')::int as succeeded
      from dbos.workflow_status where workflow_uuid like 'peers-dbos-%'`;
    const [outputs] = await dbos<{ rows: number }[]>`
      select count(*)::int as rows from dbos.operation_outputs where workflow_uuid like 'peers-dbos-%'`;
    return {
      runStep: await holdfastRows(RUN_STEP_PREFIX),
      http: await holdfastRows(HTTP_PREFIX),
      dbos: `${count(workflows!.rows)} workflow_status (${count(workflows!.succeeded)} SUCCESS) / ${count(outputs!.rows)} operation_outputs`,
      bare: `${count(bare!.rows)} rows`,
    };
  } finally {
    await holdfast.end({ timeout: 5 });
    await dbos.end({ timeout: 5 });
  }
}

async function main() {
  const databases = await peersDatabases();
  let server: Awaited<ReturnType<typeof benchServer>> | undefined;
  let emptyRoute: ReturnType<typeof emptyRouteSide> | undefined;
  let dbos: Awaited<ReturnType<typeof startDbosSide>> | undefined;
  const sides: Side[] = [];
  try {
    await migrateDatabase(databases.holdfastUrl);
    // The attempt log as `npm start` keeps it (as bench:core does).
    const setup = connectDatabase(databases.holdfastUrl, { maxConnections: 1 });
    await ensureAttemptPartitions(setup.db, {
      from: new Date(Date.now() - 30 * 86_400_000),
      to: new Date(Date.now() + 3 * 86_400_000),
    });
    await setup.close();
    const token = await createBenchToken(databases.holdfastUrl, 'bench', ['ingest']);
    server = await benchServer(databases.holdfastSocketUrl, { HOLDFAST_BENCH_EMPTY_ROUTE: 'on' });
    emptyRoute = emptyRouteSide(server.baseUrl, token);
    dbos = await startDbosSide(databases.dbosSocketUrl);
    const dbosSide = dbos;
    const tally = (): Record<StepKind, Tally> => ({
      new: { calls: 0, bodyRuns: 0 },
      repeat: { calls: 0, bodyRuns: 0 },
    });
    sides.push(
      { label: 'Holdfast runStep', side: runStepSide(databases.holdfastSocketUrl), tally: tally() },
      { label: 'Holdfast HTTP begin+finish', side: httpSide(server.baseUrl, token), tally: tally() },
      {
        label: `DBOS Transact ${dbosVersion}`,
        side: {
          prepareRepeats: (count) => dbosSide.prepareRepeats(count),
          measure: (kind, clients, seconds) => dbosSide.measure(kind, clients, seconds),
          stop: () => dbosSide.stop(),
        },
        tally: tally(),
      },
      { label: 'bare SQL', side: await bareSqlSide(databases.holdfastSocketUrl), tally: tally() },
    );

    const cpus = os.cpus();
    console.log(
      `Holdfast beside its peers: one durable step, ${new Date().toISOString().slice(0, 10)}, ${cpus.length} × ${cpus[0]?.model.trim()}, Node ${process.version}`,
    );
    console.log(`PostgreSQL ${databases.serverVersion}: ${databases.description}`);
    console.log(`durability: ${DURABILITY_SETTINGS.map((name) => `${name}=${databases.settings[name]}`).join(', ')}`);
    console.log(`DBOS side: child process, ${dbos.isolation}; PostgreSQL through its unix socket`);
    console.log(
      `${ROUNDS} rounds of ${SECONDS} s per side, order rotated so each side goes first in turn, after a discarded ${WARM_UP_SECONDS} s warm-up each; median round, median p95 in brackets (ms)`,
    );
    console.log();

    for (const { side } of sides) await side.prepareRepeats(REPEAT_POOL);

    const rows: { kind: StepKind; clients: number; cells: Cell[] }[] = [];
    const emptyRows: { clients: number; cell: Cell }[] = [];
    for (const clients of CLIENT_COUNTS) {
      console.error(`bench:peers: the empty route, ${clients} client(s)...`);
      const route = emptyRoute!;
      await route.measure(clients, WARM_UP_SECONDS);
      const emptyRounds: Figures[] = [];
      for (let round = 0; round < ROUNDS; round++) emptyRounds.push(await route.measure(clients, SECONDS));
      emptyRows.push({ clients, cell: summarize(emptyRounds) });
      for (const kind of KINDS) {
        console.error(`bench:peers: ${kind} steps, ${clients} client(s)...`);
        const measured = await rotateRounds(
          sides.map(({ side, tally: counts }) => async (seconds: number) => {
            const round = await side.measure(kind, clients, seconds);
            counts[kind].calls += round.figures.calls;
            counts[kind].bodyRuns += round.bodyRuns;
            return round.figures;
          }),
          { rounds: ROUNDS, seconds: SECONDS, warmUpSeconds: WARM_UP_SECONDS },
        );
        rows.push({ kind, clients, cells: measured.map(summarize) });
      }
    }

    const kindLabel = (kind: StepKind) => (kind === 'new' ? 'new' : 'repeat (stored result)');
    console.log(`| one step | clients | ${sides.map((side) => side.label).join(' | ')} |`);
    console.log(`|---|---|${sides.map(() => '---|').join('')}`);
    for (const { kind, clients, cells } of rows) {
      const figures = cells.map((cell) => `${formatRate(cell.median.perSecond)}/s (${cell.p95Ms.toFixed(1)})`);
      console.log(`| ${kindLabel(kind)} | ${clients} | ${figures.join(' | ')} |`);
    }
    console.log();
    console.log(
      '| one step | clients | runStep / DBOS | runStep / bare SQL | HTTP / DBOS | HTTP / bare SQL | HTTP / runStep |',
    );
    console.log('|---|---|---|---|---|---|---|');
    for (const { kind, clients, cells } of rows) {
      const [runStepRate, httpRate, dbosRate, bareRate] = cells.map((cell) => cell.median.perSecond) as [
        number,
        number,
        number,
        number,
      ];
      const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
      console.log(
        `| ${kindLabel(kind)} | ${clients} | ${ratio(runStepRate, dbosRate)} | ${ratio(runStepRate, bareRate)} | ${ratio(httpRate, dbosRate)} | ${ratio(httpRate, bareRate)} | ${ratio(httpRate, runStepRate)} |`,
      );
    }
    console.log();
    console.log(
      'The empty route (POST /api/bench/empty: no token, no body read, no database; Next.js and the HTTP server alone), requests/s; a step over HTTP is two requests:',
    );
    for (const { clients, cell } of emptyRows) {
      const httpNew = rows.find((row) => row.clients === clients && row.kind === 'new')?.cells[1]?.median.perSecond;
      console.log(
        `| empty route | ${clients} | ${formatRate(cell.median.perSecond)}/s (${cell.p95Ms.toFixed(1)}) | at most ${formatRate(cell.median.perSecond / 2)} steps/s over HTTP${httpNew ? `; HTTP new steps reach ${((httpNew * 2) / cell.median.perSecond).toFixed(2)}x of it` : ''} |`,
      );
    }
    const fewest = Math.min(...rows.flatMap((row) => row.cells.map((cell) => cell.fewestCalls)));
    console.log();
    console.log(
      `Fewest calls in any measured round: ${fewest.toLocaleString('en-US')} (each p95 is taken from at least that many)`,
    );

    const counted = await countRows(databases.holdfastUrl, databases.dbosUrl);
    const persisted = [counted.runStep, counted.http, counted.dbos, counted.bare];
    console.log();
    console.log(
      `Rows after the run (each side also completed ${REPEAT_POOL} steps first, the ones its repeats call; warm-up rounds included):`,
    );
    console.log(
      '| side | new steps made | body runs for them | repeats made | body runs for repeats | rows persisted |',
    );
    console.log('|---|---|---|---|---|---|');
    for (const [index, { label, tally: counts }] of sides.entries()) {
      console.log(
        `| ${label} | ${(counts.new.calls + REPEAT_POOL).toLocaleString('en-US')} | ${(counts.new.bodyRuns + REPEAT_POOL).toLocaleString('en-US')} | ${counts.repeat.calls.toLocaleString('en-US')} | ${counts.repeat.bodyRuns} | ${persisted[index]} |`,
      );
    }
    const rerun = sides.filter((side) => side.tally.repeat.bodyRuns > 0);
    console.log(
      rerun.length === 0
        ? 'No repeat ran its body: every repeat answered with the stored result.'
        : `REPEATS RAN THEIR BODY: ${rerun.map((side) => side.label).join(', ')}`,
    );
    if (rerun.length > 0) process.exitCode = 1;
  } finally {
    for (const { side } of sides) await side.stop().catch((error: unknown) => console.error(error));
    if (dbos && !sides.length) await dbos.stop();
    await emptyRoute?.stop();
    await server?.stop();
    await databases.stop();
  }
}

await main();
