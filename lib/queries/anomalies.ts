import 'server-only';
import type { Executor } from '@holdfast/engine/db';
import type { BaselineDaySums } from '@holdfast/engine/rollups';
import { findStepAnomalies } from '@holdfast/engine/rollups';
import type { ReadOptions } from './read-options';

export interface StepAnomaly {
  recentShare: number;
  baseline: number;
  threshold: number;
}

/** The console's view of packages/engine/src/rollups/step-anomalies.ts: anomalous steps keyed `agent/step`. */
export async function getStepAnomalies(
  db: Executor,
  now: Date,
  /** recentSums: the last 24 hours' sums per step, when the caller has read them (packages/engine/src/rollups/step-anomalies.ts). */
  options: ReadOptions & { recentSums?: BaselineDaySums[] } = {},
): Promise<Map<string, StepAnomaly>> {
  const readings = await findStepAnomalies(db, now, options);
  return new Map(readings.map(({ agent, step, ...anomaly }) => [`${agent}/${step}`, anomaly] as const));
}
