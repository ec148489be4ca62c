import { randomBytes } from 'node:crypto';
import { recordAttempt } from '../../packages/engine/src/core';
import { alertInstances } from '../../packages/engine/src/db/schema';
import { expect, signInAs, test } from '../support/fixtures';

const aWord = () => `svc${[...randomBytes(6)].map((byte) => String.fromCharCode(97 + (byte % 26))).join('')}`;

test('the Overview opens on what is firing and what rose in the last hour; the sidebar counts what waits', async ({
  page,
  database,
  expectAccessible,
}) => {
  const word = aWord();
  // An alert firing for 20 minutes, and a failure rising now: five failures of one group this hour, none before.
  const [alert] = await database.db
    .insert(alertInstances)
    .values({
      kind: 'retry_share_anomaly',
      identity: `step:${word}/send`,
      title: `Retry rate of ${word}/send above 30 %`,
      detail: 'e2e',
      link: `/steps/${word}/send`,
      firedAt: new Date(Date.now() - 20 * 60_000),
    })
    .returning({ id: alertInstances.id });
  const startedAt = new Date();
  for (const n of [1, 2, 3, 4, 5])
    await recordAttempt(
      { db: database.db },
      {
        taskId: `${word}-${n}`,
        agent: word,
        step: 'send',
        attemptNumber: 1,
        startedAt,
        finishedAt: new Date(startedAt.getTime() + 100 * n),
        outcome: 'failed',
        errorClass: 'transient',
        errorText: `503 from ${word} after ${100 * n} ms`,
        costMicros: 0,
      },
    );
  try {
    await signInAs(page, 'responder');
    await page.goto('/');
    const panel = page.getByTestId('incident-panel');
    const firing = panel
      .getByTestId('incident-alerts')
      .getByRole('link', { name: `Retry rate of ${word}/send above 30 %` });
    await expect(firing).toHaveAttribute('href', `/steps/${word}/send`);
    await expect(panel.getByTestId('incident-alerts')).toContainText('for 20 min');
    const rising = panel.getByTestId('incident-rising');
    await expect(rising).toContainText(`${word}/send`);
    await expect(rising).toContainText(`<n> from ${word} after <n> ms`);
    await expect(rising).toContainText('5 failures, none in the hours before');
    // A new group's rise began in the five-minute bucket of its first failure.
    const bucket = new Date(Math.floor(startedAt.getTime() / 300_000) * 300_000).toISOString().slice(11, 16);
    await expect(
      rising
        .getByRole('listitem')
        .filter({ hasText: `${word}/send` })
        .getByTestId('rise-began'),
    ).toContainText(`Rising since ${bucket} UTC`);
    await rising.getByRole('link', { name: `${word}/send` }).click();
    await expect(page).toHaveURL(new RegExp(`/errors\\?window=1h&agent=${word}&step=send$`));

    // Each headline tile opens the list behind its figure; retry spend carries its 30-day projection, so labelled.
    await page.goto('/?window=7d');
    await expect(page.getByTestId('retry-spend-projection')).toContainText('over 30 days at this rate (projection)');
    await page.getByTestId('headline-retrySpendMicros').getByRole('link', { name: 'Retry spend' }).click();
    await expect(page).toHaveURL(/\/steps\?window=7d&sort=retrySpendMicros$/);
    await page.goto('/');
    await page.getByTestId('headline-frozenHolds').click();
    await expect(page).toHaveURL(/\/holds\?frozen=1$/);
    await page.goto('/');

    // The sidebar's counts agree with the database.
    const [counts] = await database.sql<{ firing: number; dead: number }[]>`
      select (select count(*)::int from alert_instances where status = 'firing'
          and not (acknowledged_by is not null and (acknowledged_until is null or acknowledged_until > now()))) as firing,
        (select count(*)::int from dead_letters where status = 'pending') as dead`;
    await expect(page.getByTestId('sidebar-count-firing')).toHaveText(`${counts!.firing} firing`);
    if (counts!.dead > 0) await expect(page.getByTestId('sidebar-count-waiting')).toHaveText(`${counts!.dead} waiting`);
    await page.goto('/');
    await expectAccessible();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto('/');
    await expect(page.getByTestId('incident-panel')).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  } finally {
    // Other tests count firing alerts: this one leaves none behind.
    await database.sql`update alert_instances set status = 'resolved', resolved_at = now() where id = ${alert!.id}`;
  }
});
