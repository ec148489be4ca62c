import { deleteErrorGroupsBefore, rollErrorGroupDays, rollErrorGroupHours } from '../error-groups';
import type { RollupFamily } from './family';

/** The error groups' hourly and daily counts (error-groups.ts), kept as long as the rollups. */
export const errorGroupsFamily: RollupFamily = {
  name: 'error groups',
  rollHours: (tx, { start, end }) => rollErrorGroupHours(tx, start, end),
  rollDays: (tx, { list }) => rollErrorGroupDays(tx, list),
  deleteWithRollups: (tx, cutoff) => deleteErrorGroupsBefore(tx, cutoff),
};
