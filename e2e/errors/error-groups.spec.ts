import { randomBytes } from 'node:crypto';
import { recordAttempt } from '../../packages/engine/src/core';
import { createDeadLetter } from '../support/factories';
import { expect, signInAs, test } from '../support/fixtures';

/** Letters only: digits would be taken out of the pattern, and the search must find the word. */
const aWord = () => `shop${[...randomBytes(6)].map((byte) => String.fromCharCode(97 + (byte % 26))).join('')}`;

test('failures grouped by cause: one group for errors that differ in numbers, its trend and dead letters, then those dead letters alone', async ({
  page,
  database,
  expectAccessible,
}) => {
  const word = aWord();
  const queue = `errors-${word}`;
  const ids = [];
  for (const order of [17, 18, 19])
    ids.push(
      await createDeadLetter(database, { queue, errorText: `404 Not Found: no page for ${word} (order ${order})` }),
    );
  const startedAt = new Date();
  for (const ms of [300, 450])
    await recordAttempt(
      { db: database.db },
      {
        taskId: `${word}-timeout-${ms}`,
        agent: 'publishing',
        step: 'publish',
        attemptNumber: 1,
        startedAt,
        finishedAt: new Date(startedAt.getTime() + ms),
        outcome: 'failed',
        errorClass: 'timeout',
        errorText: `timed out after ${ms} ms waiting for ${word}`,
        costMicros: 0,
      },
    );
  await signInAs(page, 'responder');

  await page.goto(`/errors?window=1h&search=${word}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Errors');
  const rows = page.getByTestId('error-groups').locator('tbody tr');
  await expect(rows).toHaveCount(2);
  // Most failures first: the three 404s are one group, their order numbers taken out.
  await expect(rows.nth(0)).toContainText(`<n> Not Found: no page for ${word} (order <n>)`);
  await expect(rows.nth(0)).toContainText('publishing/publish');
  await expect(rows.nth(0)).toContainText('permanent');
  await expect(rows.nth(0).locator('td').nth(2)).toContainText('3');
  await expect(rows.nth(0)).toContainText('new in this window');
  await expect(rows.nth(1)).toContainText(`timed out after <n> ms waiting for ${word}`);
  await expect(rows.nth(1)).toContainText('none');
  await expectAccessible();

  // The group's dead letters, and only them: where its bulk redrive or discard starts.
  await rows.nth(0).getByRole('link', { name: '3 pending' }).click();
  await expect(page).toHaveURL(/\/dead-letters\?group=[0-9a-f]{32}$/);
  await expect(page.getByTestId('dead-letter-group-filter')).toContainText(`publishing/publish: <n> Not Found`);
  await expect(page.getByTestId('dead-letter-count')).toContainText('3 pending matching');
  for (const id of ids) await expect(page.getByTestId(`dead-letter-row-${id}`)).toBeVisible();

  // The whole group given up at once: a reason, a confirmation naming the count, then none left pending.
  const discard = page.getByTestId('discard-group');
  await discard.getByRole('button', { name: 'Discard all 3 of this group…' }).click();
  await expect(page.getByTestId('confirm-discard-group')).toBeHidden(); // a reason first
  await discard.getByLabel('Reason for discarding the group').fill('pages were removed for good');
  await discard.getByRole('button', { name: 'Discard all 3 of this group…' }).click();
  const confirm = page.getByTestId('confirm-discard-group');
  await expect(confirm).toContainText('Discard all 3 dead letters of this group?');
  await expectAccessible();
  await confirm.getByRole('button', { name: 'Discard 3' }).click();
  await expect(page.getByText("Discarded the group's 3 dead letters.")).toBeVisible();
  await expect(page.getByTestId('dead-letters-empty')).toBeVisible();
  await expect(page.getByTestId('discard-group')).toHaveCount(0);

  // The step page links to its own groups.
  await page.goto('/steps/publishing/publish');
  await page.getByTestId('step-error-groups-link').click();
  await expect(page).toHaveURL(/\/errors\?agent=publishing&step=publish$/);
  await expect(page.getByTestId('errors-step-filter')).toContainText('publishing/publish');

  // Nothing matches: said plainly.
  await page.goto(`/errors?window=1h&search=${aWord()}`);
  await expect(page.getByTestId('errors-empty')).toContainText('No error group matches');

  // At phone width the page is no wider than the screen, the counts in view.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/errors?window=1h&search=${word}`);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
});

test("a step's page lists its own failures by cause, most first, each with its trend and dead letters", async ({
  page,
  recordAttempts,
  expectAccessible,
}) => {
  const word = aWord();
  const agent = `errs-${word}`;
  const startedAt = new Date(Date.now() - 10 * 60_000);
  const failure = (taskId: string, errorClass: 'rate_limited' | 'transient', errorText: string) => ({
    taskId,
    agent,
    step: 'send',
    attemptNumber: 1,
    startedAt,
    finishedAt: new Date(startedAt.getTime() + 50),
    outcome: 'failed' as const,
    errorClass,
    errorText,
    costMicros: 10,
  });
  // Ten minutes ago may be an hour the rollup pass has already closed: the fixture runs a pass after recording,
  // as the server does within a minute, so the groups are counted however the hour falls.
  await recordAttempts([
    ...[1, 2, 3].map((n) => failure(`${word}-${n}`, 'rate_limited', `429 Too Many Requests: retry after ${n}0 s`)),
    failure(`${word}-4`, 'transient', 'connection reset by peer'),
  ]);

  for (const size of [
    { width: 1440, height: 900 },
    { width: 390, height: 844 },
  ]) {
    await page.setViewportSize(size);
    await page.goto(`/steps/${agent}/send?window=1h`);
    const section = page.getByTestId('step-error-groups');
    const rows = section.getByTestId('error-groups').locator('tbody tr');
    await expect(rows).toHaveCount(2);
    await expect(rows.nth(0)).toContainText('<n> Too Many Requests: retry after <n> s');
    await expect(rows.nth(0)).toContainText('rate_limited');
    await expect(rows.nth(0)).toContainText('new in this window');
    await expect(rows.nth(1)).toContainText('connection reset by peer');
    await expect(section).toContainText('Last hour');
    await expectAccessible();
    if (size.width === 390)
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  }
  await page.getByTestId('step-error-groups-link').click();
  await expect(page).toHaveURL(new RegExp(`/errors\\?window=1h&agent=${agent}&step=send$`));
  await expect(page.getByTestId('error-groups').locator('tbody tr')).toHaveCount(2);
});
