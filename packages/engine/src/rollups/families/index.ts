import { baselinesFamily } from './baselines';
import { errorGroupsFamily } from './error-groups';
import { executionShapesFamily } from './execution-shapes';
import type { RollupFamily } from './family';
import { figuresFamily } from './figures';
import { spansFamily } from './spans';
import { stepSourcesFamily } from './step-sources';

/**
 * The tables derived from the attempt log, in the order a pass keeps them: the figures first (the others read
 * its rows: the error groups' days, the baselines, the stored spans), the stored spans last.
 */
export const rollupFamilies: readonly RollupFamily[] = [
  figuresFamily,
  errorGroupsFamily,
  executionShapesFamily,
  baselinesFamily,
  stepSourcesFamily,
  spansFamily,
];

export type { RollupFamily, RollupPass } from './family';
