import { describe, expect, it } from 'vitest';
import { judgeAnomaly } from '../../../packages/engine/src/anomaly';

const steady = [0.05, 0.06, 0.04, 0.05, 0.07, 0.05, 0.06];

describe('judgeAnomaly', () => {
  it('flags a retry share well above a steady baseline', () => {
    expect(judgeAnomaly({ recentShare: 0.4, recentAttempts: 100, baselineShares: steady })).toMatchObject({
      anomalous: true,
      baseline: 0.05,
    });
  });

  it('ignores ordinary noise and small rises', () => {
    expect(judgeAnomaly({ recentShare: 0.09, recentAttempts: 100, baselineShares: steady })).toEqual({
      anomalous: false,
    });
    expect(judgeAnomaly({ recentShare: 0.14, recentAttempts: 100, baselineShares: steady })).toEqual({
      anomalous: false,
    });
  });

  it('is not fooled by one bad baseline day', () => {
    const withSpike = [0.05, 0.06, 0.9, 0.05, 0.07, 0.05, 0.06];
    expect(judgeAnomaly({ recentShare: 0.4, recentAttempts: 100, baselineShares: withSpike })).toMatchObject({
      anomalous: true,
    });
  });

  it('stays quiet on a volatile baseline, and without enough data', () => {
    const volatile = [0.1, 0.5, 0.2, 0.6, 0.15, 0.55, 0.3];
    expect(judgeAnomaly({ recentShare: 0.5, recentAttempts: 100, baselineShares: volatile })).toEqual({
      anomalous: false,
    });
    expect(judgeAnomaly({ recentShare: 0.9, recentAttempts: 5, baselineShares: steady })).toEqual({ anomalous: false });
    expect(judgeAnomaly({ recentShare: 0.9, recentAttempts: 100, baselineShares: [0.05, 0.05, 0.05] })).toEqual({
      anomalous: false,
    });
  });
});
