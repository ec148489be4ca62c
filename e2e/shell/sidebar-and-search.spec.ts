import { randomUUID } from 'node:crypto';
import AxeBuilder from '@axe-core/playwright';
import { sql } from 'drizzle-orm';
import { createDeadLetter, createHold, uniqueId } from '../support/factories';
import { expect, test } from '../support/fixtures';

const phone = { width: 390, height: 844 };

test('below 768 px the sidebar folds into a Menu button that opens and closes from the keyboard', async ({
  page,
  expectAccessible,
}) => {
  await page.setViewportSize(phone);
  await page.goto('/');
  const menuButton = page.getByRole('button', { name: 'Menu' });
  const nav = page.getByRole('navigation', { name: 'Console' });
  await expect(menuButton).toHaveAttribute('aria-expanded', 'false');
  await expect(menuButton).toHaveAttribute('aria-controls', 'console-menu');
  await expect(nav).toBeHidden();

  await page.keyboard.press('Tab'); // the skip link
  await page.keyboard.press('Tab');
  await expect(menuButton).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(menuButton).toHaveAttribute('aria-expanded', 'true');
  await expect(nav).toBeVisible();
  await page.keyboard.press('Tab');
  await expect(nav.getByRole('link', { name: 'Overview', exact: true })).toBeFocused();
  await expectAccessible();

  await page.keyboard.press('Escape');
  await expect(menuButton).toHaveAttribute('aria-expanded', 'false');
  await expect(nav).toBeHidden();
  await expect(menuButton).toBeFocused();

  // Following a link closes the menu.
  await page.keyboard.press('Space');
  await expect(nav).toBeVisible();
  await nav.getByRole('link', { name: 'Holds', exact: true }).click();
  await expect(page).toHaveURL('/holds');
  await expect(page.getByRole('heading', { level: 1, name: 'Holds' })).toBeVisible();
  await expect(menuButton).toHaveAttribute('aria-expanded', 'false');
  await expect(nav).toBeHidden();
});

