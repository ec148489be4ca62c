import { sql } from 'drizzle-orm';
import { uniqueId } from '../support/factories';
import { expect, test } from '../support/fixtures';

test('the audit log pages 50 at a time, newest first, each record once, with the filter kept', async ({
  page,
  database,
  expectAccessible,
}) => {
  // Records of a target type of their own, several in one microsecond (ties broken by id).
  const targetType = uniqueId('e2e-audit');
  await database.db.execute(sql`
    insert into audit_log (occurred_at, actor_type, actor_id, action, target_type, target_id, reason)
    select now() - (i / 4) * interval '1 second', 'system', 'e2e', 'e2e.paging', ${targetType}, i::text, 'paging check'
    from generate_series(1, 120) as i`);
  const expected = (
    await database.sql<{ id: string | number }[]>`
      select id from audit_log where target_type = ${targetType} order by occurred_at desc, id desc`
  ).map((row) => String(row.id));

  await page.goto(`/audit?targetType=${targetType}`);
  const showing = page.getByTestId('audit-showing');
  const pager = page.getByTestId('audit-pager');
  const ids = async () =>
    (await page
      .getByTestId('audit-table')
      .locator('tbody tr')
      .evaluateAll((rows) =>
        rows.map((row) => row.getAttribute('data-testid')?.replace('audit-row-', '') ?? ''),
      )) as string[];

  await expect(showing).toHaveText('· Showing 1–50 of 120');
  const seen = await ids();
  await expectAccessible();
  await pager.getByRole('link', { name: 'Next →' }).click();
  await expect(showing).toHaveText('· Showing 51–100 of 120');
  await expect(page).toHaveURL(new RegExp(`targetType=${targetType}&after=`));
  seen.push(...(await ids()));
  await pager.getByRole('link', { name: 'Next →' }).click();
  await expect(showing).toHaveText('· Showing 101–120 of 120');
  seen.push(...(await ids()));
  await expect(pager.getByRole('link', { name: 'Next →' })).toHaveCount(0);
  expect(seen).toEqual(expected);

  await pager.getByRole('link', { name: '← Previous' }).click();
  await expect(showing).toHaveText('· Showing 51–100 of 120');
  expect(await ids()).toEqual(expected.slice(50, 100));
  // The export takes the filter, never the page.
  await expect(page.getByTestId('audit-export')).toHaveAttribute(
    'href',
    `/api/console/audit.csv?targetType=${targetType}`,
  );

  await page.goto(`/audit?targetType=${targetType}&before=nonsense`);
  await expect(page.getByText('Ignored before=“nonsense”.')).toBeVisible();
  await expect(showing).toHaveText('· Showing 1–50 of 120');
});

test('a 10,000-character reason stays within the page at 390 px', async ({ page, database }) => {
  const targetType = uniqueId('e2e-audit-long');
  const reason =
    `See https://runbook.example.com/${'y'.repeat(400)} ${'and the long explanation goes on '.repeat(400)}`.slice(
      0,
      10_000,
    );
  await database.db.execute(sql`
    insert into audit_log (actor_type, actor_id, action, target_type, target_id, reason)
    values ('system', 'e2e', 'e2e.long', ${targetType}, '1', ${reason})`);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/audit?targetType=${targetType}`);
  await expect(page.getByText('Show all (10,000 characters)')).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
});
