import { sql } from 'drizzle-orm';
import { deleteSpans, storeSpans } from '../spans';
import type { RollupFamily } from './family';

/**
 * The stored spans (spans.ts): every named window's sums per step, from the rollups just written, so a reader of
 * every step's figures reads a row per step instead of a window's edges. A span reaching back past the rollups'
 * cutoff would outlive the rows it sums: it goes, and readers sum the rollups left.
 */
export const spansFamily: RollupFamily = {
  name: 'stored spans',
  async afterWatermarks(tx, pass) {
    if (pass.withoutSpans) await deleteSpans(tx, sql`true`);
    else await storeSpans(tx, new Date(pass.rolledTo), pass.ranges, { changesNoted: pass.changesNoted });
  },
  async deleteWithRollups(tx, cutoff) {
    await deleteSpans(tx, sql`span_from < ${cutoff.toISOString()}::timestamptz`);
    return 0;
  },
};
