import 'server-only';
import { connectDatabase, type DatabaseConnection } from '@holdfast/engine/db';
import { getEnvironment } from '@holdfast/engine/env';
import type { ReadSource } from './notice';

/**
 * The streaming replica the console may read from: what it says about itself,
 * the rule that says whether it may serve a read (pure, so unit-tested alone),
 * and its pool and samples. read-console.ts runs a page's reads where this says.
 */

/** What the replica says about itself (REPLICA_FACTS_SQL below). */
export interface ReplicaFacts {
  inRecovery: boolean;
  /** A WAL receiver is running, i.e. the replica is connected to its primary. */
  streaming: boolean;
  receiveLsn: string | null;
  replayLsn: string | null;
  /** Seconds since the commit of the last transaction replayed (null: none replayed since it started). */
  replayAgeSeconds: number | null;
}

export type ReplicaSample = { reachable: true; facts: ReplicaFacts } | { reachable: false };

/** A WAL position ("16/B374D848") as a number, so two can be compared; null for anything else. */
export function parseLsn(text: string | null | undefined): bigint | null {
  const match = /^([0-9A-F]{1,8})\/([0-9A-F]{1,8})$/i.exec(text ?? '');
  if (!match) return null;
  return (BigInt(`0x${match[1]}`) << 32n) + BigInt(`0x${match[2]}`);
}

/**
 * How many seconds of the primary's work the replica has not applied yet;
 * null when it cannot tell. The age of the last replayed commit is the lag
 * only while something waits to be replayed: a replica that has applied all
 * it received from a quiet primary misses nothing, however old that commit.
 * A replica not connected to its primary cannot know what it misses, so it
 * is judged by that age alone.
 */
export function replicaLagSeconds(facts: ReplicaFacts): number | null {
  if (!facts.inRecovery) return 0;
  const received = parseLsn(facts.receiveLsn);
  const replayed = parseLsn(facts.replayLsn);
  if (facts.streaming && received !== null && replayed !== null && replayed >= received) return 0;
  return facts.replayAgeSeconds === null ? null : Math.max(0, facts.replayAgeSeconds);
}

export interface ReadChoiceInput {
  /** Undefined when no replica is configured. */
  sample: ReplicaSample | undefined;
  maxLagSeconds: number;
  /**
   * The primary's WAL position after this browser's last action (from its
   * cookie), while that cookie lives; not an LSN when the action could not read it.
   */
  ownWriteLsn?: string;
}

/** Replica or primary, and why. */
export function chooseReadSource({ sample, maxLagSeconds, ownWriteLsn }: ReadChoiceInput): ReadSource {
  if (!sample) return { from: 'primary', reason: 'no_replica' };
  if (!sample.reachable) return { from: 'primary', reason: 'unreachable' };
  const lagSeconds = replicaLagSeconds(sample.facts);
  if (lagSeconds === null || lagSeconds > maxLagSeconds)
    return { from: 'primary', reason: 'lagging', lagSeconds, limitSeconds: maxLagSeconds };
  if (ownWriteLsn !== undefined) {
    const wrote = parseLsn(ownWriteLsn);
    const replayed = sample.facts.inRecovery ? parseLsn(sample.facts.replayLsn) : wrote;
    if (wrote === null || replayed === null || replayed < wrote) return { from: 'primary', reason: 'own_write' };
  }
  return { from: 'replica', lagSeconds };
}

/**
 * Sampling the replica (DATABASE_READ_URL). It must never make a page fail
 * or wait long: it is sampled at most every SAMPLE_EVERY_MS per process, concurrent callers
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
