import 'server-only';
import type { Executor } from '../db/client';
import type { BaselineDaySums } from '../rollups/anomaly-baselines';
import { findStepAnomalies } from '../rollups/step-anomalies';
import type { ReadOptions } from './read-options';

export interface StepAnomaly {
  recentShare: number;
  baseline: number;
  threshold: number;
}

/** The console's view of lib/rollups/step-anomalies.ts: anomalous steps keyed `agent/step`. */
export async function getStepAnomalies(
  db: Executor,
  now: Date,
  /** recentSums: the last 24 hours' sums per step, when the caller has read them (lib/rollups/step-anomalies.ts). */
  options: ReadOptions & { recentSums?: BaselineDaySums[] } = {},
): Promise<Map<string, StepAnomaly>> {
  const readings = await findStepAnomalies(db, now, options);
  return new Map(readings.map(({ agent, step, ...anomaly }) => [`${agent}/${step}`, anomaly] as const));
}
