import { createHold, createStaleLock, forceReleaseFromRow } from '../support/factories';
import { expect, test } from '../support/fixtures';

/**
 * The owner's journey, from "my holds" to a cleared hold and a force-released lock: the sidebar's My holds lists
 * what their teams own, a hold is cleared from its row, and the lock an agent of theirs left behind is released
 * through its guards. Clicks counted: My holds, Clear, Resume, Locks, Force release…, Confirm release (6).
 */
test("an owner clears a hold from My holds and force-releases their agent's stale lock", async ({
  page,
  database,
  expectAccessible,
}) => {
  // The signed-in admin is in team platform, which owns the hold and the publishing agent that holds the lock.
  const hold = await createHold(database, { owner: 'team:platform' });
  const lock = await createStaleLock(database);

  await page.goto('/');
  await page.getByRole('link', { name: 'My holds' }).click();
  await expect(page).toHaveURL(/\/holds\?mine=1$/);
  const row = page.getByTestId(`hold-row-${hold.itemId}`);
  const badge = page.getByRole('navigation').getByTestId('sidebar-count-open');
  const openBefore = Number((await badge.textContent())?.match(/\d+/)?.[0]);
  await row.getByLabel('Note').fill('Checked with the customer: send it');
  await row.getByRole('button', { name: 'Clear' }).click();
  await page.getByRole('dialog', { name: 'Resume this hold?' }).getByRole('button', { name: 'Resume' }).click();
  await expect(page.getByTestId('toasts')).toContainText(`Hold on task ${hold.itemId} resumed.`);
  await expect(row).toHaveCount(0);
  // The sidebar's count agrees with the list at once, not at its next poll.
  if (openBefore > 1) await expect(badge).toHaveText(`${openBefore - 1} open`);
  else await expect(badge).toHaveCount(0);
  const [cleared] = await database.sql<{ status: string; resolution: string; cleared_by: string }[]>`
    select status, resolution, cleared_by from holds where id = ${hold.holdId}`;
  expect(cleared).toEqual({ status: 'cleared', resolution: 'resume', cleared_by: 'person:ada@holdfast.demo' });

  await page
    .getByRole('navigation')
    .getByRole('link', { name: /^Locks/ })
    .click();
  const lockRow = page.getByTestId(`lock-row-${lock.slot}`);
  await expect(lockRow.getByTestId('lock-owner').getByTestId('step-owner')).toHaveText(/^team:platform/);
  await expectAccessible();
  await forceReleaseFromRow(page, lock.slot, 'Our worker died in the deploy');
  await expect(lockRow).toHaveCount(0);
  const [released] = await database.sql<{ released: boolean }[]>`
    select released_at is not null as released from slot_locks where slot = ${lock.slot}`;
  expect(released).toEqual({ released: true });
});
