import { randomBytes } from 'node:crypto';
import { inArray } from 'drizzle-orm';
import { alertInstances } from '../../packages/engine/src/db/schema';
import { expect, signInAs, test } from '../support/fixtures';

/**
 * On-call lands on what fires: the Alerts page opens on firing alerts nobody has taken, then the acknowledged ones,
 * then newer resolved ones.
 */
test('Alerts opens on what is firing, before the history and the rules, on a phone too', async ({ page, database }) => {
  const word = `landing${randomBytes(4).toString('hex')}`;
  const [firing] = await database.db
    .insert(alertInstances)
    .values({
      kind: 'stale_lock',
      identity: `lock:${word}-firing`,
      title: `Lock ${word} stale`,
      detail: 'e2e',
      link: '/locks',
      firedAt: new Date(Date.now() - 3 * 3_600_000),
    })
    .returning({ id: alertInstances.id });
  // Firing and taken by someone: after the ones nobody has taken, though it fired later.
  const [acknowledged] = await database.db
    .insert(alertInstances)
    .values({
      kind: 'stale_lock',
      identity: `lock:${word}-acknowledged`,
      title: `Lock ${word} stale, taken`,
      detail: 'e2e',
      link: '/locks',
      firedAt: new Date(Date.now() - 30 * 60_000),
      acknowledgedBy: 'person:ada@holdfast.demo',
      acknowledgedAt: new Date(Date.now() - 20 * 60_000),
    })
    .returning({ id: alertInstances.id });
  const [resolved] = await database.db
    .insert(alertInstances)
    .values({
      kind: 'stale_lock',
      identity: `lock:${word}-resolved`,
      title: `Lock ${word} was stale`,
      detail: 'e2e',
      link: '/locks',
      status: 'resolved',
      firedAt: new Date(Date.now() - 60_000),
      resolvedAt: new Date(),
    })
    .returning({ id: alertInstances.id });
  try {
    await signInAs(page, 'responder');
    for (const size of [
      { width: 1440, height: 900 },
      { width: 390, height: 844 },
    ]) {
      await page.setViewportSize(size);
      await page.goto('/alerts');
      await expect(page.getByRole('link', { name: /^Firing/ })).toHaveAttribute('aria-current', 'true');
      const rows = page.getByTestId('history-table').locator('[data-testid^="alert-instance-"]');
      const order = await rows.evaluateAll((elements) =>
        elements.map((element) => element.getAttribute('data-testid')),
      );
      const firingAt = order.indexOf(`alert-instance-${firing!.id}`);
      const acknowledgedAt = order.indexOf(`alert-instance-${acknowledged!.id}`);
      const resolvedAt = order.indexOf(`alert-instance-${resolved!.id}`);
      expect(firingAt).toBeGreaterThanOrEqual(0);
      expect(acknowledgedAt).toBeGreaterThan(firingAt);
      expect(resolvedAt).toBeGreaterThan(acknowledgedAt);
      // On a phone too the firing list is not below the rules: its first alert is on the first screen.
      await expect(rows.first()).toBeInViewport({ ratio: 0.1 });
    }
  } finally {
    // Resolved, as the other alert tests leave theirs: the sweep may have sent notifications for it.
    await database.db
      .update(alertInstances)
      .set({ status: 'resolved', resolvedAt: new Date() })
      .where(inArray(alertInstances.id, [firing!.id, acknowledged!.id]));
  }
});