test('at 1440 px the sidebar stands beside the page and there is no Menu button', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto('/');
  await expect(page.getByRole('navigation', { name: 'Console' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Menu' })).toBeHidden();
  const sidebar = await page.locator('#console-menu').boundingBox();
  expect(sidebar?.width).toBe(208);
});

test('/ focuses the search box, but not while typing in another field', async ({ page }) => {
  await page.goto('/keys');
  const search = page.getByRole('searchbox', { name: /Search by id/ });
  // The shortcut works once the page is interactive, which a loaded machine may take a moment past its load
  // event to be: a '/' pressed before then lands nowhere, so press it until it focuses the box.
  await expect(async () => {
    await page.keyboard.press('/');
    await expect(search).toBeFocused({ timeout: 500 });
  }).toPass();
  await expect(search).toHaveValue('');

  const taskField = page.getByRole('main').getByRole('textbox', { name: 'Task', exact: true });
  await taskField.click();
  await page.keyboard.type('a/b/c');
  await expect(taskField).toBeFocused();
  await expect(taskField).toHaveValue('a/b/c');
  await expect(search).toHaveValue('');
});

test('search jumps to a task, key, hold, dead letter and step by id, and lists several', async ({
  page,
  database,
  recordAttempts,
  expectAccessible,
}) => {
  const { itemId: taskId, holdId } = await createHold(database, { owner: 'team:payments' });
  const deadLetterId = await createDeadLetter(database, { queue: uniqueId('search'), errorText: 'gone' });
  const [letter] = await database.db.execute<{ key: string }>(
    sql`select k.key from dead_letters d join idempotency_keys k using (task_id) where d.id = ${deadLetterId}`,
  );
  if (!letter) throw new Error('the dead letter has no key');
  const step = `search_${randomUUID().slice(0, 8)}`;
  await recordAttempts([
    {
      taskId: uniqueId('search-step'),
      agent: 'e2e-search',
      step,
      attemptNumber: 1,
      startedAt: new Date(Date.now() - 60_000),
      finishedAt: new Date(),
      outcome: 'succeeded',
    },
  ]);

  const search = async (term: string) => {
    const box = page.getByRole('searchbox', { name: /Search by id/ });
    await box.fill(term);
    await box.press('Enter');
  };

  await page.goto('/');
  await search(taskId);
  await expect(page).toHaveURL(`/tasks/${taskId}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`Task ${taskId}`);

  await search(letter.key);
  await expect(page).toHaveURL(`/keys?show=${encodeURIComponent(letter.key)}`);

  await search(`hold:${holdId}`);
  await expect(page).toHaveURL(`/holds/${holdId}`); // the hold's own page, which links what it parks

  await search(`dl:${deadLetterId}`);
  await expect(page).toHaveURL(`/dead-letters/${deadLetterId}`);

  await search(`e2e-search/${step}`);
  await expect(page).toHaveURL(`/steps/e2e-search/${step}`);

  // The start of the dead letter's task id names its task and its key: both are listed.
  const letterTask = letter.key.slice(0, letter.key.indexOf('/'));
  await search(letterTask.slice(0, -2));
  await expect(page).toHaveURL(/\/search\?q=/);
  const results = page.getByTestId('search-results');
  await expect(results.getByTestId('search-task').getByRole('link', { name: letterTask })).toHaveAttribute(
    'href',
    `/tasks/${letterTask}`,
  );
  await expect(results.getByTestId('search-key').getByRole('link', { name: letter.key })).toBeVisible();
  await expectAccessible();
});

test('a search that finds nothing, an empty one and an over-long one each say so', async ({ page }) => {
  await page.goto('/');
  const box = page.getByRole('searchbox', { name: /Search by id/ });
  await box.fill(`nothing-${randomUUID()}`);
  await box.press('Enter');
  await expect(page.getByTestId('nothing-found')).toContainText('Nothing found for');
  await expect(page.getByTestId('nothing-found-search').getByRole('searchbox')).toHaveValue(/^nothing-/);

  await box.fill('');
  await box.press('Enter');
  await expect(page.getByTestId('search-error')).toHaveText('Type an id, or the start of one, to search for.');

  await page.goto(`/search?q=${'x'.repeat(500)}`);
  await expect(page.getByTestId('search-error')).toHaveText('That is 500 characters; no id is longer than 320.');
});

for (const path of ['/tasks/does-not-exist', '/steps/nope/nothing']) {
  test(`${path} answers 404 with the console's own page, in its shell`, async ({ page, browser }) => {
    const response = await page.request.get(path);
    expect(response.status()).toBe(404);
    // Rendered from the streamed payload once the page has begun: the page's marker is in it.
    expect(await response.text()).toContain('nothing-found');

    // Chromium logs a 404 document as a console error, which the page fixture counts as a fault:
    // the page itself is looked at in a second, unwatched tab of the same session.
    const context = await browser.newContext({ storageState: await page.context().storageState() });
    const tab = await context.newPage();
    await tab.goto(path);
    const nothing = tab.getByTestId('nothing-found');
    await expect(nothing.getByRole('heading', { level: 1 })).toHaveText('Nothing here');
    await expect(nothing.getByRole('navigation', { name: 'Main areas' }).getByRole('link')).toHaveCount(6);
    await expect(tab.getByRole('navigation', { name: 'Console' })).toBeVisible();
    const axe = await new AxeBuilder({ page: tab }).analyze();
    expect(axe.violations.filter((violation) => ['serious', 'critical'].includes(violation.impact ?? ''))).toEqual([]);

    // Its search box works like the shell's.
    await nothing.getByRole('searchbox').fill(`nothing-${randomUUID()}`);
    await nothing.getByRole('searchbox').press('Enter');
    await expect(tab.getByTestId('nothing-found')).toContainText('Nothing found for');
    await context.close();
  });
}
