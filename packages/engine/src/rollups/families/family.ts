import type { SQL } from 'drizzle-orm';
import type { Transaction } from '../../db/client';
import type { HourRange } from '../execution-shapes';
import type { FamilyState } from '../family-state';

/** What one rollup pass knows, for every family it keeps (roll-up.ts reads it under the state row's lock). */
export interface RollupPass {
  now: Date;
  /** The ranges of whole hours recomputed from the raw log (newly closed ones and re-rolls), in order. */
  ranges: HourRange[];
  /** Every closed hour before it is rolled up once the pass commits (epoch ms). */
  rolledTo: number;
  /** The open hour's start (epoch ms). */
  openHour: number;
  /** The raw log's retention floor, as a whole hour (epoch ms): hours before it are never recomputed. */
  floor: number;
  /** The database was restored into another cluster (or never rolled): what was stored is not trusted. */
  restored: boolean;
  /** The pass before this one had rolled nothing (a new database, or the state reset). */
  firstPass: boolean;
  /** Rows written by transactions from `since` up to `horizon` (xid8 text) are this pass's to see. */
  since: string;
  horizon: string;
  /** What a family saved at an earlier pass (rollup_family_state), by its name; empty when it saved nothing yet. */
  stateOf(family: string): FamilyState;
  /** The pass notes its changes to the hourly rows for the stored spans (families/spans.ts). */
  changesNoted: boolean;
  /** Measurement only (scripts/measure-rollup-caches.ts): the stored spans are left out, their tables emptied. */
  withoutSpans: boolean;
  /** Whether [start, end) lies in a stored span the pass moves instead of summing afresh. */
  inHeldSpan(start: number, end: number): boolean;
}

export type RollupStateRow = {
  rolled_to: Date | null;
  processed_xid: string;
  snapshot: string;
};

/**
 * One family of tables derived from the attempt log, and how the rollup pass keeps it: its hourly rows recomputed
 * for each range the pass rolls, its daily rows for each day that closed, its once-a-pass work, and what each
 * retention takes. A new analytics feature is one family file and one line in families/index.ts.
 */
export interface RollupFamily {
  name: string;
  /** Recomputes the family's rows of the whole hours [start, end), from the raw log or finer rows. */
  rollHours?(
    tx: Transaction,
    range: { start: SQL; end: SQL; from: number; to: number },
    pass: RollupPass,
  ): Promise<void>;
  /** Recomputes the family's daily rows of these whole days (all of their hours rolled), from its hourly rows. */
  rollDays?(tx: Transaction, days: { list: SQL; inDays: SQL }): Promise<void>;
  /** Once a pass, after the ranges and days and before the watermarks move. */
  afterRanges?(tx: Transaction, pass: RollupPass): Promise<void>;
  /** Once a pass, after the watermarks moved (in the same transaction). */
  afterWatermarks?(tx: Transaction, pass: RollupPass): Promise<void>;
  /** Deletes the rows that serve only while the raw log covers them (the raw log's retention). */
  deleteWithRawLog?(tx: Transaction, rawFloor: Date): Promise<number>;
  /** Deletes the rows past the rollups' own retention. */
  deleteWithRollups?(tx: Transaction, cutoff: Date): Promise<number>;
}
