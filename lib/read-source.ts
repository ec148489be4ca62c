/**
 * Where the console reads from, decided from a sample of the replica: pure
 * functions, no database and no Next, so the rules are unit-tested alone
 * (lib/server/read-db.ts samples the replica, console-reads.ts connects).
 */

/**
 * Why a read went to the primary: no replica configured, it did not answer,
 * it lags past the limit, this browser just wrote (read-your-writes), or the
 * replica did not have what was asked for yet (a detail page, a search).
 */
export type PrimaryReason = 'no_replica' | 'unreachable' | 'lagging' | 'own_write' | 'not_on_replica';

export type ReadSource =
  | { from: 'replica'; lagSeconds: number }
  /** When lagging: how far the replica was behind (null: it could not say), and the limit it passed. */
  | { from: 'primary'; reason: PrimaryReason; lagSeconds?: number | null; limitSeconds?: number };

/** What the replica says about itself (see REPLICA_FACTS_SQL in lib/server/read-db.ts). */
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

/** The response header a console endpoint's GET names its read source in. */
export const READ_SOURCE_HEADER = 'x-holdfast-read-source';

/** The source as one header value (the Overview's polls read it) and back; a bad value reads as undefined. */
export function encodeReadSource(source: ReadSource): string {
  return JSON.stringify(source);
}

export function decodeReadSource(value: string | null): ReadSource | undefined {
  if (!value) return undefined;
  try {
    const parsed = JSON.parse(value) as Partial<ReadSource> | null;
    if (parsed?.from === 'replica' && typeof parsed.lagSeconds === 'number') return parsed as ReadSource;
    if (parsed?.from === 'primary' && typeof parsed.reason === 'string') return parsed as ReadSource;
  } catch {
    // A header from something else: no source to show.
  }
  return undefined;
}
