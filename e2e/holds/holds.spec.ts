import { sql } from 'drizzle-orm';
import { createHold, uniqueTeam } from '../support/factories';
import { expect, test } from '../support/fixtures';

test('filters holds by reason, owner and age, flags frozen ones, reassigns one and clears a selection with one note', async ({
  page,
  database,
  expectAccessible,
}) => {
  const owner = `team:${uniqueTeam()}`;
  const [first, second, old] = [
    (await createHold(database, { agent: 'ops', owner })).itemId,
    (await createHold(database, { agent: 'ops', owner })).itemId,
    (await createHold(database, { agent: 'ops', owner })).itemId,
  ];
  // One has waited past the frozen threshold (3 days by default).
  await database.db.execute(sql`update holds set opened_at = now() - interval '4 days' where item_id = ${old}`);

  await page.goto('/holds');
  await page
    .getByTestId('hold-reason-counts')
    .getByRole('link', { name: /Blocked by policy/ })
    .click();
  await expect(page).toHaveURL(/reason=policy_blocked/);
  const filters = page.getByTestId('hold-filters');
  await filters.getByLabel('Owner').selectOption(owner);
  await filters.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(new RegExp(`owner=${encodeURIComponent(owner)}`));
  await expect(page.getByTestId('holds-table').locator('tbody tr')).toHaveCount(3);
  // The reason chips count within the other filters: this owner's three holds, all blocked by policy.
  await expect(page.getByTestId('hold-reason-counts').getByRole('link')).toHaveCount(1);
  await expect(page.getByTestId('hold-reason-counts')).toContainText('policy_blocked 3');
  await expect(page.getByTestId(`hold-row-${old}`).getByTestId('frozen-badge')).toBeVisible();
  await expect(page.getByTestId(`hold-row-${first}`).getByTestId('frozen-badge')).toHaveCount(0);
  await expectAccessible();

  await filters.getByLabel('Waiting at least (hours)').fill('48');
  await filters.getByRole('button', { name: 'Apply' }).click();
  await expect(page.getByTestId('holds-table').locator('tbody tr')).toHaveCount(1);
  await page.goto(`/holds?owner=${encodeURIComponent(owner)}`);

  // Reassign the old one to the payments team.
  const oldRow = page.getByTestId(`hold-row-${old}`);
  await oldRow.getByRole('button', { name: 'Reassign…' }).click();
  await oldRow.getByLabel('New owner').fill('team:payments');
  await oldRow.getByLabel('Reassign note').fill('Payments owns this policy');
  await oldRow.getByRole('button', { name: 'Reassign', exact: true }).click();
  await expect(oldRow).toHaveCount(0); // no longer this owner's

  // Clear the other two together, with one note: nothing ticked, nothing to clear.
  const bulk = page.getByTestId('bulk-clear-form');
  await expect(bulk.getByRole('button', { name: 'Clear selected' })).toBeDisabled();
  await expect(bulk.getByTestId('bulk-clear-none')).toHaveText('Tick the holds to clear together.');
  await page.getByLabel(`Select hold on task ${first}`).check();
  await page.getByLabel(`Select hold on task ${second}`).check();
  await expect(bulk.getByRole('button', { name: 'Clear selected (2)' })).toBeEnabled();
  await bulk.getByLabel('Note for all of them').fill('Policy exception granted');
  await bulk.getByRole('button', { name: 'Clear selected' }).click();
  await expect(bulk.getByTestId('bulk-clear-result')).toHaveText('2 cleared.');
  await expect(page.getByTestId('holds-empty')).toBeVisible();

  // Cleared holds stay viewable, with who, when and why.
  await page.goto(`/holds?view=cleared&owner=${encodeURIComponent(owner)}`);
  await expect(page.getByTestId(`hold-row-${first}`).getByTestId('hold-resolution')).toHaveText(
    'resume by person:ada@holdfast.demo: Policy exception granted',
  );
  await expect(page.getByTestId(`hold-row-${second}`)).toBeVisible();
});
