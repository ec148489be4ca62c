import { describe, expect, it } from 'vitest';
import {
  LATENCY_RELATIVE_ERROR,
  latencyBucketOf,
  latencyOfBucket,
  mergeHistograms,
  percentileBucket,
  percentileMs,
} from '../../../packages/engine/src/rollups/latency-buckets';

describe('latency buckets', () => {
  it('reports every latency within the stated relative error', () => {
    for (let latency = 1; latency < 2_000_000; latency = Math.ceil(latency * 1.013) + 1) {
      const reported = latencyOfBucket(latencyBucketOf(latency));
      expect(Math.abs(reported - latency) / latency).toBeLessThanOrEqual(LATENCY_RELATIVE_ERROR + 1e-12);
    }
    expect(latencyOfBucket(latencyBucketOf(0))).toBe(0);
  });

  it('reports small latencies exactly, where a bucket holds one whole millisecond', () => {
    for (let latency = 1; latency <= 20; latency += 1) expect(latencyOfBucket(latencyBucketOf(latency))).toBe(latency);
  });

  it('finds the bucket of the nearest-rank percentile', () => {
    const latencies = [5, 7, 9, 12, 40, 41, 45, 300, 900, 5_000];
    const histogram = new Map<number, number>();
    for (const latency of latencies)
      histogram.set(latencyBucketOf(latency), (histogram.get(latencyBucketOf(latency)) ?? 0) + 1);
    // Nearest rank: p50 of 10 values is the 5th smallest (40), p95 the 10th (5,000).
    expect(percentileBucket(histogram, 0.5)).toBe(latencyBucketOf(40));
    expect(percentileBucket(histogram, 0.95)).toBe(latencyBucketOf(5_000));
    expect(percentileMs(new Map(), 0.5)).toBeNull();
  });
});

describe('mergeHistograms', () => {
  it('sums sparse histograms per key, as PostgreSQL sends them', () => {
    const merged = mergeHistograms([
      { key: 'a/x', buckets: '{-1,3,40}', counts: '{2,5,1}' },
      { key: 'a/x', buckets: '{3,41}', counts: '{10,7}' },
      { key: 'b/y', buckets: '{}', counts: '{}' },
    ]);
    expect([...merged.get('a/x')!]).toEqual([
      [-1, 2],
      [3, 15],
      [40, 1],
      [41, 7],
    ]);
    expect(merged.get('b/y')!.size).toBe(0);
  });
});
