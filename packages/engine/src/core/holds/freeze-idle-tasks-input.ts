import { z } from 'zod';

export const DEFAULT_FROZEN_AFTER_DAYS = 3;
/** Tasks frozen per transaction: each batch is one bounded statement plus a hold per task. */
export const DEFAULT_FREEZE_BATCH_SIZE = 500;
/**
 * How long one pass keeps taking batches before it stops and leaves the rest to the next fire in
 * the same bucket (like a bulk redrive's 20 s a pass): the other sweeps are never held up for long.
 */
export const DEFAULT_FREEZE_TIME_BUDGET_MS = 20_000;

export const freezeIdleTasksOptions = z.strictObject({
  /** Days without a state change after which an active task is frozen. */
  idleDays: z.number().positive().max(3_650).default(DEFAULT_FROZEN_AFTER_DAYS),
  batchSize: z.number().int().min(1).max(1_000).default(DEFAULT_FREEZE_BATCH_SIZE),
  /**
   * Measured by the context's clock. A pass always does at least one batch; at most 10 minutes,
   * well inside the sweep lease's 15, so a live pass is never taken over.
   */
  timeBudgetMs: z
    .number()
    .int()
    .min(0)
    .max(10 * 60_000)
    .default(DEFAULT_FREEZE_TIME_BUDGET_MS),
});

export type FreezeIdleTasksOptions = z.input<typeof freezeIdleTasksOptions>;
