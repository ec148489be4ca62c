import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { claimKey, runStep } from '../../packages/engine/src/core';
import { expect, test } from '../support/fixtures';

test("looks up a task's key and reads its status, stored result and attempts; lists an uncertain key", async ({
  page,
  database,
  expectAccessible,
}) => {
  const taskId = `keys-${randomUUID().slice(0, 8)}`;
  await runStep(
    { db: database.db },
    { taskId, agent: 'payments', step: 'charge', owner: 'team:payments', content: { amount: 4200 } },
    async () => ({
      result: { chargeId: 'ch_123' },
      costMicros: 1_500,
    }),
  );
  // A raw key, named as stored (raw: prefix): the test moves its claim by hand.
  const uncertainKey = `raw:${taskId}/send-receipt`;
  await claimKey(
    { db: database.db },
    { key: uncertainKey, requestHash: 'h', downstreamIdempotent: false, taskId, step: 'send-receipt' },
  );
  await database.db.execute(
    sql`update idempotency_keys set locked_until = now() - interval '1 minute' where key = ${uncertainKey}`,
  );

  await page.goto('/keys');
  await expect(page.getByTestId('keys-uncertain')).toContainText(uncertainKey);
  const search = page.getByTestId('key-search');
  await search.getByLabel('Task').fill(taskId);
  await search.getByRole('button', { name: 'Look up' }).click();
  await expect(page).toHaveURL(new RegExp(`taskId=${taskId}`));
  await page
    .getByTestId('keys-found')
    .getByRole('link', { name: `${taskId}/charge` })
    .click();

  const detail = page.getByTestId('key-detail');
  await expect(detail.getByTestId('key-status')).toHaveText('completed');
  await expect(detail).toContainText('{"chargeId":"ch_123"}');
  await expect(detail.getByTestId('key-attempts')).toContainText('#1 succeeded');
  await expectAccessible();
});
