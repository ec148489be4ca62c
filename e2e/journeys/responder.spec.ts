import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { saveStepOwner } from '../../packages/engine/src/core';
import { alertInstances } from '../../packages/engine/src/db/schema';
import { formatCount, formatMicros } from '../../lib/console/format';
import { createToken, uniqueId } from '../support/factories';
import { expect, test } from '../support/fixtures';

const admin = { type: 'person' as const, id: 'ada@holdfast.demo', role: 'admin' as const, teams: ['platform'] };

/**
 * The responder's journey, from the firing alert to the pause: the Alerts page opens on it and names whom it
 * is about, one link leads to the step, whose tiles are the API's figures, and the pause is a form on that page.
 * Clicks counted: Alerts, the alert's link, the pause's length, Pause…, Pause (5; the reason is typed).
 */
test('a responder goes from the firing alert to the step it is about, reads its figures and pauses it', async ({
  page,
  database,
  recordAttempts,
  expectAccessible,
}) => {
  const agent = uniqueId('e2e-burning');
  const step = 'call_model';
  const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);
  const taskId = `task-${randomUUID().slice(0, 8)}`;
  // A rate limit retried twice before it went through: $0.002 and $0.002 failed, $0.004 succeeded.
  await recordAttempts(
    [1, 2, 3].map((attemptNumber) => ({
      taskId,
      agent,
      step,
      attemptNumber,
      outcome: attemptNumber < 3 ? ('failed' as const) : ('succeeded' as const),
      ...(attemptNumber < 3 ? { errorClass: 'rate_limited', errorText: '429 Too Many Requests' } : {}),
      costMicros: attemptNumber < 3 ? 2_000 : 4_000,
      startedAt: minutesAgo(20 - attemptNumber),
      finishedAt: minutesAgo(20 - attemptNumber),
    })),
  );
  await saveStepOwner({ db: database.db, actor: admin }, { agent, step: '*', owner: 'team:platform', reason: 'e2e' });
  const [alert] = await database.db
    .insert(alertInstances)
    .values({
      kind: 'retry_share_anomaly',
      identity: `step:${agent}/${step}`,
      title: `Retry share anomaly on ${agent}/${step}`,
      detail: 'Retries took 50.0% of this step’s spend over the last 24 hours',
      link: `/steps/${agent}/${step}`,
      team: 'platform',
      firedAt: minutesAgo(5),
    })
    .returning({ id: alertInstances.id });
  try {
    await page.goto('/');
    await page
      .getByRole('navigation')
      .getByRole('link', { name: /^Alerts/ })
      .click();
    const row = page.getByTestId(`alert-instance-${alert!.id}`);
    await expect(row.getByTestId('alert-owner')).toHaveText('team:platform');
    await expect(row.getByTestId('alert-team')).toHaveText('to team platform');
    await expectAccessible();

    await row.getByTestId('alert-link').click();
    await expect(page).toHaveURL(new RegExp(`/steps/${agent}/${step}$`));
    // The tiles are the API's figures for the same step and window.
    const { token } = await createToken(database, { scopes: ['read'], allowedAgents: [agent] });
    const answer = await page.request.get('/api/v1/step-stats?window=24h', {
      headers: { authorization: `Bearer ${token}` },
    });
    const [figures] = ((await answer.json()) as { steps: Record<string, number>[] }).steps;
    const tile = (key: string) => page.getByTestId(`step-headline-${key}`).getByTestId('value');
    await expect(tile('attempts')).toHaveText(formatCount(figures!.attempts!));
    await expect(tile('retrySpendMicros')).toHaveText(formatMicros(figures!.retrySpendMicros!));
    await expect(tile('totalSpendMicros')).toHaveText('$0.0080');
    // When the figures were read, and what they are compared with: this step had no window before.
    const headline = page.getByTestId('step-headline');
    const asOf = Date.parse((await headline.locator('time').getAttribute('datetime')) ?? '');
    expect(Math.abs(Date.now() - asOf)).toBeLessThan(120_000);
    await expect(headline).toContainText('The window before had no attempts: nothing to compare with.');
    // The orange line is named: the retry rate chart has its legend.
    await expect(page.getByTestId('chart-retry-rate').locator('.recharts-legend-item-text')).toHaveText('Retry rate');

    const section = page.getByTestId('step-pauses');
    await section.getByLabel('For').selectOption('60');
    await section.getByLabel('Reason').fill('Provider rate limits everyone; retries only burn money');
    await section.getByRole('button', { name: 'Pause…' }).click();
    await page
      .getByRole('dialog', { name: `Pause step ${agent}/${step}?` })
      .getByRole('button', { name: 'Pause', exact: true })
      .click();
    await expect(section.getByRole('heading', { name: 'This step is paused' })).toBeVisible();
    const [pause] = await database.sql<{ paused_by: string }[]>`
      select paused_by from pauses where agent = ${agent} and step = ${step} and resumed_at is null`;
    expect(pause).toEqual({ paused_by: 'person:ada@holdfast.demo' });
  } finally {
    // Nothing of this test stays on every page's notices: its pause is lifted and its alert resolved.
    await database.db.execute(
      sql`update pauses set resumed_at = now(), resumed_by = 'e2e' where agent = ${agent} and resumed_at is null`,
    );
    await database.db
      .update(alertInstances)
      .set({ status: 'resolved', resolvedAt: new Date() })
      .where(eq(alertInstances.id, alert!.id));
  }
});
