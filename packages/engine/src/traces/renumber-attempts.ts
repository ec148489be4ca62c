import { sql } from 'drizzle-orm';
import type { Transaction } from '../db/client';
import { arrayParam } from '../core/kernel/sql-arrays';
import { attemptsWritten, TRY_COLUMNS } from './attempts-from-spans';
import type { GainingExecution } from './store-spans';

/**
 * An execution that had attempts before a batch gained a span: its attempts are taken out of the log and
 * numbered afresh from all its stored spans, in the batch's transaction (ingest-spans.ts).
 */

/** The executions as a relation `executions(task_id, step)`. */
function executionsOf(executions: readonly GainingExecution[]) {
  return sql`(select * from unnest(${arrayParam(
    executions.map((e) => e.taskId),
    'text',
  )}, ${arrayParam(
    executions.map((e) => e.step),
    'text',
  )}) as e(task_id, step))`;
}

/**
 * Takes the attempts of executions that had some before this batch out of the log (and their
 * identities), to be numbered afresh. The days of their spans bound the partitions searched.
 */
export async function forgetAttempts(tx: Transaction, executions: readonly GainingExecution[]): Promise<void> {
  if (executions.length === 0) return;
  await tx.execute(sql`
    with executions as ${executionsOf(executions)},
    calls as (
      select s.trace_id, s.span_id, s.started_at from trace_spans s
      join executions e on s.task_id = e.task_id and s.step = e.step where s.kind = 'call'),
    spans as (
      select started_at from calls
      union all
      select t.started_at from calls c
      join trace_spans t on t.trace_id = c.trace_id and t.parent_span_id = c.span_id and t.kind = 'http_try'),
    bounds as (select min(started_at) as earliest, max(started_at) as latest from spans),
    gone as (
      delete from attempts a using executions e
      where a.task_id = e.task_id and a.step = e.step and a.idempotency_key like 'span:%'
        and a.started_at >= (select earliest from bounds) and a.started_at <= (select latest from bounds)
      returning a.task_id, a.step, a.iteration, a.attempt_number)
    delete from attempt_identities i using gone
    where i.task_id = gone.task_id and i.step = gone.step and i.iteration = gone.iteration
      and i.attempt_number = gone.attempt_number`);
}

/** Numbers the attempts of these executions afresh from all their stored spans, and writes them. */
export async function numberAttempts(tx: Transaction, executions: readonly GainingExecution[]): Promise<void> {
  if (executions.length === 0) return;
  await tx.execute(sql`
    with executions as ${executionsOf(executions)},
    calls as (
      select s.* from trace_spans s
      join executions e on s.task_id = e.task_id and s.step = e.step where s.kind = 'call'),
    candidate_tries as materialized (
      select ${TRY_COLUMNS} from calls c
      join trace_spans t on t.trace_id = c.trace_id and t.parent_span_id = c.span_id and t.kind = 'http_try'),
    ${attemptsWritten(true)}
    select count(*) from written`);
}
