import { randomUUID } from 'node:crypto';
import { runStep, StepError } from '../lib/core';
import { expect, signInAs, test } from './support/fixtures';

/** Dead letters made the real way: a step that fails permanently under runStep. */
async function deadLetter(db: Parameters<typeof runStep>[0]['db'], queue: string, errorText: string) {
  const outcome = await runStep(
    { db },
    { taskId: `${queue}-${randomUUID().slice(0, 8)}`, agent: 'publishing', step: 'publish', owner: 'team:web', queue, content: { page: randomUUID() } },
    async () => {
      throw new StepError('permanent', errorText);
    },
  );
  if (outcome.status !== 'do_not_retry' || !outcome.deadLetterId) throw new Error('expected a dead letter');
  return outcome.deadLetterId;
}

test('redrives one dead letter with a reason, and sees it leave the list', async ({ page, database, expectAccessible }) => {
  const queue = `single-${randomUUID().slice(0, 6)}`;
  const id = await deadLetter(database.db, queue, '400: template "spring-sale" missing');
  await page.goto(`/dead-letters?queue=${queue}`);
  const row = page.getByTestId(`dead-letter-row-${id}`);
  await expect(row).toContainText('400: template "spring-sale" missing');
  await expectAccessible();

  await row.getByLabel('Reason').fill('Template restored');
  await row.getByRole('button', { name: 'Redrive' }).click();
  await expect(row).toHaveCount(0);
  await expect(page.getByTestId('dead-letters-empty')).toBeVisible();
});

test('a filtered bulk redrive previews what will happen, then runs with progress and lands in the history', async ({ page, database }) => {
  const queue = `bulk-${randomUUID().slice(0, 6)}`;
  for (let index = 0; index < 6; index += 1) await deadLetter(database.db, queue, `503 from the CDN (${index})`);
  const other = await deadLetter(database.db, queue, '400: bad slug');

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
  await expect(dialog.getByTestId('bulk-redrive-spend')).toContainText('Expected spend');
  await dialog.getByLabel('Reason (kept in the audit log)').fill('CDN is back');
  await dialog.getByLabel('Items per second').fill('3');
  await dialog.getByRole('button', { name: 'Redrive 6' }).click();

  const progress = page.locator('[data-testid^="bulk-redrive-progress-"]').first();
  await expect(progress.getByRole('progressbar')).toBeVisible();
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
