import fs from 'node:fs/promises';
import { createHold, uniqueTeam } from '../support/factories';
import { expect, test } from '../support/fixtures';

test('a cleared hold shows in the audit log with its change, and the filtered view exports as CSV', async ({
  page,
  database,
  expectAccessible,
}) => {
  const {
    itemId: taskId,
    holdId,
    owner,
  } = await createHold(database, {
    agent: 'payments',
    reason: 'needs_approval',
    owner: `team:${uniqueTeam()}`,
    detail: 'Refund over the limit',
  });

  // Filtered to the hold's own team: holds come 50 a page, and other specs park work too.
  await page.goto(`/holds?owner=${encodeURIComponent(owner)}`);
  const row = page.getByTestId(`hold-row-${taskId}`);
  await row.getByLabel('Resolution').selectOption('resume');
  await row.getByLabel('Note').fill('Approved, "urgent", by finance');
  await row.getByRole('button', { name: 'Clear' }).click();
  await page.getByRole('dialog', { name: 'Resume this hold?' }).getByRole('button', { name: 'Resume' }).click();
  await expect(row).toHaveCount(0);

  await page.goto('/audit');
  const filters = page.getByTestId('audit-filters');
  await filters.getByLabel('Target type').fill('hold');
  await filters.getByLabel('Target id').fill(String(holdId));
  await filters.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(new RegExp(`targetId=${holdId}`));
  const table = page.getByTestId('audit-table');
  await expect(table.locator('tbody tr')).toHaveCount(2); // opened by the agent, cleared by the admin
  const cleared = table.locator('tbody tr').first();
  await expect(cleared).toContainText('person:ada@holdfast.demo');
  await expect(cleared).toContainText('hold.clear.resume');
  await expect(cleared).toContainText('Approved, "urgent", by finance');
  // Before and after, as the fields that changed.
  await expect(cleared.locator('dt', { hasText: 'status' })).toBeVisible();
  await expect(cleared.locator('dd', { hasText: 'open → cleared' })).toBeVisible();
  await expectAccessible();

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('audit-export').click()]);
  expect(download.suggestedFilename()).toMatch(/^holdfast-audit-.*\.csv$/);
  const csv = await fs.readFile(await download.path(), 'utf8');
  const lines = csv.trimEnd().split('\r\n');
  expect(lines[0]).toBe('occurred_at,actor_type,actor_id,action,target_type,target_id,reason,before,after');
  expect(lines).toHaveLength(3);
  expect(lines[1]).toContain(
    `person,ada@holdfast.demo,hold.clear.resume,hold,${holdId},"Approved, ""urgent"", by finance"`,
  );
});
