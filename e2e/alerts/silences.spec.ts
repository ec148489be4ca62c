import { randomBytes } from 'node:crypto';
import { and, eq, isNull, like } from 'drizzle-orm';
import { alertInstances, alertSilences } from '../../packages/engine/src/db/schema';
import { expect, signInAs, test } from '../support/fixtures';

/** A datetime-local value (UTC, as the console shows times by default) this many minutes from now. */
const utcInputValue = (minutesAhead: number) => new Date(Date.now() + minutesAhead * 60_000).toISOString().slice(0, 16);

for (const viewport of [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
]) {
  test(`a responder silences an alert from the Alerts page, sees it listed and ends it (${viewport.width} px)`, async ({
    page,
    database,
    expectAccessible,
  }) => {
    await page.setViewportSize(viewport);
    const word = `silence${randomBytes(4).toString('hex')}`;
    const reason = `Publisher redeploy ${word}`;
    const [alert] = await database.db
      .insert(alertInstances)
      .values({
        kind: 'stale_lock',
        identity: `lock:${word}`,
        title: `Lock on ${word} stale for 12 minutes`,
        detail: 'e2e',
        link: '/locks',
        firedAt: new Date(Date.now() - 15 * 60_000),
      })
      .returning({ id: alertInstances.id });
    try {
      await signInAs(page, 'responder');
      await page.goto('/alerts?tab=history');
      const row = page.getByTestId(`alert-instance-${alert!.id}`);
      await expect(row.getByTestId('alert-subject')).toHaveText(`lock:${word}`);
      await row.getByTestId('silence-like-this').click();

      // The form arrives filled with the alert's rule and subject; the person gives a time and a reason.
      await expect(page).toHaveURL(/tab=silences/);
      const form = page.getByTestId('silence-form');
      await expect(form.getByLabel('Rule')).toHaveValue('stale_lock');
      await expect(form.getByLabel('Subject (optional)')).toHaveValue(`lock:${word}`);
      if (viewport.width > 400) {
        await form.getByLabel('For how long').selectOption({ label: '4 hours' });
      } else {
        await form.getByLabel('For how long').selectOption({ label: 'until a time…' });
        await form.getByLabel('Ends at (UTC)').fill(utcInputValue(120));
      }
      await form.getByLabel('Reason').fill(reason);
      await form.getByRole('button', { name: 'Silence', exact: true }).click();
      await expect(form.getByTestId('silence-created')).toContainText('it matches 1 alert firing now');

      const active = page.getByTestId('active-silences').getByRole('row').filter({ hasText: reason });
      await expect(active).toContainText(`lock:${word}`);
      await expect(active).toContainText('person:remy@holdfast.demo');
      await expect(active.getByTestId('silence-state')).toContainText('matches 1 firing');
      await expectAccessible();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);

      // The history says who silenced it, until when and why.
      await page.goto('/alerts?tab=history');
      await expect(row.getByTestId('silenced')).toContainText('silenced by person:remy@holdfast.demo until');
      await expect(row.getByTestId('silenced')).toContainText(reason);
      await expect(row.getByTestId('silence-like-this')).toHaveCount(0);

      // Ended early, after a confirmation: it moves to the ended list.
      await page.goto('/alerts?tab=silences');
      await active.getByRole('button', { name: /End the silence of/ }).click();
      const dialog = page.getByTestId('end-silence-dialog');
      await expect(dialog).toContainText('It matches 1 alert firing now');
      await dialog.getByRole('button', { name: 'End silence' }).click();
      await expect(page.getByTestId('toasts')).toContainText('Ended the silence of Stale lock');
      await expect(page.getByTestId('active-silences').getByRole('row').filter({ hasText: reason })).toHaveCount(0);
      const ended = page.getByTestId('past-silences').getByRole('row').filter({ hasText: reason });
      await expect(ended.getByTestId('silence-state')).toHaveText('ended early by person:remy@holdfast.demo');
      await expectAccessible();
    } finally {
      await database.db
        .update(alertSilences)
        .set({ endedAt: new Date(), endedBy: 'person:e2e-cleanup' })
        .where(and(like(alertSilences.identityPattern, `%${word}%`), isNull(alertSilences.endedAt)));
      await database.db
        .update(alertInstances)
        .set({ status: 'resolved', resolvedAt: new Date() })
        .where(eq(alertInstances.id, alert!.id));
    }
  });
}

test('a viewer sees the silences but may not create or end one; a silence of everything is refused by name', async ({
  page,
}) => {
  await page.goto('/alerts?tab=silences');
  // The admin (signed in by default) asks for "any rule", every subject, every team.
  const form = page.getByTestId('silence-form');
  await form.getByLabel('Reason').fill('too broad');
  await form.getByRole('button', { name: 'Silence', exact: true }).click();
  await expect(page.getByTestId('silence-error-kind')).toHaveText(
    'choose a rule, or match a subject or a team: a silence of everything is refused',
  );

  await signInAs(page, 'viewer');
  await page.goto('/alerts?tab=silences');
  await expect(page.getByTestId('silences-read-only')).toContainText('responders and admins create and end silences');
  await expect(page.getByTestId('silence-form')).toHaveCount(0);
  await expect(page.getByRole('button', { name: /End the silence of/ })).toHaveCount(0);
});
