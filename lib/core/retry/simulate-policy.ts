import { sql } from 'drizzle-orm';
import type { ErrorClass } from '../../db/schema';
import { authorize } from '../identity/authorization';
import { nowOf, type CoreContext } from '../kernel/context';
import { InvalidInputError } from '../kernel/errors';
import { arrayParam } from '../kernel/sql-arrays';
import { parseInput } from '../kernel/validation';
import { simulatePolicyInput, type SimulatePolicyInput } from './simulate-policy-input';

const DAY_MS = 86_400_000;

/** What a policy would have changed, for the executions it would have stopped, per error class of the stopping failure. */
export interface SimulatedChange {
  /** Executions (a task's pass of the step) the policy would have stopped before they ended. */
  stoppedEarlier: number;
  /** Attempts that would not have been made, and what they cost (all of them retries). */
  attemptsSaved: number;
  retrySpendSavedMicros: number;
  /** Executions that succeeded only at an attempt the policy would not have made: they would have ended failed. */
  successesLost: number;
  /** From the stopping failure's end to the execution's real end, summed: how much sooner they would have ended. */
  timeSavedMs: number;
}

export interface PolicySimulation extends SimulatedChange {
  /** Executions of the step begun in the window (their first attempts). */
  executions: number;
  byErrorClass: (SimulatedChange & { errorClass: ErrorClass })[];
}

/**
 * Replays a step's recorded attempts over a window under another policy (at
 * most N attempts per execution, only some classes retried): an execution
 * stops at its first failed attempt numbered N or more, or whose class the
 * policy does not retry; every later attempt of it is one the policy would not
 * have made. Exact from the raw attempt log (two statements, the first
 * reading only failures and retries); the window must lie
 * within the raw retention (older attempts are only in rollups, which do not
 * say which attempt of which task they were).
 */
export async function simulateRetryPolicy(
  ctx: CoreContext,
  input: SimulatePolicyInput,
  options: { rawRetentionDays: number },
): Promise<PolicySimulation> {
  const request = parseInput(simulatePolicyInput, input);
  // A token limited to some agents replays only theirs.
  authorize(ctx, 'console.read', { agent: request.agent });
  const floor = new Date(nowOf(ctx).getTime() - options.rawRetentionDays * DAY_MS);
  if (request.from < floor) {
    throw new InvalidInputError(
      `The window starts before the raw attempts kept (${options.rawRetentionDays} days, from ${floor.toISOString()})`,
      { from: [`must be within the raw retention of ${options.rawRetentionDays} days (from ${floor.toISOString()})`] },
    );
  }
  const window = sql`agent = ${request.agent}::text and step = ${request.step}::text
    and started_at >= ${request.from.toISOString()}::timestamptz and started_at < ${request.to.toISOString()}::timestamptz`;
  // One read transaction: the replay's sort and hash join stay in memory (64 MB each instead of the default few),
  // and no time goes to compiling it (JIT costs more than it saves on a statement run once).
  const rows = await ctx.db.transaction(async (tx) => {
    await tx.execute(sql`set local work_mem = '64MB'`);
    await tx.execute(sql`set local jit = off`);
    return tx.execute<{
      error_class: ErrorClass | null;
      stopped_earlier: number;
      attempts_saved: number;
      spend_saved: string;
      successes_lost: number;
      time_saved_ms: string;
    }>(sql`
    with replayed as (
      -- Only these rows can change an answer: a failure may be where the policy stops, and only a retry (attempt 2
      -- or later) may be an attempt it would not have made. A first attempt that succeeded is left unread.
      select task_id, iteration, attempt_number, outcome, error_class, cost_micros, finished_at
      from attempts
      where ${window} and (attempt_number >= 2 or outcome = 'failed')
    ),
    stops as (
      select distinct on (task_id, iteration) task_id, iteration, attempt_number as stop_at, error_class as stop_class,
        finished_at as stopped_at
      from replayed
      where outcome = 'failed'
        and (attempt_number >= ${request.maxAttempts}::int or error_class <> all(${arrayParam(request.retriedClasses, 'error_class')}))
      order by task_id, iteration, attempt_number
    ),
    executions as (
      select s.stop_class,
        count(*) filter (where r.attempt_number > s.stop_at) as saved,
        coalesce(sum(r.cost_micros) filter (where r.attempt_number > s.stop_at), 0) as spend,
        coalesce(bool_or(r.outcome = 'succeeded' and r.attempt_number > s.stop_at), false) as lost,
        greatest(0, extract(epoch from max(r.finished_at) - min(s.stopped_at)) * 1000) as time_saved_ms
      from stops s join replayed r using (task_id, iteration)
      group by r.task_id, r.iteration, s.stop_class
    )
    select stop_class as error_class,
      count(*) filter (where saved > 0)::int as stopped_earlier,
      coalesce(sum(saved), 0)::int as attempts_saved,
      coalesce(sum(spend), 0)::text as spend_saved,
      count(*) filter (where lost)::int as successes_lost,
      coalesce(sum(time_saved_ms) filter (where saved > 0), 0)::text as time_saved_ms
    from executions group by stop_class`);
  });
  // Executions begun in the window: their first attempts.
  const [begun] = await ctx.db.execute<{ executions: number }>(
    sql`select count(*)::int as executions from attempts where ${window} and attempt_number = 1`,
  );

  const change = (row: (typeof rows)[number]): SimulatedChange => ({
    stoppedEarlier: row.stopped_earlier,
    attemptsSaved: row.attempts_saved,
    retrySpendSavedMicros: Number(row.spend_saved),
    successesLost: row.successes_lost,
    timeSavedMs: Math.round(Number(row.time_saved_ms)),
  });
  const byErrorClass = rows
    .filter((row) => row.error_class !== null && row.stopped_earlier + row.successes_lost > 0)
    .map((row) => ({ errorClass: row.error_class as ErrorClass, ...change(row) }))
    .sort((a, b) => b.retrySpendSavedMicros - a.retrySpendSavedMicros || a.errorClass.localeCompare(b.errorClass));
  const total = rows.map(change).reduce(
    (sum, each) => ({
      stoppedEarlier: sum.stoppedEarlier + each.stoppedEarlier,
      attemptsSaved: sum.attemptsSaved + each.attemptsSaved,
      retrySpendSavedMicros: sum.retrySpendSavedMicros + each.retrySpendSavedMicros,
      successesLost: sum.successesLost + each.successesLost,
      timeSavedMs: sum.timeSavedMs + each.timeSavedMs,
    }),
    { stoppedEarlier: 0, attemptsSaved: 0, retrySpendSavedMicros: 0, successesLost: 0, timeSavedMs: 0 },
  );
  return { executions: begun?.executions ?? 0, ...total, byErrorClass };
}
