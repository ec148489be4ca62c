import { sql } from 'drizzle-orm';
import type { Executor } from '@holdfast/engine/db';
import { fleetEmailOutbox, fleetPaymentLedger, fleetPublications } from './tables';

/**
 * The simulated services the demo agents act on. Each call that returns has
 * really happened (a row was written); duplicates show up as extra rows,
 * except at the payment provider, which deduplicates on its idempotency key.
 */
export async function sendEmail(
  db: Executor,
  email: { taskId: string; recipient: string; subject: string },
): Promise<void> {
  await db.insert(fleetEmailOutbox).values(email);
}

/** Charges once per idempotency key; a repeat returns the first charge. */
export async function chargeCard(
  db: Executor,
  charge: { idempotencyKey: string; taskId: string; amountMicros: number },
): Promise<{ charged: boolean }> {
  const [created] = await db
    .insert(fleetPaymentLedger)
    .values(charge)
    .onConflictDoNothing()
    .returning({ key: fleetPaymentLedger.idempotencyKey });
  return { charged: created !== undefined };
}

export async function publishPage(db: Executor, publication: { taskId: string; page: string }): Promise<string> {
  const [row] = await db.insert(fleetPublications).values(publication).returning({ id: fleetPublications.id });
  return `publication-${row!.id}`;
}

export interface DownstreamCounts {
  emailsSent: number;
  paymentsCharged: number;
  pagesPublished: number;
  /** Tasks with a side effect that happened more than once; zero when Holdfast did its job. */
  tasksWithDuplicateEffects: number;
}

/** What the downstreams really did, for the Overview and the fleet test. Needs the fleet's tables. */
export async function countDownstreamEffects(db: Executor, taskPrefix = ''): Promise<DownstreamCounts> {
  const prefix = `${taskPrefix}%`;
  const [row] = await db.execute<{ emails: number; payments: number; pages: number; duplicated: number }>(sql`
    select
      (select count(*)::int from ${fleetEmailOutbox} where task_id like ${prefix}) as emails,
      (select count(*)::int from ${fleetPaymentLedger} where task_id like ${prefix}) as payments,
      (select count(*)::int from ${fleetPublications} where task_id like ${prefix}) as pages,
      (select count(*)::int from (
         select task_id from ${fleetEmailOutbox} where task_id like ${prefix} group by task_id having count(*) > 1
         union all
         select task_id from ${fleetPublications} where task_id like ${prefix} group by task_id having count(*) > 1) as twice) as duplicated`);
  return {
    emailsSent: row?.emails ?? 0,
    paymentsCharged: row?.payments ?? 0,
    pagesPublished: row?.pages ?? 0,
    tasksWithDuplicateEffects: row?.duplicated ?? 0,
  };
}
