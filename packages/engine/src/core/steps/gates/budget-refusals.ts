import { sql } from 'drizzle-orm';
import type { CoreContext } from '../../kernel/context';
import type { ExhaustionReason } from '../exhaust-task';

/**
 * The bounded `reason` label of a budget refusal (holdfast_budget_refusals_total).
 * A begin is refused only for the first three (the task gate); the other two
 * end a step at its finish, and are listed so the map stays exhaustive.
 */
export const refusalLabel = {
  retry_ceiling: 'retries',
  corrective_retry_used: 'retries',
  budget_exhausted: 'spend',
  deadline_passed: 'deadline',
  permanent_error: 'permanent',
} as const satisfies Record<ExhaustionReason, string>;

/**
 * Counts a begin refused for want of budget: +1 to its running total and to
 * the current minute's count (the budget-refusal alert's rate), one statement.
 * It runs after the refused transaction rolled back, or the count would vanish
 * with it. A failure here is swallowed: the refusal is the agent's answer and
 * the dead letter or wait it gets must not turn into an error because a
 * metric could not be written; a lost count only understates a counter.
 */
export async function countBudgetRefusal(
  ctx: CoreContext,
  agent: string,
  step: string,
  reason: (typeof refusalLabel)[ExhaustionReason] | 'pool' | 'budget',
  now: Date,
): Promise<void> {
  try {
    await ctx.db.execute(sql`
      with minute as (
        insert into budget_refusal_minutes (minute, agent, step, reason, refusals)
        values (date_trunc('minute', ${now.toISOString()}::timestamptz, 'UTC'), ${agent}::text, ${step}::text, ${reason}::text, 1)
        on conflict (minute, agent, step, reason) do update set refusals = budget_refusal_minutes.refusals + 1
      )
      insert into budget_refusal_totals (agent, step, reason, refusals)
      values (${agent}::text, ${step}::text, ${reason}::text, 1)
      on conflict (agent, step, reason) do update set refusals = budget_refusal_totals.refusals + 1`);
  } catch {
    // See above: the answer to the agent does not depend on the count.
  }
}
