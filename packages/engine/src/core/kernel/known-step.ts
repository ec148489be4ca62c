import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';

/**
 * Whether anything names this step: an attempt (any time still kept), a rollup
 * row (hours kept after their attempts), or a retry pool set for exactly this
 * step. A step none of these name is unknown, and its page answers 404. A
 * pool for all of an agent's steps (`*`) names no step in particular.
 */
export async function stepExists(db: Executor, names: { agent: string; step: string }): Promise<boolean> {
  const [row] = await db.execute<{ known: boolean }>(sql`
    select exists (select 1 from attempts where agent = ${names.agent} and step = ${names.step})
      or exists (select 1 from attempt_rollups where agent = ${names.agent} and step = ${names.step})
      or exists (select 1 from retry_pools where agent = ${names.agent} and step = ${names.step}) as known`);
  return row?.known === true;
}

/** Whether anything names this agent: an attempt (any time still kept), a rollup row or a retry pool. */
export async function agentExists(db: Executor, agent: string): Promise<boolean> {
  const [row] = await db.execute<{ known: boolean }>(sql`
    select exists (select 1 from attempts where agent = ${agent})
      or exists (select 1 from attempt_rollups where agent = ${agent})
      or exists (select 1 from retry_pools where agent = ${agent}) as known`);
  return row?.known === true;
}
