import { sql } from 'drizzle-orm';
import { claimKey, openHold } from '../../packages/engine/src/core';
import { uniqueId } from '../support/factories';
import { expect, test } from '../support/fixtures';

test('an uncertain key links to its hold, and settling it from Holds says what was done: left as done, not "discarded"', async ({
  page,
  database,
}) => {
  const key = `raw:${uniqueId('e2e-uncertain')}/charge_card`;
  await claimKey(
    { db: database.db },
    {
      key,
      requestHash: 'h',
      holder: 'run-1',
      downstreamIdempotent: false,
      inProgressTtlMs: 60_000,
      step: 'charge_card',
    },
  );
  await database.db.execute(
    sql`update idempotency_keys set locked_until = now() - interval '1 minute' where key = ${key}`,
  );
  await openHold(
    { db: database.db, actor: { type: 'agent', id: 'e2e-agent', scopes: ['ingest'] } },
    {
      itemType: 'key',
      itemId: key,
      reason: 'uncertain_outcome',
      owner: 'team:platform',
      detail: 'The charge may or may not have gone through',
    },
  );
  // The key's own page says where it is settled.
  await page.goto(`/keys?show=${encodeURIComponent(key)}`);
  await page.getByTestId('key-hold-link').click();
  await expect(page).toHaveURL('/holds?reason=uncertain_outcome');
  const row = page.getByTestId(`hold-row-${key}`);
  await row.getByLabel('Resolution').selectOption('discard');
  await row.getByLabel('Note').fill('checked the PSP: the charge went through');
  await row.getByRole('button', { name: 'Clear' }).click();
  await page.getByRole('dialog', { name: 'Leave it as done?' }).getByRole('button', { name: 'Leave as done' }).click();
  await expect(page.getByTestId('toasts')).toContainText('left as done.');
  await expect(page.getByTestId('toasts')).not.toContainText('discarded');
  const [settled] = await database.db.execute<{ status: string }>(
    sql`select status from idempotency_keys where key = ${key}`,
  );
  expect(settled?.status).toBe('completed');
});
