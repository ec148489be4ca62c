import 'server-only';
import { connectDatabase, type DatabaseConnection } from '../db/client';
import { getEnvironment } from '../env';
import type { ReplicaFacts, ReplicaSample } from '../read-source';

/**
 * The streaming replica the console reads from (DATABASE_READ_URL), and how
 * far behind it is. The replica must never make a page fail or wait long: it
 * is sampled at most every SAMPLE_EVERY_MS per process, concurrent callers
 * share one sample, a sample gets SAMPLE_DEADLINE_MS, and a replica that did
 * not answer is asked again only after RETRY_UNREACHABLE_AFTER_MS (the
 * console reads from the primary meanwhile). Only the first sample, or one
 * after a quiet spell (STALE_USABLE_MS), is waited for: otherwise callers get
 * the last verdict while the next sample is taken behind them.
 */
const SAMPLE_EVERY_MS = 2_000;
const SAMPLE_DEADLINE_MS = 1_500;
const RETRY_UNREACHABLE_AFTER_MS = 5_000;
const STALE_USABLE_MS = 10_000;
const CONNECT_TIMEOUT_SECONDS = 2;

// Measured on the replica itself. pg_stat_wal_receiver shows a row (its pid at
// least, to any role) while the replica is connected to its primary.
const REPLICA_FACTS_SQL = `
  select pg_is_in_recovery() as "inRecovery",
         exists (select 1 from pg_stat_wal_receiver) as "streaming",
         pg_last_wal_receive_lsn()::text as "receiveLsn",
         pg_last_wal_replay_lsn()::text as "replayLsn",
         extract(epoch from clock_timestamp() - pg_last_xact_replay_timestamp())::float8 as "replayAgeSeconds"`;

interface SampleState {
  latest?: { sample: ReplicaSample; at: number };
  inFlight?: Promise<ReplicaSample>;
}

// Kept on globalThis, like getDb's pool, so `next dev` reloading modules does not open a new pool each time.
const holder = globalThis as typeof globalThis & {
  holdfastReadDatabase?: DatabaseConnection;
  holdfastReplicaSamples?: SampleState;
};

/** The replica's URL, or undefined when none is configured. */
export function replicaUrl(): string | undefined {
  return getEnvironment().DATABASE_READ_URL;
}

/** The replica's pool, opened on first use. Only call when replicaUrl() is set. */
export function getReplicaConnection(): DatabaseConnection {
  const url = replicaUrl();
  if (!url) throw new Error('DATABASE_READ_URL is not set');
  holder.holdfastReadDatabase ??= connectDatabase(url, { connectTimeoutSeconds: CONNECT_TIMEOUT_SECONDS });
  return holder.holdfastReadDatabase;
}

/**
 * Forgets the replica's pool and its last sample after it failed to answer: a
 * connection that died mid-query can stay busy for good, so the next use opens
 * a fresh pool, and pages read from the primary until a new sample says otherwise.
 */
export function markReplicaUnreachable(): void {
  const pool = holder.holdfastReadDatabase;
  holder.holdfastReadDatabase = undefined;
  void pool?.sql.end({ timeout: 0 }).catch(() => {});
  samples().latest = { sample: { reachable: false }, at: Date.now() };
}

/** What the replica last said about itself (see the rules above); never rejects. */
export function sampleReplica(): Promise<ReplicaSample> {
  const state = samples();
  const { latest } = state;
  const age = latest ? Date.now() - latest.at : Number.POSITIVE_INFINITY;
  if (latest && age < (latest.sample.reachable ? SAMPLE_EVERY_MS : RETRY_UNREACHABLE_AFTER_MS))
    return Promise.resolve(latest.sample);
  state.inFlight ??= takeSample().finally(() => {
    state.inFlight = undefined;
  });
  return latest && age < STALE_USABLE_MS ? Promise.resolve(latest.sample) : state.inFlight;
}

async function takeSample(): Promise<ReplicaSample> {
  try {
    const { sql } = getReplicaConnection();
    const [facts] = await withinDeadline(sql.unsafe<ReplicaFacts[]>(REPLICA_FACTS_SQL), SAMPLE_DEADLINE_MS);
    if (!facts) throw new Error('The replica returned no row');
    const sample: ReplicaSample = { reachable: true, facts };
    samples().latest = { sample, at: Date.now() };
    return sample;
  } catch (error) {
    // Whatever went wrong (refused, timed out, bad credentials), the primary answers instead.
    // Said once when the replica goes away, not at every retry.
    if (samples().latest?.sample.reachable !== false)
      console.warn(`The read replica did not answer (${failureText(error)}): the console reads from the primary.`);
    markReplicaUnreachable();
    return { reachable: false };
  }
}

function failureText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? `${code}: ${error.message}` : error.message;
}

function samples(): SampleState {
  holder.holdfastReplicaSamples ??= {};
  return holder.holdfastReplicaSamples;
}

/** The work's result, or a rejection after `ms` (the primary's deadline hook is not involved: this is the replica). */
export async function withinDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ReplicaDeadlineError(ms)), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** The replica did not answer in time; `code` makes isDatabaseUnavailable treat it as down. */
export class ReplicaDeadlineError extends Error {
  readonly code = 'DATABASE_DEADLINE';
  constructor(ms: number) {
    super(`The replica did not answer within ${ms} ms`);
  }
}
