import { randomUUID } from 'node:crypto';
import { createDeadLetter } from '../support/factories';
import { expect, test } from '../support/fixtures';

test("resuming a dead letter's hold shows the redrive's preview first, and names the brakes that refuse it", async ({
  page,
  database,
  expectAccessible,
}) => {
  const queue = `hold-redrive-${randomUUID().slice(0, 6)}`;
  const holdOf = async (deadLetterId: number) => {
    const [hold] = await database.sql<{ id: number; status: string }[]>`
      select id::int, status from holds where item_type = 'dead_letter' and item_id = ${String(deadLetterId)}`;
    if (!hold) throw new Error(`dead letter ${deadLetterId} has no hold`);
    return hold;
  };

  // Resumed from its page: the confirmation says what the redrive does, and warns of the permanent failure.
  const letter = await createDeadLetter(database, { queue, errorText: '400: bad slug' });
  const hold = await holdOf(letter);
  await page.goto(`/holds/${hold.id}`);
  await page.getByLabel('Note').fill('Slug fixed upstream');
  await page.getByRole('button', { name: 'Clear', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Redrive this dead letter?' });
  await expect(dialog.getByTestId('hold-redrive-outcome')).toHaveText('Its failed step runs again.');
  await expect(dialog.getByTestId('hold-redrive-permanent')).toContainText('permanent');
  await expectAccessible();
  await dialog.getByRole('button', { name: 'Redrive' }).click();
  await expect(page.getByTestId('toasts')).toContainText('redriven');
  await expect(page.getByTestId('hold-status')).toContainText('cleared');
  const [redriven] = await database.sql<{ status: string }[]>`select status from dead_letters where id = ${letter}`;
  expect(redriven?.status).toBe('redriven');

  // A dead letter at its redrive limit: the form says the brakes refuse it, asks nothing, and clears nothing.
  const braked = await createDeadLetter(database, { queue, errorText: '400: bad slug again' });
  await database.sql`
    update task_budgets set redrives_used = 3, last_redrive_at = now() - interval '1 hour'
    where task_id = (select task_id from dead_letters where id = ${braked})`;
  const brakedHold = await holdOf(braked);
  await page.goto(`/holds/${brakedHold.id}`);
  await page.getByLabel('Note').fill('Try again');
  await page.getByRole('button', { name: 'Clear', exact: true }).click();
  await expect(page.getByTestId('clear-braked')).toContainText('the redrive brakes refuse this dead letter now');
  await expect(page.getByTestId('clear-braked')).toContainText('already redriven 3 times');
  await expect(page.getByRole('dialog')).toHaveCount(0);
  expect((await holdOf(braked)).status).toBe('open');
});
