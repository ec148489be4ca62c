import { noteStepSources } from '../step-sources';
import type { RollupFamily } from './family';

/** Which paths each step's attempts came by (step-sources.ts), from the rows this pass sees; all of them after a restore. */
export const stepSourcesFamily: RollupFamily = {
  name: 'step sources',
  afterRanges: (tx, pass) => noteStepSources(tx, pass.restored ? '0' : pass.since, pass.horizon),
};
