import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { acquireSlot, finishRun, startRun } from '../lib/core';
import type { DatabaseConnection } from '../lib/db/client';
import { expect, test } from './support/fixtures';

/** A lock past its TTL; its run finished unless `runStillLive`. */
async function staleLock(database: DatabaseConnection, options: { runStillLive?: boolean } = {}) {
  const slot = `publish:e2e-${randomUUID().slice(0, 8)}`;
  const runKey = `run-${randomUUID().slice(0, 8)}`;
  await startRun({ db: database.db }, { runKey, taskId: `task-${randomUUID().slice(0, 8)}`, agent: 'publishing' });
  const lock = await acquireSlot({ db: database.db }, { slot, runKey, ttlMs: 60_000 });
  if (lock.outcome !== 'acquired') throw new Error('expected to acquire');
  if (!options.runStillLive) await finishRun({ db: database.db }, { runKey, status: 'failed' });
  await database.db.execute(sql`update slot_locks set expires_at = now() - interval '5 minutes' where slot = ${slot}`);
  return { slot, runKey };
}

test('force-releases a stale lock whose guards all pass, and shows why another cannot be released', async ({
  page,
  database,
  expectAccessible,
}) => {
  const releasable = await staleLock(database);
  const guarded = await staleLock(database, { runStillLive: true });
  await page.goto('/locks');

  const blockedRow = page.getByTestId(`lock-row-${guarded.slot}`);
  await expect(blockedRow.getByTestId('guard-holder_run_finished')).toHaveAttribute('data-passes', 'false');
  await expect(blockedRow.getByTestId('guard-holder_run_finished')).toContainText(`run ${guarded.runKey} is running`);
  await expect(blockedRow.getByRole('button', { name: 'Force release…' })).toBeDisabled();
  await expect(blockedRow.getByTestId('force-release-blocked')).toContainText('its run is finished: no');

  const row = page.getByTestId(`lock-row-${releasable.slot}`);
  for (const guard of ['past_ttl', 'holder_run_finished', 'no_evidence', 'kill_switch_off']) {
    await expect(row.getByTestId(`guard-${guard}`)).toHaveAttribute('data-passes', 'true');
  }
  await expectAccessible();
  await row.getByRole('button', { name: 'Force release…' }).click();
  await row.getByLabel('Reason for the release').fill('Worker died during the deploy');
  await row.getByRole('button', { name: 'Confirm release' }).click();
  await expect(page.getByTestId(`lock-row-${releasable.slot}`)).toHaveCount(0);
  await expect(page.getByTestId(`lock-row-${guarded.slot}`)).toBeVisible();
});
