import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { beforeEach } from 'vitest';
import { createSigningSecret } from '../../packages/engine/src/alerts/signature';
import type { Database } from '../../packages/engine/src/db/client';
import {
  type AlertChannel,
  type AlertInstance,
  alertChannels,
  alertInstances,
  alertRules,
} from '../../packages/engine/src/db/schema';
import type { useTestDatabase } from './test-database';

/** An alert as the evaluator would have fired it (a stale lock, firing now); a test names what it is about. */
export async function insertAlert(
  db: Database,
  fields: Partial<typeof alertInstances.$inferInsert> = {},
): Promise<AlertInstance> {
  const [alert] = await db
    .insert(alertInstances)
    .values({
      kind: 'stale_lock',
      identity: `lock:${randomUUID()}`,
      title: 'Stale lock',
      detail: 'slot x',
      link: '/locks',
      ...fields,
    })
    .returning();
  if (!alert) throw new Error('insertAlert: insert returned no row');
  return alert;
}

/** A signed webhook channel to a port nothing listens on, as an admin would have added it. */
export async function insertWebhookChannel(
  db: Database,
  fields: Partial<typeof alertChannels.$inferInsert> = {},
): Promise<AlertChannel> {
  const [channel] = await db
    .insert(alertChannels)
    .values({
      name: `channel-${randomUUID()}`,
      kind: 'webhook',
      url: 'http://127.0.0.1:9/hook',
      urlHint: 'http://127.0.0.1:9/…',
      signingSecret: createSigningSecret(),
      createdBy: 'person:admin@example.com',
      ...fields,
    })
    .returning();
  if (!channel) throw new Error('insertWebhookChannel: insert returned no row');
  return channel;
}

/**
 * Each test in an hour of its own (so one test's refusal minutes are out of the next one's five-minute window),
 * with one fresh channel and only the budget refusal rule on. `at(m)` is minute m of the test's hour.
 */
export function useAlertHours(database: ReturnType<typeof useTestDatabase>) {
  const minute = 60_000;
  let start = new Date(Math.floor(Date.now() / minute) * minute);
  beforeEach(async () => {
    start = new Date(start.getTime() + 3 * 3_600_000);
    await database.sql`update alert_channels set deleted_at = now() where deleted_at is null`;
    await database.db.update(alertRules).set({ enabled: sql`${alertRules.kind} = 'budget_refusals'` });
    await insertWebhookChannel(database.db);
  });
  return { at: (minutes: number) => new Date(start.getTime() + minutes * minute) };
}
