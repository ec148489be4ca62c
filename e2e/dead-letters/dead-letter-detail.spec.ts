import { randomUUID } from 'node:crypto';
import type { Page } from '@playwright/test';
import type { DatabaseConnection } from '../../packages/engine/src/db/client';
import { createDeadLetter } from '../support/factories';
import { expect, signInAs, test } from '../support/fixtures';

/** A stack trace of exactly 10,000 characters with a 400-character unbroken token in its first line. */
const LONG_TRACE =
  `TypeError: bad answer from https://api.example.com/${'v1/'.repeat(130)}?token=${'x'.repeat(400)}\n${'    at frame (/srv/agent/index.js:1:1)\n'.repeat(400)}`.slice(
    0,
    10_000,
  );

async function statusOf(database: DatabaseConnection, id: number): Promise<string> {
  const [row] = await database.sql<{ status: string }[]>`select status from dead_letters where id = ${id}`;
  return row?.status ?? 'missing';
}

async function documentWidth(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth);
}

test('the detail page shows the payload as JSON, the attempts, holds and redrive history, and copies the payload', async ({
  page,
  database,
  expectAccessible,
}) => {
  const queue = `detail-${randomUUID().slice(0, 6)}`;
  const id = await createDeadLetter(database, { queue, errorText: '400: template "spring-sale" missing' });
  const [stored] = await database.sql<{ payload: unknown }[]>`select payload from dead_letters where id = ${id}`;

  // Each row of the list links to its dead letter.
  await page.goto(`/dead-letters?queue=${queue}`);
  await page.getByTestId(`dead-letter-link-${id}`).click();
  await expect(page).toHaveURL(new RegExp(`/dead-letters/${id}$`));
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`Dead letter ${id}`);
  await expect(page.getByTestId('dead-letter-status')).toContainText('pending');
  await expect(page.getByTestId('dead-letter-facts')).toContainText(queue);
  // Whom to wake: the owner of the step that failed (publishing's, named by the demo or declared by its tasks).
  await expect(page.getByTestId('dead-letter-facts').getByTestId('step-owner')).toHaveText(/^team:platform/);
  await expect(page.getByTestId('dead-letter-error')).toContainText('400: template "spring-sale" missing');
  await expect(page.getByTestId('dead-letter-payload-json')).toHaveText(JSON.stringify(stored?.payload, null, 2));
  const attempts = page.getByTestId('dead-letter-attempts');
  await expect(attempts.getByRole('row')).toHaveCount(2);
  await expect(attempts).toContainText('failed');
  await expect(attempts).toContainText('permanent');
  await expect(page.getByTestId('dead-letter-holds')).toContainText('permanent_error');
  await expect(page.getByTestId('dead-letter-holds')).toContainText('open');
  await expect(page.getByTestId('dead-letter-redrives')).toContainText('never been redriven');
  await expectAccessible();

  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.getByTestId('copy-payload').click();
  await expect(page.getByTestId('toasts')).toContainText('Payload copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(JSON.stringify(stored?.payload, null, 2));

  // Redrive from here: announced, focus on the status line, the history shows who, when and why.
  await page.getByLabel('Reason').fill('Template restored');
  await page.getByRole('button', { name: 'Redrive', exact: true }).click();
  await expect(page.getByTestId('toasts')).toContainText(`Dead letter ${id} redriven`);
  await expect(page.getByTestId('dead-letter-status')).toContainText('redriven');
  await expect(page.getByTestId('dead-letter-status')).toBeFocused();
  const redrive = page.getByTestId('dead-letter-redrive-1');
  await expect(redrive).toContainText('(this dead letter)');
  await expect(redrive).toContainText('person:ada@holdfast.demo');
  await expect(redrive).toContainText('Template restored');
  await expect(page.getByTestId('dead-letter-holds')).toContainText('resume by person:ada@holdfast.demo');
  expect(await statusOf(database, id)).toBe('redriven');
});

