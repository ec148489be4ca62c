import { sql } from 'drizzle-orm';
import { uniqueId } from '../support/factories';
import { expect, signInAs, test } from '../support/fixtures';

test('an admin overrides a step’s retry policy live from its page, and removes the override; both audited', async ({
  page,
  database,
  recordAttempts,
  expectAccessible,
}) => {
  const agent = uniqueId('e2e-policy');
  const step = 'send_email';
  const startedAt = new Date(Date.now() - 5 * 60_000);
  await recordAttempts([
    { taskId: uniqueId('task'), agent, step, attemptNumber: 1, startedAt, finishedAt: startedAt, outcome: 'succeeded' },
  ]);
  await page.goto(`/steps/${agent}/${step}`);
  const section = page.getByTestId('step-policy');
  await expect(section.getByRole('heading', { name: 'Retry policy' })).toBeVisible();
  await section.getByText('Change the policy live…').click();
  const form = page.getByTestId('step-policy-form');
  await form.getByLabel('Maximum attempts').fill('2');
  await form.getByLabel('Retry only these classes:').check();
  await form.getByLabel('rate_limited').uncheck();
  await form.getByLabel('Reason').fill('the mail API is rate limiting us');
  await expectAccessible();
  await form.getByRole('button', { name: 'Save override' }).click();
  await expect(page.getByTestId('toasts')).toContainText('Override saved');
  await expect(section.getByRole('heading', { name: 'Retry policy (overridden)' })).toBeVisible();
  const table = page.getByTestId('step-policy-table');
  await expect(table.getByRole('row', { name: /Maximum attempts/ })).toContainText('2');
  await expect(table.getByRole('row', { name: /Classes retried/ })).toContainText('transient, timeout, invalid_output');

  const [saved] = await database.db.execute<{ actor_id: string; after: { maxAttempts: number } }>(sql`
    select actor_id, after from audit_log where action = 'step_policy.save' and target_id = ${`${agent}/${step}`}`);
  expect(saved).toMatchObject({ actor_id: 'ada@holdfast.demo', after: { maxAttempts: 2 } });

  await form.getByLabel('Reason').fill('limits lifted');
  await form.getByRole('button', { name: 'Remove override' }).click();
  await expect(page.getByTestId('toasts')).toContainText('Override removed');
  await expect(section.getByRole('heading', { name: 'Retry policy', exact: true })).toBeVisible();
});

test('a responder sees the step’s policy but not the form to change it', async ({ page, recordAttempts }) => {
  const agent = uniqueId('e2e-policy');
  const startedAt = new Date(Date.now() - 5 * 60_000);
  await recordAttempts([
    {
      taskId: uniqueId('task'),
      agent,
      step: 'plan',
      attemptNumber: 1,
      startedAt,
      finishedAt: startedAt,
      outcome: 'succeeded',
    },
  ]);
  await signInAs(page, 'responder');
  await page.goto(`/steps/${agent}/plan`);
  await expect(page.getByTestId('step-policy')).toContainText('Classes retried');
  await expect(page.getByText('Change the policy live…')).toHaveCount(0);
});
