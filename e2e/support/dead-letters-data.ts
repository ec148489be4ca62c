import type { DatabaseConnection } from '../../packages/engine/src/db/client';
import { uniqueId } from './factories';

/**
 * Many pending dead letters at once, for paging: what `createDeadLetter` makes
 * through runStep (the task's budget row marked dead-lettered, the dead letter,
 * its open hold for the owner and the hold's audit record), written in one
 * transaction by one statement rather than 450 runs of the step engine. They
 * share one created_at (one statement, one now()), so the list's order rests
 * on its tie-break by id: the hardest case for paging. They sit on a queue of
 * their own, so a queue filter shows exactly them. Returns their ids in the
 * list's order.
 */
export async function insertDeadLetters(
  database: DatabaseConnection,
  options: { queue: string; count: number; errorText?: string },
): Promise<number[]> {
  const prefix = uniqueId(options.queue);
  const errorText = options.errorText ?? '400: template missing';
  const rows = await database.sql<{ id: string }[]>`
    with tasks as (
      insert into task_budgets
        (task_id, agent, owner, retry_allowance, spend_ceiling_micros, time_allowance_ms, deadline, status)
      select ${prefix} || '-' || n, 'publishing', 'team:web', 5, 5000000, 86400000,
             now() + interval '1 day', 'dead_lettered'
      from generate_series(1, ${options.count}::int) n
      returning task_id
    ), letters as (
      insert into dead_letters
        (task_id, agent, step, queue, payload, reason, error_class, last_error, attempts, spend_micros)
      select task_id, 'publishing', 'publish', ${options.queue}, jsonb_build_object('page', task_id),
             'permanent_error', 'permanent', ${errorText}, 1, 0
      from tasks
      returning id, step, attempts, error_class, last_error
    ), opened as (
      insert into holds (item_type, item_id, reason, detail, owner, opened_by)
      select 'dead_letter', id::text, 'permanent_error',
             left(step || ' stopped after ' || attempts || ' attempt(s): ' || error_class || ' — ' || last_error, 5000),
             'team:web', 'agent:publishing'
      from letters
      returning id, item_type, item_id, reason, owner, detail
    ), audited as (
      insert into audit_log (actor_type, actor_id, action, target_type, target_id, reason, after)
      select 'agent', 'publishing', 'hold.open', 'hold', id::text, detail,
             jsonb_build_object('itemType', item_type, 'itemId', item_id, 'reason', reason, 'owner', owner)
      from opened
    )
    select id from letters order by id`;
  return rows.map((row) => Number(row.id));
}
