import { sql } from 'drizzle-orm';
import { createDeadLetter, createHold, uniqueTeam } from '../support/factories';
import { expect, signInAs, test } from '../support/fixtures';

test('a hold has a page of its own: what is parked and why, its actions, and its history; audit targets link to it', async ({
  page,
  database,
  expectAccessible,
}) => {
  const owner = `team:${uniqueTeam()}`;
  const { holdId, itemId } = await createHold(database, { agent: 'ops', owner });
  // A 10,000-character detail stays within the page.
  await database.db.execute(
    sql`update holds set detail = ${`policy says no ${'x'.repeat(10_000)}`} where id = ${holdId}`,
  );

  // From the list, the reason opens the hold.
  await page.goto(`/holds?owner=${encodeURIComponent(owner)}`);
  await page.getByTestId(`hold-row-${itemId}`).getByTestId('hold-link').click();
  await expect(page).toHaveURL(new RegExp(`/holds/${holdId}$`));
  await expect(page.getByRole('heading', { name: `Hold ${holdId}`, level: 1 })).toBeVisible();
  await expect(page.getByTestId('hold-status')).toContainText('Status: open, waiting');
  const facts = page.getByTestId('hold-facts');
  await expect(facts).toContainText('policy_blocked');
  await expect(facts.getByRole('link', { name: `task:${itemId}` })).toHaveAttribute(
    'href',
    `/tasks/${encodeURIComponent(itemId)}`,
  );
  await expect(page.getByTestId('audit-table')).toContainText('hold.open');
  await expectAccessible();
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
  }
  await page.setViewportSize({ width: 1440, height: 900 });

  // Cleared here, it says how, by whom and why, and its history names it.
  await page.getByLabel('Note').fill('Exception granted');
  await page.getByRole('button', { name: 'Clear', exact: true }).click();
  await page.getByRole('dialog', { name: 'Resume this hold?' }).getByRole('button', { name: 'Resume' }).click();
  await expect(page.getByTestId('toasts')).toContainText('resumed');
  await expect(page.getByTestId('hold-resolution')).toContainText('resume by person:ada@holdfast.demo');
  await expect(page.getByTestId('hold-resolution')).toContainText('Exception granted');
  const history = page.getByTestId('audit-table');
  await expect(history).toContainText('hold.clear.resume');

  // The audit log's target links back to the hold.
  await page.goto(`/audit?targetType=hold&targetId=${holdId}`);
  await page
    .getByRole('link', { name: `hold:${holdId}` })
    .first()
    .click();
  await expect(page).toHaveURL(new RegExp(`/holds/${holdId}$`));

  // A hold nobody has answers the console's 404.
  const missing = await page.request.get('/holds/999999999999');
  expect(missing.status()).toBe(404);
  expect(await page.request.get('/holds/not-a-number').then((response) => response.status())).toBe(404);

  // A viewer sees the hold and why they cannot clear it.
  await signInAs(page, 'viewer');
  const { holdId: another } = await createHold(database, { agent: 'ops', owner });
  await page.goto(`/holds/${another}`);
  await expect(page.getByTestId('clear-refused')).toContainText('You cannot clear this');
  await expect(page.getByTestId('clear-refused')).toContainText('Ask its owner or the on-call responder');

  // A dead letter's hold owned by the viewer's team: clearing it would redrive, which a viewer may not; they may
  // hand it on, and are told so.
  const letter = await createDeadLetter(database, { queue: `viewer-${holdId}`, errorText: '400: bad input' });
  const [letterHold] = await database.sql<{ id: number }[]>`
    update holds set owner = 'team:payments' where item_type = 'dead_letter' and item_id = ${String(letter)}
    returning id::int`;
  try {
    await page.goto(`/holds/${letterHold!.id}`);
    await expect(page.getByTestId('clear-refused')).toContainText('this needs the responder or admin role');
    await expect(page.getByTestId('clear-refused')).toContainText('You may reassign it');
    await expect(page.getByRole('button', { name: 'Reassign…' })).toBeVisible();
  } finally {
    // Other tests count what the viewer may clear by owner alone: the hold goes back to the factory's owner.
    await database.sql`update holds set owner = 'team:web' where id = ${letterHold!.id}`;
  }
});
