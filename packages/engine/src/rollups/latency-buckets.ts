import { type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../db/client';

/**
 * Log-scale latency buckets. Bucket b holds latencies in (γ^(b-1), γ^b]
 * milliseconds, with bucket -1 for 0 ms. Counts per bucket add up across
 * hours, and a percentile read from them is within ±LATENCY_RELATIVE_ERROR
 * of the true nearest-rank percentile: the histogram finds the exact bucket
 * the true value lies in, and any value of that bucket is that close to it.
 */
export const LATENCY_GAMMA = 1.05;
const LN_GAMMA = Math.log(LATENCY_GAMMA);
/** (γ − 1) / (γ + 1): about 2.4%. */
export const LATENCY_RELATIVE_ERROR = (LATENCY_GAMMA - 1) / (LATENCY_GAMMA + 1);

/** The same rule in SQL, for a latency_ms column or expression (raw rows and rollups must agree). */
export function latencyBucketSql(column: string): string {
  return `(case when ${column} < 1 then -1 else ceil(ln(${column}::float8) / ${LN_GAMMA}::float8)::smallint end)`;
}

export function latencyBucketOf(latencyMs: number): number {
  return latencyMs < 1 ? -1 : Math.ceil(Math.log(latencyMs) / LN_GAMMA);
}

/**
 * The value reported for a bucket: the point with the smallest worst-case
 * relative error, kept within the whole milliseconds the bucket can hold
 * (so buckets narrower than a millisecond report their one value exactly).
 */
export function latencyOfBucket(bucket: number): number {
  if (bucket < 0) return 0;
  const upper = LATENCY_GAMMA ** bucket;
  const lower = LATENCY_GAMMA ** (bucket - 1);
  const smallestWhole = Math.floor(lower) + 1;
  const largestWhole = Math.floor(upper);
  const middle = (2 * upper) / (LATENCY_GAMMA + 1);
  return Math.min(Math.max(middle, smallestWhole), largestWhole);
}

/** Attempts per latency bucket. */
export type LatencyHistogram = Map<number, number>;

/**
 * Nearest-rank percentile (PostgreSQL's percentile_disc): the bucket holding
 * the ⌈q·n⌉-th smallest latency. Null for an empty histogram.
 */
export function percentileBucket(histogram: LatencyHistogram, quantile: number): number | null {
  const total = [...histogram.values()].reduce((sum, count) => sum + count, 0);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(quantile * total));
  let seen = 0;
  for (const bucket of [...histogram.keys()].sort((a, b) => a - b)) {
    seen += histogram.get(bucket) ?? 0;
    if (seen >= rank) return bucket;
  }
  return null;
}

export function percentileMs(histogram: LatencyHistogram, quantile: number): number | null {
  const bucket = percentileBucket(histogram, quantile);
  return bucket === null ? null : latencyOfBucket(bucket);
}

/** The highest bucket a latency_ms (a 32-bit integer) can fall in. */
const HIGHEST_BUCKET = latencyBucketOf(2 ** 31 - 1);

/** Parses PostgreSQL's text form of a one-dimensional number array, e.g. `{3,17,-1}`. */
function parseNumberArray(text: string): number[] {
  const inner = text.slice(1, -1);
  return inner === '' ? [] : inner.split(',').map(Number);
}

/**
 * Sums sparse histograms (parallel bucket and count arrays, in PostgreSQL's
 * text form) per key. A month of hourly and daily histograms is a few
 * thousand rows of ~100 entries each, so this runs on dense arrays.
 */
export function mergeHistograms(
  rows: Iterable<{ key: string; buckets: string; counts: string }>,
): Map<string, LatencyHistogram> {
  const dense = new Map<string, Float64Array>();
  for (const row of rows) {
    let sums = dense.get(row.key);
    if (!sums) {
      sums = new Float64Array(HIGHEST_BUCKET + 2);
      dense.set(row.key, sums);
    }
    const buckets = parseNumberArray(row.buckets);
    const counts = parseNumberArray(row.counts);
    for (let index = 0; index < buckets.length; index += 1) sums[buckets[index]! + 1]! += counts[index]!;
  }
  const merged = new Map<string, LatencyHistogram>();
  for (const [key, sums] of dense) {
    const histogram: LatencyHistogram = new Map();
    sums.forEach((count, index) => {
      if (count > 0) histogram.set(index - 1, count);
    });
    merged.set(key, histogram);
  }
  return merged;
}

/** Each step's latency histogram, keyed `agent/step`, merged from a plan's latency relation. */
export async function readStepHistograms(db: Executor, latency: SQL): Promise<Map<string, LatencyHistogram>> {
  // Summed here rather than in SQL: unnesting every row's histogram costs PostgreSQL more.
  return mergeHistograms(
    await db.execute<{ key: string; buckets: string; counts: string }>(sql`
      select agent || '/' || step as key, buckets::text as buckets, counts::text as counts
      from ${latency} as latency`),
  );
}
