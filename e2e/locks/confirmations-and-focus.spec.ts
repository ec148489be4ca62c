import { sql } from 'drizzle-orm';
import { type Actor, claimKey, setKillSwitch } from '../../packages/engine/src/core';
import { createStaleLock, uniqueId } from '../support/factories';
import { expect, test } from '../support/fixtures';

const admin: Actor = { type: 'person', id: 'ada@holdfast.demo', role: 'admin', teams: ['platform'] };

test('force release asks first, announces the outcome and keeps focus on the page', async ({
  page,
  database,
  expectAccessible,
}) => {
  const lock = await createStaleLock(database);
  const held = async () =>
    (
      await database.sql<
        { n: number }[]
      >`select count(*)::int as n from slot_locks where slot = ${lock.slot} and released_at is null`
    )[0]?.n;

  await page.goto('/locks');
  const row = page.getByTestId(`lock-row-${lock.slot}`);
  await row.getByLabel('Reason for the release').fill('Worker died during the deploy');
  await row.getByRole('button', { name: 'Force release…' }).click();
  const dialog = page.getByRole('dialog', { name: `Force release ${lock.slot}?` });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('Reason: Worker died during the deploy');
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await expectAccessible();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  expect(await held()).toBe(1);

  await row.getByRole('button', { name: 'Force release…' }).click();
  await dialog.getByRole('button', { name: 'Confirm release' }).click();
  await expect(page.getByTestId('toasts')).toContainText(`${lock.slot} released.`);
  await expect(row).toHaveCount(0);
  expect(await held()).toBe(0);
  const [audit] = await database.sql<{ actor_id: string; reason: string }[]>`
    select actor_id, reason from audit_log where target_type = 'slot' and target_id = ${lock.slot} order by id desc limit 1`;
  expect(audit).toEqual({ actor_id: 'ada@holdfast.demo', reason: 'Worker died during the deploy' });
  // Focus is on the next lock's action or the list's heading, never dropped to the body.
  expect(
    await page.evaluate(
      () =>
        document.activeElement?.id === 'locks-heading' ||
        document.activeElement?.closest('[data-testid="locks-table"]') !== null,
    ),
  ).toBe(true);
});

test('the kill switch asks first in both directions and announces each change', async ({ page, database }) => {
  try {
    await page.goto('/locks');
    const section = page.getByTestId('kill-switch');
    const state = page.getByTestId('kill-switch-state');
    await expect(state).toContainText('is on');

    await section.getByLabel('Reason for switching').fill('Incident 42: locks released too eagerly');
    await section.getByRole('button', { name: 'Stop automatic release…' }).click();
    const stop = page.getByRole('dialog', { name: 'Stop automatic release?' });
    await expect(stop).toBeVisible();
    await stop.getByRole('button', { name: 'Cancel' }).click();
    await expect(state).toContainText('is on');

    await section.getByRole('button', { name: 'Stop automatic release…' }).click();
    await stop.getByRole('button', { name: 'Stop it' }).click();
    await expect(page.getByTestId('toasts')).toContainText('Automatic release stopped.');
    await expect(state).toContainText('is stopped');
    await expect(page.getByRole('heading', { name: 'Automatic release', exact: true })).toBeFocused();
    await expect(state).toContainText('Incident 42');

    await section.getByLabel('Reason for switching').fill('Incident 42 closed');
    await section.getByRole('button', { name: 'Allow automatic release again…' }).click();
    const allow = page.getByRole('dialog', { name: 'Allow automatic release again?' });
    await allow.getByRole('button', { name: 'Allow again' }).click();
    await expect(page.getByTestId('toasts')).toContainText('Automatic release is on again.');
    await expect(state).toContainText('is on');
  } finally {
    // Other specs expect automatic release on; restore it even if a step above failed.
    await setKillSwitch(
      { db: database.db, actor: admin },
      { name: 'stale_lock_release', engaged: false, reason: 'e2e: restore' },
    );
  }
});

test('Locks says how fresh it is and shows a new lock without a reload', async ({ page, database }) => {
  await page.goto('/locks');
  await expect(page.getByTestId('updated-ago')).toHaveText(/Updated \d+ s ago/);
  await page.evaluate(() => {
    (window as unknown as { notReloaded: boolean }).notReloaded = true;
  });
  // Its run still live: the sweeper (every minute) would otherwise release the lock before the page next refreshes.
  const lock = await createStaleLock(database, { runStillLive: true });
  // The page polls every 10 s; the lock shows at the next refresh.
  await expect(page.getByTestId(`lock-row-${lock.slot}`)).toBeVisible({ timeout: 25_000 });
  expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
  await expect(page.getByTestId('updated-ago')).toHaveText(/Updated \d+ s ago/);
});

test('Keys pages the keys found, and says plainly when a key does not exist', async ({ page, database }) => {
  const taskId = uniqueId('e2e-keys');
  for (let index = 0; index < 60; index++) {
    await claimKey(
      { db: database.db },
      {
        key: `${taskId}/step-${String(index).padStart(2, '0')}`,
        requestHash: 'h',
        downstreamIdempotent: true,
        taskId,
        step: `step-${index}`,
      },
    );
  }
  await database.db.execute(sql`update idempotency_keys set updated_at = now() where task_id = ${taskId}`);

  await page.goto(`/keys?taskId=${taskId}`);
  const showing = page.getByTestId('keys-showing');
  await expect(showing).toHaveText('· Showing 1–50 of 60');
  const keys = () => page.getByTestId('keys-found').locator('tbody tr td:first-child').allTextContents();
  const seen = await keys();
  await page.getByTestId('keys-pager').getByRole('link', { name: 'Next →' }).click();
  await expect(showing).toHaveText('· Showing 51–60 of 60');
  seen.push(...(await keys()));
  expect(new Set(seen).size).toBe(60);
  await expect(page.getByTestId('keys-found').getByRole('link', { name: taskId, exact: true }).first()).toHaveAttribute(
    'href',
    `/tasks/${taskId}`,
  );

  await page.goto(`/keys?show=${encodeURIComponent(`${taskId}/no-such-step`)}`);
  await expect(page.getByTestId('no-such-key')).toContainText('No such key');
  await expect(page.getByTestId('key-detail')).toHaveCount(0);
});
