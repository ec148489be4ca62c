import type { Executor } from '../db/client';

/**
 * What every library operation runs with: the database (or a transaction the
 * caller already opened, which the operation then joins).
 */
export interface CoreContext {
  db: Executor;
}
