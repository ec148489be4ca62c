import { randomUUID } from 'node:crypto';
import type { DatabaseConnection } from '../../packages/engine/src/db/client';
import { createDeadLetter } from '../support/factories';
import { expect, signInAs, test } from '../support/fixtures';

/** Puts the dead letter's task at its redrive limit (3 by default), as three earlier redrives would. */
async function brake(database: DatabaseConnection, deadLetterId: number) {
  await database.sql`
    update task_budgets set redrives_used = 3, last_redrive_at = now() - interval '1 hour'
    where task_id = (select task_id from dead_letters where id = ${deadLetterId})`;
}

test('redrives one dead letter with a reason, and sees it leave the list', async ({
  page,
  database,
  expectAccessible,
}) => {
  const queue = `single-${randomUUID().slice(0, 6)}`;
  const id = await createDeadLetter(database, { queue, errorText: '400: template "spring-sale" missing' });
  await page.goto(`/dead-letters?queue=${queue}`);
  const row = page.getByTestId(`dead-letter-row-${id}`);
  await expect(row).toContainText('400: template "spring-sale" missing');
  await expectAccessible();

  await row.getByLabel('Reason').fill('Template restored');
  await row.getByRole('button', { name: 'Redrive' }).click();
  await expect(page.getByTestId('toasts')).toContainText(`Dead letter ${id} redriven: it goes back onto its queue.`);
  await expect(row).toHaveCount(0);
  await expect(page.getByTestId('dead-letters-empty')).toBeVisible();
  // No row is left to go on to: focus waits on the list's heading.
  await expect(page.getByRole('heading', { name: 'Pending dead letters' })).toBeFocused();
});

test('a filtered bulk redrive previews what will happen, then runs with progress and lands in the history', async ({
  page,
  database,
}) => {
  const queue = `bulk-${randomUUID().slice(0, 6)}`;
  for (let index = 0; index < 6; index += 1)
    await createDeadLetter(database, { queue, errorText: `503 from the CDN (${index})` });
  const other = await createDeadLetter(database, { queue, errorText: '400: bad slug' });

  // The filter narrows to the CDN failures; the other one stays.
  await page.goto('/dead-letters');
  const filters = page.getByTestId('dead-letter-filters');
  await filters.getByLabel('Queue').selectOption(queue);
  await filters.getByLabel('Error text contains').fill('CDN');
  await filters.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(new RegExp(`queue=${queue}.*search=CDN`));
  await expect(page.getByTestId('dead-letter-count')).toContainText('6 pending matching');

  await page.getByTestId('bulk-redrive-open').click();
  const dialog = page.getByTestId('bulk-redrive-dialog');
  await expect(dialog.getByRole('heading')).toHaveText('Redrive 6 dead letters?');
  // Their steps failed, so their keys are failed: each runs again.
  await expect(dialog.getByTestId('bulk-redrive-outcomes')).toContainText('6 runs again');
  // And the items themselves, not only their counts: all six, each with what its redrive will do.
  await expect(dialog.getByTestId('bulk-redrive-sample').locator('li')).toHaveCount(6);
  await expect(dialog.getByTestId('bulk-redrive-sample').locator('li').first()).toContainText('runs again');
  await expect(dialog.getByTestId('bulk-redrive-spend')).toContainText('Expected spend');
  // The factory's steps failed permanently: the preview warns that unchanged they will most likely fail again.
  await expect(dialog.getByTestId('bulk-redrive-permanent')).toContainText(
    '6 of the 6 to redrive last failed with a permanent error',
  );
  await dialog.getByLabel('Reason (kept in the audit log)').fill('CDN is back');
  await dialog.getByLabel('Items per second').fill('1');
  await dialog.getByRole('button', { name: 'Redrive 6' }).click();

  const progress = page.locator('[data-testid^="bulk-redrive-progress-"]').first();
  await expect(progress.getByRole('progressbar')).toBeVisible();
  await expect(progress.getByTestId('bulk-redrive-status')).toHaveText('running');
  // Rows redriven leave the pending list while the run goes on (at 1 a second, 6 take 6 s).
  await expect(page.getByTestId('dead-letter-count')).not.toContainText('6 pending matching');
  await expect(progress.getByTestId('bulk-redrive-status')).toHaveText('running');
  await expect(progress.getByTestId('bulk-redrive-status')).toHaveText('completed', { timeout: 15_000 });
  await expect(progress).toContainText('6 / 6 · 6 redriven, 0 skipped');

  await page.goto(`/dead-letters?queue=${queue}`);
  await expect(page.getByTestId('dead-letter-count')).toContainText('1 pending');
  await expect(page.getByTestId(`dead-letter-row-${other}`)).toBeVisible();
  await expect(page.getByTestId('bulk-redrives-table')).toContainText(`queue=${queue} search=CDN`);
  await expect(page.getByTestId('bulk-redrives-table')).toContainText('completed: 6 of 6 done, 6 redriven, 0 skipped');
});

