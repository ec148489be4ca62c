import 'server-only';
import { sql } from 'drizzle-orm';
import type { Executor } from '@holdfast/engine/db';
import { type ErrorClass, IS_RETRY } from '@holdfast/engine/db/schema';
import type { StepName } from '@holdfast/engine/rollups';
import type { TimeRange } from '@holdfast/protocol/time-window';

/**
 * What came just before a retry in its execution: the failed attempt's error class, or, rarely, `ok` (a step
 * run again after it succeeded, e.g. a redelivery) or `running` (a second copy started while the first still ran).
 */
export type RetryCause = ErrorClass | 'ok' | 'running';

export interface RetryCauseSpend {
  cause: RetryCause;
  /** Retries this cause was followed by. */
  retries: number;
  /** What those retries added to retry spend (a succeeded retry adds its first attempt's cost, a failed one its own). */
  retrySpendMicros: number;
}

export interface RetrySpendByCause {
  /** False until the rollup pass has filled the execution shapes (its first run after the upgrade that added them). */
  available: boolean;
  /** The executions counted: those whose first attempt started in these hours (whole UTC hours, the last may be open). */
  executionsBegun: TimeRange;
  /** Per step (`agent/step`), most retry spend first; a step without retries has no entry. */
  byStep: Map<string, RetryCauseSpend[]>;
}

const HOUR_MS = 3_600_000;

/**
 * Retry spend per step by the failure that caused each retry: every retry's share of retry spend (what it added
 * to its execution's spend beyond one try: packages/engine/src/core/attempts/retry-spend.ts) is attributed to the class of the
 * attempt before it in its execution (attempt 3 to attempt 2's class), not to the retry's own outcome.
 *
 * Read from the executions summed by shape per hour (execution_shape_hours, kept by the rollup pass for the
 * retry-policy simulator): a shape like `1:transient 2:timeout 3:ok` names each attempt's predecessor, so this
 * is a few rows per step and hour, never the raw log. The price is its scope: it counts the executions whose
 * first attempt started in the window's hours (the hour holding `from` to the one holding `to`) with all their
 * retries, as of the last rollup pass, where the Retry spend column counts the attempts that started in the
 * window. The two agree when no execution straddles the window's edges. Shapes are kept as long as the raw log.
 */
export async function getRetrySpendByCause(
  db: Executor,
  range: TimeRange,
  steps: StepName[],
): Promise<RetrySpendByCause> {
  const executionsBegun = { from: new Date(Math.floor(range.from.getTime() / HOUR_MS) * HOUR_MS), to: range.to };
  const byStep = new Map<string, RetryCauseSpend[]>();
  if (steps.length === 0) return { available: true, executionsBegun, byStep };

  const wanted = sql.join(
    steps.map(({ agent, step }) => sql`(${agent}::text, ${step}::text)`),
    sql`, `,
  );
  const rows = await db.execute<{
    filled: boolean;
    agent: string | null;
    step: string | null;
    cause: RetryCause | null;
    retries: string | null;
    retry_spend: string | null;
  }>(sql`
    with per_cause as (
      select agent, step,
        -- The token before this attempt's own (' 3:' cannot match inside ' 13:'): its class is the cause.
        -- A first attempt's share (its cost, written after a retry of it succeeded): its own class.
        case when attempt_number = 1 then substring(shape from '^1:([a-z_]+)')
          else substring(shape from '([a-z_]+) ' || attempt_number::text || ':') end as cause,
        coalesce(sum(executions) filter (where ${sql.raw(IS_RETRY)}), 0) as retries,
        sum(retry_cost_micros) as retry_spend
      from execution_shape_hours
      where (${sql.raw(IS_RETRY)} or retry_cost_micros > 0)
        and hour >= ${executionsBegun.from.toISOString()}::timestamptz and hour < ${range.to.toISOString()}::timestamptz
        and (agent, step) in (select wanted.agent, wanted.step from (values ${wanted}) as wanted(agent, step))
      group by 1, 2, 3
    )
    select state.filled, per_cause.*
    from (select coalesce((select (state->>'filled')::boolean from rollup_family_state
      where family = 'execution shapes'), false) as filled) as state
    left join per_cause on true`);

  const available = rows[0]?.filled === true;
  for (const row of rows) {
    if (!available || row.agent === null || row.step === null || row.cause === null) continue;
    const key = `${row.agent}/${row.step}`;
    const causes = byStep.get(key) ?? [];
    causes.push({ cause: row.cause, retries: Number(row.retries), retrySpendMicros: Number(row.retry_spend) });
    byStep.set(key, causes);
  }
  for (const causes of byStep.values())
    causes.sort((a, b) => b.retrySpendMicros - a.retrySpendMicros || a.cause.localeCompare(b.cause));
  return { available, executionsBegun, byStep };
}
