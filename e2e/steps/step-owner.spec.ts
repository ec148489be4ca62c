import { and, eq } from 'drizzle-orm';
import { ensureTaskBudget } from '../../packages/engine/src/core';
import { auditLog } from '../../packages/engine/src/db/schema';
import { uniqueId } from '../support/factories';
import { expect, signInAs, test } from '../support/fixtures';

/**
 * Who owns a step, answered on its page and on the Steps list: what its agent declares until an admin names an
 * owner for the agent, then one for the step, which wins. Responders see the owner, not the form.
 */
test('a step shows the owner its agent declares; an admin names owners for the agent and the step, each audited', async ({
  page,
  database,
  seeStep,
  expectAccessible,
}) => {
  const agent = uniqueId('e2e-owned');
  await seeStep(agent, 'send');
  await ensureTaskBudget(database.db, { taskId: uniqueId('task'), agent, owner: 'team:growth' });

  await page.goto(`/steps/${agent}/send`);
  await expect(page).toHaveTitle(new RegExp(`^send · ${agent}`));
  const section = page.getByTestId('step-owner-section');
  await expect(section.getByTestId('step-owner-name')).toHaveText('team:growth');
  await expect(section.getByTestId('step-owner-source')).toContainText('declared by the agent');
  await expectAccessible();

  await section.getByText('Change the owner…').click();
  const form = section.getByTestId('step-owner-form');
  await form.getByLabel(`every step of ${agent}`).check();
  await form.getByLabel('Owner', { exact: true }).fill('team:payments');
  await form.getByLabel('On-call contact').fill('payments-primary on PagerDuty');
  await form.getByLabel('Runbook').fill('https://runbooks.example.com/payments');
  await form.getByLabel('Reason').fill('payments took the agent over');
  await form.getByRole('button', { name: 'Save owner' }).click();
  await expect(page.getByTestId('toasts')).toContainText('Owner saved.');
  await expect(section.getByTestId('step-owner-name')).toHaveText('team:payments');
  await expect(section.getByTestId('step-owner-source')).toContainText('every step of the agent');
  await expect(section.getByTestId('step-owner-source')).toContainText('the agent declares team:growth');
  await expect(section.getByTestId('step-owner-contact')).toHaveText('payments-primary on PagerDuty');
  await expect(section.getByRole('link', { name: 'https://runbooks.example.com/payments' })).toBeVisible();

  // An owner nobody is in is refused beside its field; nothing changes.
  await form.getByLabel('this step only').check();
  await form.getByLabel('Owner', { exact: true }).fill('team:nobody-here');
  await form.getByLabel('Reason').fill('typo');
  await form.getByRole('button', { name: 'Save owner' }).click();
  await expect(form).toContainText('names no known team or person');
  await expect(section.getByTestId('step-owner-name')).toHaveText('team:payments');

  await form.getByLabel('Owner', { exact: true }).fill('team:platform');
  await form.getByLabel('Reason').fill('sending is platform');
  await form.getByRole('button', { name: 'Save owner' }).click();
  await expect(section.getByTestId('step-owner-name')).toHaveText('team:platform');
  await expect(section.getByTestId('step-owner-source')).toContainText('for this step');

  // The Steps list says the same, and keeps only this step for its owner.
  await page.goto(`/steps?window=1h&agent=${agent}&owner=team%3Aplatform`);
  const row = page.getByTestId(`steps-row-${agent}-send`);
  await expect(row.getByTestId('step-owner')).toHaveText('team:platform');
  await page.goto(`/steps?window=1h&agent=${agent}&owner=team%3Apayments`);
  await expect(page.getByTestId('steps-empty')).toBeVisible();

  const records = await database.db
    .select({ action: auditLog.action, targetId: auditLog.targetId, reason: auditLog.reason })
    .from(auditLog)
    .where(and(eq(auditLog.targetType, 'step_owner'), eq(auditLog.action, 'owner.save')))
    .orderBy(auditLog.id);
  expect(records.filter((record) => record.targetId.startsWith(`${agent}/`))).toEqual([
    { action: 'owner.save', targetId: `${agent}/*`, reason: 'payments took the agent over' },
    { action: 'owner.save', targetId: `${agent}/send`, reason: 'sending is platform' },
  ]);
});

test('a responder sees the owner and no form; a step nothing names says so', async ({ page, seeStep }) => {
  const agent = uniqueId('e2e-unowned');
  await seeStep(agent, 'search_web');
  await signInAs(page, 'responder');
  await page.goto(`/steps/${agent}/search_web`);
  const section = page.getByTestId('step-owner-section');
  await expect(section.getByTestId('step-owner-none')).toContainText('No owner');
  await expect(section.getByText('Change the owner…')).toHaveCount(0);
});