test('a viewer sees the dead letters but may not redrive them', async ({ anonymousPage: page }) => {
  await signInAs(page, 'viewer');
  await page.goto('/dead-letters');
  await expect(page.getByTestId('bulk-redrive-open')).toHaveCount(0);
  await expect(page.getByText('Bulk redrive: this needs the responder or admin role.')).toBeVisible();
});

test('a braked row cannot be redriven, says why, and an admin may override the brakes with a reason', async ({
  page,
  database,
  expectAccessible,
}) => {
  const queue = `braked-${randomUUID().slice(0, 6)}`;
  const id = await createDeadLetter(database, { queue, errorText: '503 from the CDN' });
  await brake(database, id);

  await signInAs(page, 'responder');
  await page.goto(`/dead-letters?queue=${queue}`);
  const row = page.getByTestId(`dead-letter-row-${id}`);
  const redrive = row.getByRole('button', { name: 'Redrive', exact: true });
  await expect(redrive).toBeDisabled();
  await expect(redrive).toHaveAccessibleDescription(/already redriven 3 times \(at most 3\)/);
  await expect(row.getByTestId(`dead-letter-brakes-${id}`)).toHaveText(
    'Redrive braked: already redriven 3 times (at most 3). An admin may override the brakes.',
  );
  await expect(row.getByRole('button', { name: 'Override brakes…' })).toHaveCount(0);
  await expectAccessible();

  await signInAs(page, 'admin');
  await page.goto(`/dead-letters?queue=${queue}`);
  await expect(redrive).toBeDisabled();
  await row.getByLabel('Reason').fill('CDN vendor fixed the bug; one last try');
  await row.getByRole('button', { name: 'Override brakes…' }).click();
  const confirm = page.getByTestId(`confirm-override-${id}`);
  await expect(confirm.getByRole('heading')).toHaveText(`Redrive dead letter ${id} despite the brakes?`);
  await expect(confirm).toContainText('already redriven 3 times (at most 3)');
  await confirm.getByRole('button', { name: 'Override and redrive' }).click();
  await expect(page.getByTestId('toasts')).toContainText(`Dead letter ${id} redriven`);
  await expect(row).toHaveCount(0);
});

test('the bulk preview counts the items each redrive brake will skip', async ({ page, database }) => {
  const queue = `bulk-braked-${randomUUID().slice(0, 6)}`;
  const ids = [];
  for (let index = 0; index < 3; index += 1)
    ids.push(await createDeadLetter(database, { queue, errorText: `503 from the CDN (${index})` }));
  await brake(database, ids[0]!);

  await page.goto(`/dead-letters?queue=${queue}`);
  await page.getByTestId('bulk-redrive-open').click();
  const dialog = page.getByTestId('bulk-redrive-dialog');
  await expect(dialog.getByRole('heading')).toHaveText('Redrive 3 dead letters?');
  await expect(dialog.getByTestId('bulk-redrive-brakes')).toContainText('1 will be skipped by the redrive brakes');
  await expect(dialog.getByTestId('bulk-redrive-brakes')).toContainText('1 at the redrive limit (3 per task)');
  await expect(dialog.getByTestId('bulk-redrive-outcomes')).toContainText('2 runs again');
  await expect(dialog.getByRole('button', { name: 'Redrive 2' })).toBeVisible();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
});

test('a 10,000-character error is clamped with "Show all", and the row keeps its actions on screen', async ({
  page,
  database,
  expectAccessible,
}) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  const queue = `long-${randomUUID().slice(0, 6)}`;
  const trace =
    `TypeError: bad answer from https://api.example.com/${'v1/'.repeat(130)}?token=${'x'.repeat(400)}\n${'    at frame (/srv/agent/index.js:1:1)\n'.repeat(400)}`.slice(
      0,
      10_000,
    );
  const id = await createDeadLetter(database, { queue, errorText: trace });
  await page.goto(`/dead-letters?queue=${queue}`);
  const row = page.getByTestId(`dead-letter-row-${id}`);
  const error = row.getByTestId(`dead-letter-error-${id}`);
  await expect(error.getByText('Show all (10,000 characters)')).toBeVisible();
  const redrive = await row.getByRole('button', { name: 'Redrive' }).boundingBox();
  expect(redrive!.x + redrive!.width).toBeLessThanOrEqual(1440);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1440);
  await error.getByText('Show all (10,000 characters)').click();
  await expect(error.locator('pre')).toContainText('at frame (/srv/agent/index.js:1:1)');
  await expectAccessible();
});
