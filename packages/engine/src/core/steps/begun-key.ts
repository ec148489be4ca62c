import { sql } from 'drizzle-orm';
import type { Transaction } from '../../db/client';
import type { CostSource, KeyStatus } from '../../db/schema';
import { ForbiddenError, NotFoundError } from '@holdfast/protocol/errors';
import type { FinishStepRequest } from '@holdfast/protocol/steps/step-protocol';
import type { CoreContext } from '../kernel/context';
import { fixedSql } from '../kernel/run-statement';
import type { BudgetReservation } from '../budgets/budget-reservations';

/** A finish with its cost settled: the stated one, or its tokens priced (packages/engine/src/core/pricing/cost-of-report.ts). */
export type PricedFinish = FinishStepRequest & { costMicros: number; costSource: CostSource };

/** The key a finish settles, as its begin left it, with its task's stored names. */
export type BegunKey = {
  key: string;
  status: KeyStatus;
  fencing_token: string;
  acquisitions: number;
  downstream_idempotent: boolean;
  lock_expired: boolean;
  task_id: string;
  step: string;
  agent: string | null;
  queue: string;
  /** The stored agent and queue of the key's task: they, not the key's copy, authorize the finish. */
  task_agent: string;
  task_queue: string;
  begun_by: string | null;
  /** The downstream the attempt's begin named, if any: its breaker counts this finish too. */
  downstream: string | null;
  /** The model the attempt's begin declared (lower-cased), if any: its budgets reserved under it. */
  model: string | null;
  payload: unknown;
  reserved_micros: string;
  /** The fleet's budgets the attempt reserved under (budget-reservations.ts). */
  budget_reservations: BudgetReservation[] | null;
  completes_task: boolean;
  attempt_started_at: string | null;
  finish_answer: unknown;
};

/** The key and its task's stored names, the key's row locked for the rest of the finish's transaction. */
const lockedKeyStatement = fixedSql<BegunKey>(
  () => sql`
    select k.key, k.status, k.fencing_token, k.acquisitions, k.downstream_idempotent, coalesce(k.locked_until <= now(), true) as lock_expired,
      k.task_id, k.step, k.agent, k.queue, k.payload, k.reserved_micros, k.budget_reservations, k.completes_task, k.attempt_started_at, k.finish_answer,
      k.begun_by, k.downstream, k.model, t.agent as task_agent, t.queue as task_queue
    from idempotency_keys k join task_budgets t on t.task_id = k.task_id
    where k.key = ${sql.placeholder('key')}::text for update of k`,
);

/** The key under its row lock, checked to be this attempt's: never begun is NOT_FOUND, superseded is STALE_TOKEN. */
export async function lockBegunKey(tx: Transaction, request: PricedFinish): Promise<BegunKey> {
  const [key] = await lockedKeyStatement(tx, { key: request.key });
  if (!key || key.agent === null || request.fencingToken > Number(key.fencing_token)) {
    throw new NotFoundError(
      `No step attempt was begun under key "${request.key}" with fencing token ${request.fencingToken}`,
    );
  }
  return key;
}

/**
 * A fencing token is a small number anyone may guess: the current attempt is
 * finished only by the API token that began it (in-process workers carry
 * none, and are trusted with their own keys).
 */
export function refuseOtherToken(ctx: CoreContext, key: BegunKey): void {
  if (!ctx.actor || key.begun_by === null || ctx.actor.id === key.begun_by) return;
  throw new ForbiddenError(
    `${ctx.actor.type}:${ctx.actor.id} may not finish the attempt under key "${key.key}": another API token began it`,
  );
}
