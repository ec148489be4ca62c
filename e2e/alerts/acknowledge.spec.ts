import { randomBytes } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { instanceColumns, isSilenced } from '../../packages/engine/src/db/alert-silence-match';
import { alertInstances } from '../../packages/engine/src/db/schema';
import { expect, signInAs, test } from '../support/fixtures';

test('a responder acknowledges a firing alert; the history, the Overview and the sidebar say someone has it', async ({
  page,
  database,
  expectAccessible,
}) => {
  const word = `ack${randomBytes(4).toString('hex')}`;
  const [alert] = await database.db
    .insert(alertInstances)
    .values({
      kind: 'stale_lock',
      identity: `slot:${word}`,
      title: `Stale lock on ${word}`,
      detail: 'e2e',
      link: '/locks',
      firedAt: new Date(Date.now() - 15 * 60_000),
    })
    .returning({ id: alertInstances.id });
  try {
    await signInAs(page, 'responder');
    await page.goto('/alerts?tab=history');
    const row = page.getByTestId(`alert-instance-${alert!.id}`);
    await row.getByText('Acknowledge…').click();
    await row.getByLabel('For how long').selectOption({ label: 'for 4 hours' });
    await row.getByLabel('Note').fill('Restarting the publisher');
    await row.getByRole('button', { name: 'Acknowledge', exact: true }).click();
    await expect(page.getByTestId('toasts')).toContainText(`Acknowledged: Stale lock on ${word}`);
    await expect(row.getByTestId('acknowledged')).toContainText('acknowledged by person:remy@holdfast.demo until');
    await expect(row.getByTestId('acknowledged')).toContainText('Restarting the publisher');
    await expectAccessible();

    // The Overview lists it after those nobody has, marked; the sidebar counts only those.
    await page.goto('/');
    const firing = page.getByTestId('incident-alerts').getByRole('listitem').filter({ hasText: word });
    await expect(firing.getByTestId('incident-acknowledged')).toContainText(
      'acknowledged by person:remy@holdfast.demo',
    );
    // As the sidebar counts: nobody has it, and no silence in force matches it.
    const [counts] = await database.db.execute<{ firing: number }>(sql`
      select count(*)::int as firing from alert_instances where status = 'firing'
        and not (acknowledged_by is not null and (acknowledged_until is null or acknowledged_until > now()))
        and not ${isSilenced(instanceColumns, new Date())}`);
    if (counts!.firing > 0)
      await expect(page.getByTestId('sidebar-count-firing')).toHaveText(`${counts!.firing} firing`);
    else await expect(page.getByTestId('sidebar-count-firing')).toHaveCount(0);

    // A viewer sees who has it, and no form.
    await signInAs(page, 'viewer');
    await page.goto('/alerts?tab=history');
    await expect(page.getByTestId(`alert-instance-${alert!.id}`).getByTestId('acknowledged')).toBeVisible();
    await expect(page.getByTestId(`alert-instance-${alert!.id}`).getByTestId('acknowledge')).toHaveCount(0);
  } finally {
    await database.db
      .update(alertInstances)
      .set({ status: 'resolved', resolvedAt: new Date() })
      .where(eq(alertInstances.id, alert!.id));
  }
});
