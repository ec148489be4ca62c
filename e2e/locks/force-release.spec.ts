import { createStaleLock } from '../support/factories';
import { expect, test } from '../support/fixtures';

test('force-releases a stale lock whose guards all pass, and shows why another cannot be released', async ({
  page,
  database,
  expectAccessible,
}) => {
  const releasable = await createStaleLock(database);
  const guarded = await createStaleLock(database, { runStillLive: true });
  await page.goto('/locks');

  const blockedRow = page.getByTestId(`lock-row-${guarded.slot}`);
  await expect(blockedRow.getByTestId('guard-holder_run_finished')).toHaveAttribute('data-passes', 'false');
  await expect(blockedRow.getByTestId('guard-holder_run_finished')).toContainText(`run ${guarded.runKey} is running`);
  await expect(blockedRow.getByRole('button', { name: 'Force release…' })).toBeDisabled();
  await expect(blockedRow.getByLabel('Reason for the release')).toHaveCount(0);
  await expect(blockedRow.getByTestId('force-release-blocked')).toContainText('its run is finished: no');

  const row = page.getByTestId(`lock-row-${releasable.slot}`);
  for (const guard of ['past_ttl', 'holder_run_finished', 'no_evidence', 'kill_switch_off']) {
    await expect(row.getByTestId(`guard-${guard}`)).toHaveAttribute('data-passes', 'true');
  }
  await expectAccessible();
  await row.getByLabel('Reason for the release').fill('Worker died during the deploy');
  await row.getByRole('button', { name: 'Force release…' }).click();
  await page
    .getByRole('dialog', { name: `Force release ${releasable.slot}?` })
    .getByRole('button', { name: 'Confirm release' })
    .click();
  await expect(page.getByTestId(`lock-row-${releasable.slot}`)).toHaveCount(0);
  await expect(page.getByTestId(`lock-row-${guarded.slot}`)).toBeVisible();
});
