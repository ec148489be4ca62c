import { sql } from 'drizzle-orm';
import { uniqueId } from '../support/factories';
import { expect, signInAs, test } from '../support/fixtures';

test('an admin overrides a step’s retry policy live from its page, and removes the override; both audited', async ({
  page,
  database,
  seeStep,
  expectAccessible,
}) => {
  const agent = uniqueId('e2e-policy');
  const step = 'send_email';
  await seeStep(agent, step);
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

test('a responder sees the step’s policy but not the form to change it', async ({ page, seeStep }) => {
  const agent = uniqueId('e2e-policy');
  await seeStep(agent, 'plan');
  await signInAs(page, 'responder');
  await page.goto(`/steps/${agent}/plan`);
  await expect(page.getByTestId('step-policy')).toContainText('Classes retried');
  await expect(page.getByText('Change the policy live…')).toHaveCount(0);
});

test('the simulator replays a step under another policy and an admin applies it as the override', async ({
  page,
  database,
  recordAttempts,
}) => {
  const agent = uniqueId('e2e-sim');
  const step = 'send_email';
  const base = Date.now() - 3 * 3_600_000;
  // One task that succeeded at its 3rd attempt (two 503s first), one that succeeded at once.
  const taskId = uniqueId('task');
  await recordAttempts([
    ...[1, 2, 3].map((attemptNumber) => ({
      taskId,
      agent,
      step,
      attemptNumber,
      startedAt: new Date(base + attemptNumber * 60_000),
      finishedAt: new Date(base + attemptNumber * 60_000 + 1_000),
      outcome: attemptNumber === 3 ? ('succeeded' as const) : ('failed' as const),
      ...(attemptNumber === 3 ? {} : { errorClass: 'transient' as const, errorText: '503' }),
      costMicros: 20_000,
    })),
    {
      taskId: uniqueId('task'),
      agent,
      step,
      attemptNumber: 1,
      startedAt: new Date(base),
      finishedAt: new Date(base + 1_000),
      outcome: 'succeeded' as const,
      costMicros: 20_000,
    },
  ]);
  await page.goto(`/steps/${agent}/${step}`);
  await page.getByText('What if it retried less? Simulate another policy…').click();
  const simulator = page.getByTestId('policy-simulator');
  await simulator.getByLabel('At most attempts').fill('2');
  await simulator.getByRole('button', { name: 'Simulate' }).click();
  const result = page.getByTestId('simulation-result');
  await expect(result).toContainText('Of 2 execution(s), 1 would have stopped sooner');
  await expect(result).toContainText('$0.0200 of retry spend saved (1 attempt(s))');
  await expect(result).toContainText('1 task(s) that succeeded would have ended failed');
  await expect(result.getByTestId('simulation-window')).toContainText('in whole hours');
  await result.getByRole('button', { name: 'Apply as override…' }).click();
  await page
    .getByRole('dialog', { name: 'Apply this policy to the step?' })
    .getByRole('button', { name: 'Apply' })
    .click();
  await expect(page.getByTestId('toasts')).toContainText('Applied as this step’s override');
  const [policy] = await database.db.execute<{ max_attempts: number }>(
    sql`select max_attempts from step_policies where agent = ${agent} and step = ${step}`,
  );
  expect(policy).toEqual({ max_attempts: 2 });
});
