import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { sliceStartOf } from '../../packages/engine/src/core/retry-pools/pool-usage';
import { auditLog, retryPoolUsage } from '../../packages/engine/src/db/schema';
import { expect, signInAs, test } from '../support/fixtures';

const uniqueAgent = (label: string) => `e2e-pool-${label}-${randomUUID().slice(0, 6)}`;

test('an admin adds a pool and sees it listed with its level, changes it, and deletes it with a reason', async ({
  page,
  database,
  expectAccessible,
}) => {
  const agent = uniqueAgent('admin');
  // Usage the step engine would have counted: 50 first attempts, 3 retries and 2 refusals just now.
  await database.db.insert(retryPoolUsage).values({
    agent,
    step: 'charge_card',
    sliceStart: sliceStartOf(new Date()),
    firstAttempts: 50,
    retries: 3,
    refusals: 2,
  });

  await page.goto('/settings/retry-pools');
  const form = page.getByTestId('pool-form');
  await form.getByLabel('Agent').fill(agent);
  await form.getByLabel('Budget (% of first attempts)').fill('20');
  await form.getByLabel('Floor (retries per second)').fill('0.1');
  await form.getByLabel('Window (seconds)').fill('3600');
  await expect(form.getByTestId('pool-summary')).toContainText(
    "In any 3,600 s, retries may be 20% of that window's first attempts plus 360",
  );
  await form.getByLabel('Reason (kept in the audit log)').fill('card processor outage');
  await form.getByRole('button', { name: 'Save pool' }).click();
  // Announced in the live region, focus kept on the button pressed.
  await expect(page.getByTestId('toasts')).toContainText(`Pool added for ${agent} / all steps.`);
  await expect(form.getByRole('button', { name: 'Save pool' })).toBeFocused();

  // 50 x 20 % + 0.1/s x 3,600 s = 370 allowed, 3 taken.
  const row = page.getByTestId(`pool-row-${agent}-*`);
  await expect(row).toContainText('all steps');
  await expect(row.getByTestId('pool-level')).toHaveText('left 367 of 370');
  await expect(row.getByTestId('refused-window')).toHaveText('2');
  await expect(row.getByTestId('refused-24h')).toHaveText('2');
  await expect(row).toContainText('person:');
  await expectAccessible();

  // The Overview lists the pool among those that refused retries.
  await page.goto('/');
  await expect(page.getByTestId(`pool-refusals-${agent}-*`)).toContainText('2 refused · left 367 of 370 now');

  await page.goto('/settings/retry-pools');
  await page.getByRole('link', { name: `Edit the pool of ${agent} / all steps` }).click();
  const edit = page.getByTestId('pool-form');
  await expect(edit.getByRole('heading', { name: `Change the pool of ${agent} / all steps` })).toBeVisible();
  await expect(row).toHaveAttribute('aria-current', 'true');
  await edit.getByLabel('Budget (% of first attempts)').fill('10');
  await edit.getByLabel('Reason (kept in the audit log)').fill('still too many retries');
  await edit.getByRole('button', { name: 'Save changes' }).click();
  await expect(page.getByTestId('toasts')).toContainText(`Pool changed for ${agent} / all steps.`);
  await expect(row.getByTestId('pool-level')).toHaveText('left 362 of 365');

  await row.getByRole('button', { name: `Delete the pool of ${agent} / all steps` }).click();
  await row.getByLabel('Reason for deleting').fill('processor replaced');
  await row.getByRole('button', { name: 'Delete pool' }).click();
  await expect(row).toHaveCount(0);
  await expect(page.getByTestId('toasts')).toContainText(`Deleted the pool of ${agent} / all steps.`);

  const audit = await database.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.targetType, 'retry_pool'), eq(auditLog.targetId, `${agent}/*`)))
    .orderBy(auditLog.id);
  expect(audit.map((record) => [record.action, record.reason])).toEqual([
    ['retry_pool.save', 'card processor outage'],
    ['retry_pool.save', 'still too many retries'],
    ['retry_pool.delete', 'processor replaced'],
  ]);
});

test('a refused save names the bad field and keeps what was typed', async ({ page }) => {
  await page.goto('/settings/retry-pools');
  const form = page.getByTestId('pool-form');
  await form.getByLabel('Agent').fill('not a name');
  await form.getByLabel('Step').fill('send_email');
  await form.getByLabel('Reason (kept in the audit log)').fill('trying');
  await form.getByRole('button', { name: 'Save pool' }).click();
  await expect(form.getByTestId('pool-error-agent')).toHaveText('may contain only letters, digits and _ . : -');
  await expect(form.getByLabel('Agent')).toHaveAttribute('aria-invalid', 'true');
  await expect(form.getByLabel('Agent')).toHaveValue('not a name');
  await expect(form.getByLabel('Step')).toHaveValue('send_email');
});

