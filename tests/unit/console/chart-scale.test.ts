import { describe, expect, it } from 'vitest';
import { niceTop, zeroSafeDomain } from '../../../components/charts/chart-frame';

describe("a chart's value axis", () => {
  it('tops out at the round number at or above the peak, not at the peak', () => {
    const tops = [0.37, 0.93, 1, 2, 4, 37, 120, 25_000, 0.0021].map(niceTop);
    expect(tops).toEqual([0.5, 1, 1, 2, 5, 50, 200, 25_000, 0.0025]);
  });

  it('runs from zero, to a quiet top when every bucket is zero', () => {
    const [bottom, top] = zeroSafeDomain(1);
    expect(bottom).toBe(0);
    expect(top(0)).toBe(1);
    expect(top(0.37)).toBe(0.5);
  });
});
