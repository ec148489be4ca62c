import { describe, expect, it } from 'vitest';
import { bucketSpan, bucketTick } from '../../../components/charts/chart-time';

describe("a chart's bucket labels", () => {
  const start = '2026-11-30T14:05:00Z';

  it('writes minutes without the date for five-minute buckets, with it for quarter hours and hours', () => {
    expect(bucketTick(start, '5min', false)).toBe('14:05');
    expect(bucketTick(start, '15min', false)).toBe('11-30 14:05');
    expect(bucketTick(start, 'hour', false)).toBe('11-30 14:05');
    expect(bucketTick(start, 'day', false)).toBe('11-30');
  });

  it("gives each bucket its own length in the tooltip's span", () => {
    expect(bucketSpan(start, '5min', false)).toBe('2026-11-30 14:05 – 14:10 UTC');
    expect(bucketSpan('2026-11-30T14:45:00Z', '15min', false)).toBe('2026-11-30 14:45 – 15:00 UTC');
    expect(bucketSpan('2026-11-30T14:00:00Z', 'hour', false)).toBe('2026-11-30 14:00 – 15:00 UTC');
    expect(bucketSpan('2026-11-30T00:00:00Z', 'day', false)).toBe('2026-11-30, 00:00 – 24:00 UTC');
  });
});