test('a pool that allows no retries at all is saved only after a warning', async ({ page, database }) => {
  const agent = uniqueAgent('zero');
  await page.goto('/settings/retry-pools');
  const form = page.getByTestId('pool-form');
  await form.getByLabel('Agent').fill(agent);
  await form.getByLabel('Budget (% of first attempts)').fill('0');
  await form.getByLabel('Floor (retries per second)').fill('0');
  await expect(form.getByTestId('pool-summary')).toContainText('No retry may run at all');
  await form.getByLabel('Reason (kept in the audit log)').fill('stop every retry');
  await form.getByRole('button', { name: 'Save pool' }).click();
  const confirm = page.getByRole('dialog', { name: 'Save a pool that allows no retries?' });
  await expect(confirm).toBeVisible();
  // Cancelled: nothing saved.
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  const saved = () => database.sql`select 1 from retry_pools where agent = ${agent}`;
  expect(await saved()).toHaveLength(0);
  // Confirmed: saved.
  await form.getByRole('button', { name: 'Save pool' }).click();
  await page
    .getByRole('dialog', { name: 'Save a pool that allows no retries?' })
    .getByRole('button', { name: 'Save anyway' })
    .click();
  await expect(page.getByTestId('toasts')).toContainText(`Pool added for ${agent} / all steps.`);
  expect(await saved()).toHaveLength(1);
});

test('the Steps page marks a step covered by a pool with its room and its refusals', async ({
  page,
  database,
  recordAttempts,
}) => {
  const agent = uniqueAgent('steps');
  await recordAttempts([
    {
      taskId: `task-${agent}`,
      agent,
      step: 'publish',
      attemptNumber: 1,
      outcome: 'succeeded',
      startedAt: new Date(Date.now() - 60_000),
      finishedAt: new Date(Date.now() - 59_000),
    },
  ]);
  await database.db.insert(retryPoolUsage).values({
    agent,
    step: 'publish',
    sliceStart: sliceStartOf(new Date()),
    firstAttempts: 10,
    retries: 2,
    refusals: 4,
  });

  await page.goto('/settings/retry-pools');
  const form = page.getByTestId('pool-form');
  await form.getByLabel('Agent').fill(agent);
  await form.getByLabel('Step').fill('publish');
  await form.getByLabel('Budget (% of first attempts)').fill('20');
  await form.getByLabel('Floor (retries per second)').fill('0');
  await form.getByLabel('Window (seconds)').fill('600');
  await form.getByLabel('Reason (kept in the audit log)').fill('publishing API is fragile');
  await form.getByRole('button', { name: 'Save pool' }).click();
  await expect(page.getByTestId(`pool-row-${agent}-publish`).getByTestId('pool-level')).toHaveText('left 0 of 2');

  await page.goto(`/steps?agent=${agent}`);
  await expect(page.getByTestId(`steps-row-${agent}-publish`).getByTestId('retry-pool-badge')).toContainText(
    'retry pool: 0 left / refused 4',
  );
});

test('a viewer sees the pools read only, with no form and the reason why', async ({ page, expectAccessible }) => {
  const agent = uniqueAgent('viewer');
  await page.goto('/settings/retry-pools');
  const form = page.getByTestId('pool-form');
  await form.getByLabel('Agent').fill(agent);
  await form.getByLabel('Reason (kept in the audit log)').fill('for the viewer test');
  await form.getByRole('button', { name: 'Save pool' }).click();
  await expect(page.getByTestId(`pool-row-${agent}-*`)).toBeVisible();

  await signInAs(page, 'viewer');
  await page.goto('/settings/retry-pools');
  await expect(page.getByTestId('retry-pools-read-only')).toContainText('this needs the admin role');
  await expect(page.getByTestId('pool-form')).toHaveCount(0);
  const row = page.getByTestId(`pool-row-${agent}-*`);
  await expect(row.getByTestId('pool-level')).toHaveText('left 6 of 6');
  await expect(row.getByRole('link', { name: /Edit/ })).toHaveCount(0);
  await expect(row.getByRole('button', { name: /Delete/ })).toHaveCount(0);
  await expectAccessible();
});
