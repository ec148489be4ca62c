import { baselineEndFor, refreshBaselines } from '../anomaly-baselines';
import type { RollupFamily } from './family';

/** The family's name, its row in rollup_family_state: `sharesEnd` and `daysEnd`, the baseline its two tables hold. */
export const BASELINES = 'baselines';

/** The anomaly rule's baseline (anomaly-baselines.ts), as a reading in the hour after the edge needs it. */
export const baselinesFamily: RollupFamily = {
  name: BASELINES,
  async afterRanges(tx, pass) {
    const saved = pass.stateOf(BASELINES);
    const storedAt = (end: unknown) => (typeof end !== 'string' || pass.restored ? null : new Date(end));
    await refreshBaselines(
      tx,
      { shares: storedAt(saved.sharesEnd), days: storedAt(saved.daysEnd) },
      baselineEndFor(new Date(pass.rolledTo)),
      pass.ranges,
    );
  },
};
