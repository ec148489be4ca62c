import { randomUUID } from 'node:crypto';
import { applyBudgetsFile, beginStep, finishStep } from '../../packages/engine/src/core';
import { attemptOf } from '../../tests/support/step-input';
import { expect, signInAs, test } from '../support/fixtures';

/** The Spend budgets page: an admin adds, changes and deletes a budget; what it used and refused; read only for others. */
test('an admin adds a budget, sees what it used and refused, changes it and deletes it; others read it', async ({
  page,
  database,
  expectAccessible,
}) => {
  const agent = `e2e-budgeted-${randomUUID().slice(0, 6)}`;
  const name = `e2e ${agent}`;
  await page.goto('/');
  await page.getByRole('navigation').getByRole('link', { name: 'Spend budgets' }).click();
  const form = page.getByTestId('budget-form');
  await form.getByLabel('Name').fill(name);
  await form.getByLabel('Scope').selectOption('agent');
  await form.getByLabel('Covers').fill(agent);
  await form.getByLabel('Limit ($ a period)').fill('0.002');
  await form.getByLabel('Reason (kept in the audit log)').fill('the e2e agent may spend a fifth of a cent a day');
  await form.getByRole('button', { name: 'Add budget' }).click();
  await expect(page.getByTestId('toasts')).toContainText(`Budget added: ${name}.`);

  // Three begins of $0.001: two reserve, the third waits for the day to turn.
  const ctx = { db: database.db, actor: { type: 'agent' as const, id: 'e2e', scopes: ['ingest' as const] } };
  const answers = [];
  for (const step of ['a', 'b', 'c']) {
    answers.push(
      await beginStep(ctx, {
        taskId: `t-${randomUUID()}`,
        agent,
        step,
        owner: 'team:platform',
        estimatedCostMicros: 1_000,
        content: { step },
      }),
    );
  }
  expect(answers.map((answer) => [answer.decision, 'code' in answer ? answer.code : ''])).toEqual([
    ['run', ''],
    ['run', ''],
    ['wait', 'BUDGET_EXHAUSTED'],
  ]);
  await page.reload();
  const row = page.getByTestId(`budget-${name}`);
  await expect(row.getByTestId('budget-used')).toContainText('$0.0020 reserved (100 %)');
  await expect(row.getByTestId('budget-refusals')).toHaveText('1');
  await expect(row.getByTestId('budget-forecast')).toContainText('spent; turns');
  await expectAccessible();

  await row.getByRole('link', { name: `Edit the budget ${name}` }).click();
  const edit = page.getByTestId('budget-form');
  await expect(edit.getByLabel('Limit ($ a period)')).toHaveValue('0.002');
  await edit.getByLabel('Limit ($ a period)').fill('0.01');
  await edit.getByLabel('When spent').selectOption('stop');
  await edit.getByLabel('Reason (kept in the audit log)').fill('more room');
  await edit.getByRole('button', { name: 'Save changes' }).click();
  await expect(page.getByTestId('toasts')).toContainText(`Budget changed: ${name}.`);
  await expect(row.getByTestId('budget-used')).toContainText('(20 %)');

  // A bad limit is named beside its field, and nothing changes.
  await page.goto('/settings/budgets');
  await page.getByTestId('budget-form').getByLabel('Name').fill(`${name} bad`);
  await page.getByTestId('budget-form').getByLabel('Limit ($ a period)').fill('-1');
  await page.getByTestId('budget-form').getByLabel('Reason (kept in the audit log)').fill('x');
  await page.getByTestId('budget-form').getByRole('button', { name: 'Add budget' }).click();
  await expect(page.getByTestId('budget-error-limitUsd')).toContainText('must be more than 0');
  await expect(page.getByTestId(`budget-${name} bad`)).toHaveCount(0);

  await signInAs(page, 'responder');
  await page.goto('/settings/budgets');
  await expect(page.getByTestId('budgets-read-only')).toContainText('this needs the admin role');
  await expect(page.getByTestId(`budget-${name}`)).toBeVisible();

  await signInAs(page, 'admin');
  await page.goto('/settings/budgets');
  const kept = page.getByTestId(`budget-${name}`);
  await kept.getByRole('button', { name: `Delete the budget ${name}` }).click();
  await kept.getByLabel('Reason for deleting').fill('done');
  await kept.getByRole('button', { name: 'Delete budget' }).click();
  await expect(page.getByTestId('toasts')).toContainText(`Deleted the budget ${name}.`);
  await expect(kept).toHaveCount(0);
});

/** A budget's own page, reached from the list: its burn-down, its top spenders; a file's budget read only. */
test("a budget's page shows its burn-down and top spenders; a budget kept in a file is read only", async ({
  page,
  database,
  expectAccessible,
}) => {
  const agent = `e2e-burn-${randomUUID().slice(0, 6)}`;
  const name = `e2e ${agent}`;
  const fileBudget = { name, next: { scope: 'agent' as const, scopeValue: agent, period: 'day' as const } };
  await applyBudgetsFile(database.db, 'budgets.json', [
    {
      ...fileBudget,
      next: {
        ...fileBudget.next,
        limitMicros: 50_000,
        warnPercents: [50, 80, 100],
        onExhausted: 'wait',
        firstAttemptPercent: null,
      },
    },
  ]);
  const ctx = { db: database.db, actor: { type: 'agent' as const, id: 'e2e', scopes: ['ingest' as const] } };
  for (const [step, cost] of [
    ['research', 4_000],
    ['research', 3_000],
    ['write', 2_500],
  ] as const) {
    const begun = await beginStep(ctx, {
      taskId: `t-${randomUUID()}`,
      agent,
      step,
      owner: 'team:platform',
      estimatedCostMicros: 5_000,
      content: { step },
    });
    await finishStep(ctx, { ...attemptOf(begun), outcome: 'succeeded', costMicros: cost });
  }

  await page.goto('/settings/budgets');
  const row = page.getByTestId(`budget-${name}`);
  await expect(row).toContainText('From the budgets file budgets.json');
  await expect(row.getByTestId('budget-kept-in')).toHaveText('Kept in budgets.json: change it there');
  await expect(row.getByRole('link', { name: `Edit the budget ${name}` })).toHaveCount(0);

  await row.getByRole('link', { name }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(name);
  await expect(page.getByTestId('budget-facts')).toContainText('$0.0095 of $0.0500 (19.0%)');
  await expect(page.getByTestId('budget-burn-chart')).toBeVisible();
  const spenders = page.getByTestId('budget-spender');
  await expect(spenders).toHaveCount(2);
  await expect(spenders.first()).toContainText(`${agent}/research`);
  await expect(spenders.first()).toContainText('$0.0070');
  await expectAccessible();
  await spenders.first().getByRole('link').click();
  await expect(page).toHaveURL(new RegExp(`/steps/${agent}/research`));

  await applyBudgetsFile(database.db, 'budgets.json', []);
});
