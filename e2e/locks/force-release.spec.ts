import { createStaleLock, forceReleaseFromRow } from '../support/factories';
import { expect, signInAs, test } from '../support/fixtures';

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
  // Whose run holds it, and whom to ask: the agent's owner.
  await expect(row.getByTestId('lock-owner')).toContainText('publishing');
  await expect(row.getByTestId('lock-owner').getByTestId('step-owner')).toHaveText(/^team:platform/);
  for (const guard of ['past_ttl', 'holder_run_finished', 'no_evidence', 'kill_switch_off']) {
    await expect(row.getByTestId(`guard-${guard}`)).toHaveAttribute('data-passes', 'true');
  }
  await expectAccessible();
  await forceReleaseFromRow(page, releasable.slot, 'Worker died during the deploy');
  await expect(page.getByTestId(`lock-row-${releasable.slot}`)).toHaveCount(0);
  await expect(page.getByTestId(`lock-row-${guarded.slot}`)).toBeVisible();
});

test('an admin releases a stuck lock over its guards with a reason; the row says when the sweeper escalates it', async ({
  page,
  database,
  expectAccessible,
}) => {
  const stuck = await createStaleLock(database, { runStillLive: true });
  // The sweeper has refused it for 10 minutes: it becomes a hold after 30 (the default).
  await database.sql`
    update slot_locks set release_refused_since = now() - interval '10 minutes',
      release_refused_guards = array['holder_run_finished'] where slot = ${stuck.slot}`;
  await page.goto('/locks');
  const row = page.getByTestId(`lock-row-${stuck.slot}`);
  await expect(row.getByTestId('lock-escalation')).toContainText('it becomes a hold for a person at');
  await expect(row.getByTestId('lock-escalation')).toContainText('30 min of refusals');
  await expectAccessible();

  await row.getByLabel('Reason for releasing over the guards').fill('Host was decommissioned; nothing runs');
  await row.getByRole('button', { name: 'Release anyway…' }).click();
  const dialog = page.getByRole('dialog', { name: `Release ${stuck.slot} over its guards?` });
  await expect(dialog).toContainText('its run is finished: no');
  await dialog.getByRole('button', { name: 'Release anyway' }).click();
  await expect(page.getByTestId('toasts')).toContainText(`${stuck.slot} released over its guards.`);
  await expect(page.getByTestId(`lock-row-${stuck.slot}`)).toHaveCount(0);
  const [record] = await database.sql<{ action: string; reason: string }[]>`
    select action, reason from audit_log where target_type = 'slot' and target_id = ${stuck.slot}`;
  expect(record).toEqual({ action: 'slot.override_release', reason: 'Host was decommissioned; nothing runs' });
});

test('a responder is not offered the release over the guards', async ({ page, database }) => {
  const stuck = await createStaleLock(database, { runStillLive: true });
  await signInAs(page, 'responder');
  await page.goto('/locks');
  await expect(
    page.getByTestId(`lock-row-${stuck.slot}`).getByRole('button', { name: 'Force release…' }),
  ).toBeDisabled();
  await expect(page.getByTestId(`lock-row-${stuck.slot}`).getByTestId('override-release-form')).toHaveCount(0);
});