test('bidi controls in the error and the payload show as markers on the list, the detail and the step page, never applied', async ({
  page,
  database,
}) => {
  const queue = `bidi-${randomUUID().slice(0, 6)}`;
  const id = await createDeadLetter(database, {
    queue,
    errorText: 'refused invoice\u202Efdp.exe',
    content: { page: randomUUID(), title: 'Spring\u2067 sale\u2069' },
  });
  const marked = async (testId: string, shown: string) => {
    const element = page.getByTestId(testId);
    await expect(element).toContainText(shown);
    expect(await element.textContent()).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/);
  };

  await page.goto(`/dead-letters?queue=${queue}`);
  await marked(`dead-letter-row-${id}`, 'refused invoice⟨U+202E⟩fdp.exe');
  await page.goto(`/dead-letters/${id}`);
  await marked('dead-letter-error', 'refused invoice⟨U+202E⟩fdp.exe');
  await marked('dead-letter-payload-json', 'Spring⟨U+2067⟩ sale⟨U+2069⟩');
  await page.goto('/steps/publishing/publish?window=24h');
  await marked('recent-failures', 'refused invoice⟨U+202E⟩fdp.exe');
});

test('an unknown or malformed dead letter id answers 404', async ({ page }) => {
  // Through the request API: a browser would log the 404 itself as a console error.
  for (const path of ['/dead-letters/999999999999', '/dead-letters/abc', '/dead-letters/0', '/dead-letters/1e3']) {
    const response = await page.request.get(path);
    expect(response.status(), path).toBe(404);
  }
});

