/** The scheduled passes' face: run each due sweep once per bucket. */
export { runDueSweeps } from './sweeps';
export type { SweepReport, SweepSettings } from './sweeps';
