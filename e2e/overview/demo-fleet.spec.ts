import { formatCount } from '../../lib/console/format';
import { chargeCard, countDownstreamEffects, sendEmail } from '../../lib/fleet/downstreams';
import { applyFleetMigrations } from '../../lib/fleet/fleet-migrations';
import { uniqueId } from '../support/factories';
import { expect, test } from '../support/fixtures';

test("the Overview shows the fleet's real side effects beside the duplicates Holdfast absorbed", async ({
  page,
  database,
}) => {
  // The e2e server runs without the live fleet, so nothing has made the fleet's tables yet:
  // this test acts as the fleet does when it first starts (a no-op once they exist).
  await applyFleetMigrations(database.db);
  // The panel counts all time, so earlier tests' rows are in it: each figure is what was
  // there before plus exactly what this test adds, never just "some number".
  const before = await countDownstreamEffects(database.db);
  const taskId = uniqueId('e2e-fleet');
  await sendEmail(database.db, { taskId, recipient: 'a@customers.example', subject: 'Hello' });
  const charge = { idempotencyKey: `${taskId}/charge_card`, taskId, amountMicros: 1_000 };
  expect(await chargeCard(database.db, charge)).toEqual({ charged: true });
  // The provider deduplicates on its key: a repeated charge adds no row.
  expect(await chargeCard(database.db, charge)).toEqual({ charged: false });
  const [absorbed] = await database.sql<{ duplicates: number }[]>`
    select coalesce(sum(claim_calls - acquisitions), 0)::int as duplicates from idempotency_keys`;

  await page.goto('/');
  const panel = page.getByTestId('side-effects');
  await expect(panel).toContainText('what the downstreams really did');
  const figure = (testId: string) => panel.getByTestId(testId).locator('dd');
  await expect(figure('side-effects-emails')).toHaveText(formatCount(before.emailsSent + 1));
  await expect(figure('side-effects-payments')).toHaveText(formatCount(before.paymentsCharged + 1));
  await expect(figure('side-effects-pages')).toHaveText(formatCount(before.pagesPublished));
  // One email and one charge for this task: nothing of it happened twice.
  await expect(figure('side-effects-twice')).toHaveText(formatCount(before.tasksWithDuplicateEffects));
  await expect(figure('side-effects-absorbed')).toHaveText(formatCount(absorbed?.duplicates ?? 0));
});