test('a 10,000-character error keeps every row’s Redrive on screen at 1440 px, and no page is wider than 390 px', async ({
  page,
  database,
}) => {
  const queue = `wide-${randomUUID().slice(0, 6)}`;
  const ids = [
    await createDeadLetter(database, { queue, errorText: LONG_TRACE }),
    await createDeadLetter(database, { queue, errorText: `Error: ${'y'.repeat(3_490)}` }),
    await createDeadLetter(database, { queue, errorText: LONG_TRACE }),
  ];
  await signInAs(page, 'responder');

  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/dead-letters?queue=${queue}`);
  for (const id of ids) {
    const box = await page.getByTestId(`dead-letter-row-${id}`).getByRole('button', { name: 'Redrive' }).boundingBox();
    expect(box, `Redrive of ${id}`).not.toBeNull();
    expect(box!.x + box!.width, `Redrive of ${id}`).toBeLessThanOrEqual(1440);
  }
  expect(await documentWidth(page)).toBeLessThanOrEqual(1440);

  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/dead-letters?queue=${queue}`);
  expect(await documentWidth(page)).toBeLessThanOrEqual(390);
  for (const id of ids) {
    const redrive = page.getByTestId(`dead-letter-row-${id}`).getByRole('button', { name: 'Redrive' });
    await redrive.scrollIntoViewIfNeeded();
    await expect(redrive).toBeInViewport({ ratio: 1 });
    await expect(redrive).toBeEnabled();
  }
  await page.goto(`/dead-letters/${ids[0]}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`Dead letter ${ids[0]}`);
  expect(await documentWidth(page)).toBeLessThanOrEqual(390);
});

test('ticking two rows and redriving redrives exactly those two, announced, with focus kept on the list', async ({
  page,
  database,
  expectAccessible,
}) => {
  const queue = `ticked-${randomUUID().slice(0, 6)}`;
  const [first, second, third] = [
    await createDeadLetter(database, { queue, errorText: '503 from the CDN (1)' }),
    await createDeadLetter(database, { queue, errorText: '503 from the CDN (2)' }),
    await createDeadLetter(database, { queue, errorText: '503 from the CDN (3)' }),
  ] as [number, number, number];
  await page.goto(`/dead-letters?queue=${queue}`);
  const selection = page.getByTestId('dead-letter-selection');
  await expect(selection.getByTestId('selection-count')).toHaveText('0 selected');
  await expect(selection.getByTestId('selection-redrive')).toBeDisabled();

  // Select all, then untick the middle one.
  await page.getByLabel('Select all on this page').check();
  await expect(selection.getByTestId('selection-count')).toHaveText('3 selected');
  await page.getByLabel(`Select dead letter ${second}`).uncheck();
  await expect(selection.getByTestId('selection-count')).toHaveText('2 selected');
  await expectAccessible();

  await selection.getByLabel('Reason for the selected').fill('CDN is back');
  await selection.getByRole('button', { name: 'Redrive 2 selected…' }).click();
  // It asks first, naming the items it takes: the ticked two, not the unticked one.
  const confirm = page.getByRole('dialog', { name: 'Redrive 2 dead letters?' });
  await expect(confirm.getByTestId(`selection-preview-${first}`)).toContainText('publishing/publish');
  await expect(confirm.getByTestId(`selection-preview-${third}`)).toBeVisible();
  await expect(confirm.getByTestId(`selection-preview-${second}`)).toHaveCount(0);
  await expectAccessible();
  await confirm.getByRole('button', { name: 'Redrive 2' }).click();
  await expect(page.getByTestId('toasts')).toContainText('Redriven 2 of 2 selected.');
  await expect(page.getByTestId(`dead-letter-row-${first}`)).toHaveCount(0);
  await expect(page.getByTestId(`dead-letter-row-${third}`)).toHaveCount(0);
  await expect(page.getByTestId(`dead-letter-row-${second}`)).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Pending dead letters' })).toBeFocused();
  await expect(selection.getByTestId('selection-count')).toHaveText('0 selected');
  expect([await statusOf(database, first), await statusOf(database, second), await statusOf(database, third)]).toEqual([
    'redriven',
    'pending',
    'redriven',
  ]);
});

test('discard asks first, one row or a selection; cancelling keeps the work', async ({ page, database }) => {
  const queue = `discard-${randomUUID().slice(0, 6)}`;
  const [first, second, third] = [
    await createDeadLetter(database, { queue, errorText: '400: bad slug (1)' }),
    await createDeadLetter(database, { queue, errorText: '400: bad slug (2)' }),
    await createDeadLetter(database, { queue, errorText: '400: bad slug (3)' }),
  ] as [number, number, number];
  await signInAs(page, 'responder');
  await page.goto(`/dead-letters?queue=${queue}`);

  const row = page.getByTestId(`dead-letter-row-${first}`);
  await row.getByLabel('Reason').fill('Slug retired');
  await row.getByRole('button', { name: 'Discard…' }).click();
  const dialog = page.getByTestId(`confirm-discard-${first}`);
  await expect(dialog.getByRole('heading')).toHaveText(`Discard dead letter ${first}?`);
  // Focus starts on the way back, so a stray Enter discards nothing.
  await expect(dialog.getByRole('button', { name: 'Keep it' })).toBeFocused();
  await dialog.getByRole('button', { name: 'Keep it' }).click();
  expect(await statusOf(database, first)).toBe('pending');

  await row.getByRole('button', { name: 'Discard…' }).click();
  await dialog.getByRole('button', { name: 'Discard', exact: true }).click();
  await expect(page.getByTestId('toasts')).toContainText(`Dead letter ${first} discarded.`);
  await expect(row).toHaveCount(0);
  // Focus goes on to the next row's action.
  await expect(page.getByTestId(`dead-letter-actions-${second}`).getByLabel('Reason')).toBeFocused();
  expect(await statusOf(database, first)).toBe('discarded');

  await page.getByLabel(`Select dead letter ${second}`).check();
  await page.getByLabel(`Select dead letter ${third}`).check();
  const selection = page.getByTestId('dead-letter-selection');
  await selection.getByLabel('Reason for the selected').fill('Slugs retired');
  await selection.getByRole('button', { name: 'Discard 2 selected…' }).click();
  const confirm = page.getByTestId('confirm-discard-selection');
  await expect(confirm.getByRole('heading')).toHaveText('Discard 2 dead letters?');
  await confirm.getByRole('button', { name: 'Discard 2' }).click();
  await expect(page.getByTestId('toasts')).toContainText('Discarded 2 of 2 selected.');
  await expect(page.getByTestId('dead-letters-empty')).toBeVisible();
  expect([await statusOf(database, second), await statusOf(database, third)]).toEqual(['discarded', 'discarded']);
});
