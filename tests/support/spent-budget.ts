import { randomUUID } from 'node:crypto';
import type postgres from 'postgres';
import { saveSpendBudget } from '../../packages/engine/src/core';
import { admin } from './actors';
import type { Database } from '../../packages/engine/src/db';

/**
 * A fleet spend budget on a queue of its own, already spent for today (UTC) as if its agents' reported spend had
 * filled it: every begin on the queue is refused as the budget says (`stop` or `wait`). Answers the budget's name and
 * the queue a task names to fall under it.
 */
export async function aSpentQueueBudget(
  database: { db: Database; sql: postgres.Sql },
  onExhausted: 'stop' | 'wait',
): Promise<{ name: string; queue: string }> {
  const queue = `budgeted-${randomUUID().slice(0, 8)}`;
  const name = await aSpentBudget(database, { scope: 'queue', scopeValue: queue, onExhausted });
  return { name, queue };
}

/** The same for a model's budget (waits when spent): every begin declaring the model is refused today. */
export async function aSpentModelBudget(
  database: { db: Database; sql: postgres.Sql },
  model: string,
): Promise<{ name: string }> {
  return { name: await aSpentBudget(database, { scope: 'model', scopeValue: model, onExhausted: 'wait' }) };
}

async function aSpentBudget(
  database: { db: Database; sql: postgres.Sql },
  budget: { scope: 'queue' | 'model'; scopeValue: string; onExhausted: 'stop' | 'wait' },
): Promise<string> {
  const name = `${budget.scopeValue} per day ${randomUUID().slice(0, 4)}`;
  await saveSpendBudget(
    { db: database.db, actor: admin },
    { name, ...budget, period: 'day', limitUsd: 1, reason: 'adapter test' },
  );
  await database.sql`
    insert into spend_budget_usage (budget_id, period_start, spent_micros, seen_micros)
    select id, date_trunc('day', now(), 'UTC'), 1000000, 1000000 from spend_budgets where name = ${name}`;
  return name;
}
