import { randomUUID } from 'node:crypto';
import { fleetEmailOutbox, fleetPaymentLedger } from '../lib/db/schema';
import { expect, test } from './support/fixtures';

test("the Overview shows the fleet's real side effects beside the duplicates Holdfast absorbed", async ({
  page,
  database,
}) => {
  const taskId = `e2e-fleet-${randomUUID().slice(0, 8)}`;
  await database.db.insert(fleetEmailOutbox).values({ taskId, recipient: 'a@customers.example', subject: 'Hello' });
  await database.db
    .insert(fleetPaymentLedger)
    .values({ idempotencyKey: `${taskId}/charge_card`, taskId, amountMicros: 1_000 });
  await page.goto('/');
  const panel = page.getByTestId('side-effects');
  await expect(panel).toContainText('what the downstreams really did');
  await expect(panel.getByTestId('side-effects-twice')).toContainText('0');
  await expect(panel.getByTestId('side-effects-emails')).not.toContainText(/^Emails sent0$/);
});
