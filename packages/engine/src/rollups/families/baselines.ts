import { baselineEndFor, refreshBaselines } from '../anomaly-baselines';
import type { RollupFamily } from './family';

/** The anomaly rule's baseline (anomaly-baselines.ts), as a reading in the hour after the edge needs it. */
export const baselinesFamily: RollupFamily = {
  name: 'baselines',
  async afterRanges(tx, pass) {
    const storedAt = (end: Date | null) => (end === null || pass.restored ? null : new Date(end));
    await refreshBaselines(
      tx,
      { shares: storedAt(pass.state.baseline_end), days: storedAt(pass.state.baseline_days_end) },
      baselineEndFor(new Date(pass.rolledTo)),
      pass.ranges,
    );
  },
};
