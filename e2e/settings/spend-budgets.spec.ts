import { randomUUID } from 'node:crypto';
import { applyBudgetsFile, beginStep, deleteSpendBudget, finishStep } from '../../packages/engine/src/core';
import { admin } from '../../tests/support/actors';
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

/** The periods beyond the UTC calendar and a model's budget, from the form to a refused begin. */
test("an admin adds a weekly budget from a chosen start and a model's rolling hour; the rolling one fills", async ({
  page,
  database,
}) => {
  const suffix = randomUUID().slice(0, 6);
  await page.goto('/settings/budgets');
  const form = page.getByTestId('budget-form');
  // A custom period's length and start are asked only when it is chosen.
  await expect(form.getByLabel('Each period lasts (hours)')).toHaveCount(0);
  // An agent's week (the e2e fleet shares one database: a fleet budget would hold every other test's work).
  await form.getByLabel('Name').fill(`e2e weekly ${suffix}`);
  await form.getByLabel('Scope').selectOption('agent');
  await form.getByLabel('Covers').fill(`e2e-weekly-${suffix}`);
  await form.getByLabel('Period', { exact: true }).selectOption('custom');
  await form.getByLabel('Each period lasts (hours)').fill('168');
  await form.getByLabel('First period began (UTC)').fill('2026-11-30 00:00');
  await form.getByLabel('Limit ($ a period)').fill('900');
  await form.getByLabel('Reason (kept in the audit log)').fill('the agent may spend $900 a week from Monday');
  await form.getByRole('button', { name: 'Add budget' }).click();
  await expect(page.getByTestId('toasts')).toContainText(`Budget added: e2e weekly ${suffix}.`);
  await expect(page.getByTestId(`budget-e2e weekly ${suffix}`)).toContainText('$900.00 every 7 days');

  const model = `E2E-Model-${suffix}`;
  await page.getByTestId('budget-form').getByLabel('Name').fill(`e2e model ${suffix}`);
  await page.getByTestId('budget-form').getByLabel('Scope').selectOption('model');
  await page.getByTestId('budget-form').getByLabel('Covers').fill(model);
  await page.getByTestId('budget-form').getByLabel('Period', { exact: true }).selectOption('rolling_hour');
  await page.getByTestId('budget-form').getByLabel('Limit ($ a period)').fill('0.001');
  await page.getByTestId('budget-form').getByLabel('Reason (kept in the audit log)').fill('one call an hour');
  await page.getByTestId('budget-form').getByRole('button', { name: 'Add budget' }).click();
  await expect(page.getByTestId('toasts')).toContainText(`Budget added: e2e model ${suffix}.`);

  const ctx = { db: database.db, actor: { type: 'agent' as const, id: 'e2e', scopes: ['ingest' as const] } };
  const begin = (step: string) =>
    beginStep(ctx, {
      taskId: `t-${randomUUID()}`,
      agent: `e2e-caller-${suffix}`,
      step,
      model: `${model.toLowerCase()}-2026-01-01`,
      owner: 'team:platform',
      estimatedCostMicros: 1_000,
      content: { step },
    });
  expect((await begin('first')).decision).toBe('run');
  expect(await begin('second')).toMatchObject({ decision: 'wait', code: 'BUDGET_EXHAUSTED' });
  await page.reload();
  const row = page.getByTestId(`budget-e2e model ${suffix}`);
  await expect(row).toContainText(`model ${model.toLowerCase()}`);
  await expect(row).toContainText('$0.0010 the last hour (rolling)');
  await expect(row.getByTestId('budget-forecast')).toContainText('full; room again as spend leaves it');
  for (const name of [`e2e weekly ${suffix}`, `e2e model ${suffix}`]) {
    await deleteSpendBudget({ db: database.db, actor: admin }, { name, reason: 'e2e: done' });
  }
});

/** A budget's own page, reached from the list: its burn-down, its top spenders; a file's budget read only. */
test("a budget's page shows its burn-down and top spenders; a budget kept in a file is read only", async ({
  page,
  database,
  expectAccessible,
}) => {
  const agent = `e2e-burn-${randomUUID().slice(0, 6)}`;
  const name = `e2e ${agent}`;
  const fileBudget = {
    name,
    next: {
      scope: 'agent' as const,
      scopeValue: agent,
      period: 'day' as const,
      resetEveryHours: null,
      resetFrom: null,
    },
  };
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
