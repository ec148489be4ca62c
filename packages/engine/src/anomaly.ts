/**
 * When a step's retry share of spend in the last 24 hours is "well above" its
 * own previous seven days. The rule, chosen to ignore noise and single bad days:
 *  - enough data: at least 20 attempts in the last 24 h and on at least 4 of the 7 baseline days;
 *  - the baseline is the median of the daily retry shares, its spread the median
 *    absolute deviation (MAD), both robust to one outlying day;
 *  - flagged when the last 24 h exceed the median by more than 3 scaled MADs
 *    (1.4826 x MAD, the normal-consistent scale) and by at least 10 percentage points.
 */
export const ANOMALY_RULE = {
  minRecentAttempts: 20,
  minBaselineDays: 4,
  madMultiplier: 3,
  minAbsoluteRise: 0.1,
} as const;

export interface AnomalyInput {
  recentShare: number;
  recentAttempts: number;
  /** Daily retry shares of the seven days before the last 24 hours (days without attempts left out). */
  baselineShares: number[];
}

export type AnomalyVerdict = { anomalous: false } | { anomalous: true; baseline: number; threshold: number };

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export function judgeAnomaly({ recentShare, recentAttempts, baselineShares }: AnomalyInput): AnomalyVerdict {
  if (recentAttempts < ANOMALY_RULE.minRecentAttempts || baselineShares.length < ANOMALY_RULE.minBaselineDays)
    return { anomalous: false };
  const baseline = median(baselineShares);
  const mad = median(baselineShares.map((share) => Math.abs(share - baseline)));
  const threshold = baseline + Math.max(ANOMALY_RULE.madMultiplier * 1.4826 * mad, ANOMALY_RULE.minAbsoluteRise);
  return recentShare > threshold ? { anomalous: true, baseline, threshold } : { anomalous: false };
}
