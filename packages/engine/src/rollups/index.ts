/** The analytics storage's face: the figures plan the read models read through, the roll-up pass and retention. */
export type { BaselineDaySums } from './anomaly-baselines';
export { findStepAnomalies, sumPerStep } from './step-anomalies';
export { allStepsRelation, bucketLabelSql, finestBucketFor, planFigures } from './figures';
export type { StepName } from './figures';
export { summedFigures } from './figure-sql';
export { percentileMs, readStepHistograms } from './latency-buckets';
export type { LatencyHistogram } from './latency-buckets';
export { rollUpAttempts } from './roll-up';
export { rollExecutionShapes } from './execution-shapes';
export { maintainAttemptLog } from './retention';
