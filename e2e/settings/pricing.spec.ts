import { randomUUID } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import type { Locator, Page } from '@playwright/test';
import type { Actor } from '../../packages/engine/src/core';
import {
  deletePriceOverride,
  savePriceOverride,
  saveRefusedStatuses,
} from '../../packages/engine/src/core/pricing/manage-pricing';
import { DEFAULT_PRICING_RULES } from '../../packages/engine/src/core/pricing/pricing-rules';
import type { DatabaseConnection } from '../../packages/engine/src/db/client';
import { auditLog } from '../../packages/engine/src/db/schema';
import { DEFAULT_ERROR_CLASS_RULES, readErrorClassRules } from '../../packages/engine/src/traces/error-class-rules';
import { rulesFingerprint, saveErrorClassRules } from '../../packages/engine/src/traces/manage-error-class-rules';
import type { ErrorClassRuleInput } from '../../packages/engine/src/traces/manage-error-class-rules-input';
import { expect, signInAs, test } from '../support/fixtures';

/**
 * Settings, Costs and errors (/settings/pricing). Overrides are made under models of the test's
 * own; the failed-call rule's statuses and the error class rules are one table each for the whole
 * instance, so the tests that change them put the defaults back before and after.
 */

const admin: Actor = { type: 'person', id: 'ada@holdfast.demo', role: 'admin', teams: ['platform'] };
const uniqueModel = (label: string) => `e2e-${label}-${randomUUID().slice(0, 8)}`;
const toasts = (page: Page) => page.getByTestId('toasts');
const defaultStatuses = [...DEFAULT_PRICING_RULES.refusedStatuses].sort((a, b) => a - b);
/** How many error class rules the table holds as installed. */
const DEFAULTS = DEFAULT_ERROR_CLASS_RULES.length;
const defaultRules: ErrorClassRuleInput[] = DEFAULT_ERROR_CLASS_RULES.map((rule) =>
  rule.errorTypeContains
    ? { when: 'words', words: rule.errorTypeContains, errorClass: rule.errorClass }
    : { when: 'status', from: rule.httpStatusFrom!, to: rule.httpStatusTo!, errorClass: rule.errorClass },
);

/** The fingerprint of a table as the save stores it (positions do not count). */
const fingerprintOf = (rules: ErrorClassRuleInput[]) =>
  rulesFingerprint(
    rules.map((rule, index) => ({
      position: index,
      httpStatusFrom: rule.when === 'status' ? rule.from : null,
      httpStatusTo: rule.when === 'status' ? rule.to : null,
      errorTypeContains: rule.when === 'words' ? rule.words : null,
      errorClass: rule.errorClass,
    })),
  );

async function putBackDefaults(database: DatabaseConnection) {
  const ctx = { db: database.db, actor: admin };
  await saveErrorClassRules(ctx, { rules: defaultRules, reason: 'e2e: the default rules for the next test' });
  await saveRefusedStatuses(ctx, { statuses: defaultStatuses, reason: 'e2e: the default statuses for the next test' });
}

async function storedStatuses(database: DatabaseConnection): Promise<number[]> {
  const rows = await database.db.execute<{ http_status: number }>(
    sql`select http_status from refused_call_statuses order by http_status`,
  );
  return rows.map((row) => row.http_status);
}

async function auditOf(database: DatabaseConnection, targetId: string) {
  const records = await database.db.select().from(auditLog).where(eq(auditLog.targetId, targetId)).orderBy(auditLog.id);
  return records.map((record) => [record.action, record.reason]);
}

/** Presses Tab until `target` has focus: it is reachable from the keyboard, in the page's order. */
async function tabTo(page: Page, target: Locator, most = 80) {
  for (let presses = 0; presses < most; presses += 1) {
    if (await target.evaluate((element) => element === document.activeElement)) return;
    await page.keyboard.press('Tab');
  }
  await expect(target, `not reached within ${most} presses of Tab`).toBeFocused();
}

test('an admin adds a price override, changes it and deletes it with a reason, each in the audit log', async ({
  page,
  database,
  expectAccessible,
}) => {
  const model = uniqueModel('override');
  await page.goto('/settings/pricing');
  await expect(page.getByRole('heading', { level: 1, name: 'Costs and errors' })).toBeVisible();
  const form = page.getByTestId('override-form');
  await form.getByLabel('Provider').fill('OpenAI');
  await form.getByLabel('Model').fill(model);
  await form.getByLabel('Input ($ / M tokens)').fill('2.5');
  await form.getByLabel('Output ($ / M tokens)').fill('10');
  await form.getByLabel('Cache read ($ / M tokens)').fill('1.25');
  await form.getByLabel('Reason (kept in the audit log)').fill('enterprise agreement');
  await form.getByRole('button', { name: 'Save override' }).click();
  await expect(toasts(page)).toContainText(`Price override added for openai / ${model}.`);
  await expect(form.getByRole('button', { name: 'Save override' })).toBeFocused();

  // The provider is stored as the price table names it, in lower case.
  const row = page.getByTestId(`override-row-openai-${model}`);
  await expect(row.getByTestId('override-input')).toHaveText('$2.50');
  await expect(row.getByTestId('override-output')).toHaveText('$10.00');
  await expect(row.getByTestId('override-cache-read')).toHaveText('$1.25');
  await expect(row.getByTestId('override-cache-write')).toHaveText('= input');
  await expect(row).toContainText('person:ada@holdfast.demo');
  await expectAccessible();

  await row.getByRole('link', { name: `Edit the override for openai / ${model}` }).click();
  const edit = page.getByTestId('override-form');
  await expect(edit.getByRole('heading', { name: `Change the prices of openai / ${model}` })).toBeVisible();
  await expect(row).toHaveAttribute('aria-current', 'true');
  await expect(edit.getByLabel('Input ($ / M tokens)')).toHaveValue('2.5');
  await edit.getByLabel('Output ($ / M tokens)').fill('8.125');
  await edit.getByLabel('Cache write ($ / M tokens)').fill('3.75');
  await edit.getByLabel('Reason (kept in the audit log)').fill('price cut from April');
  await edit.getByRole('button', { name: 'Save changes' }).click();
  await expect(toasts(page)).toContainText(`Price override changed for openai / ${model}.`);
  await expect(row.getByTestId('override-output')).toHaveText('$8.125');
  await expect(row.getByTestId('override-cache-write')).toHaveText('$3.75');

  await row.getByRole('button', { name: `Delete the override for openai / ${model}` }).click();
  await expect(row.getByLabel('Reason for deleting')).toBeFocused();
  await row.getByLabel('Reason for deleting').fill('agreement ended');
  await row.getByRole('button', { name: 'Delete override' }).click();
  await expect(toasts(page)).toContainText(`Deleted the override for openai / ${model}`);
  await expect(row).toHaveCount(0);
  await expect(page.getByRole('heading', { name: 'Price overrides', exact: true })).toBeFocused();

  expect(await auditOf(database, `openai/${model}`)).toEqual([
    ['price_override.save', 'enterprise agreement'],
    ['price_override.save', 'price cut from April'],
    ['price_override.delete', 'agreement ended'],
  ]);
  const [saved] = await database.db
    .select({ after: auditLog.after })
    .from(auditLog)
    .where(and(eq(auditLog.targetId, `openai/${model}`), eq(auditLog.reason, 'price cut from April')));
  expect(saved?.after).toEqual({
    inputPerMillion: 2.5,
    outputPerMillion: 8.125,
    cacheReadPerMillion: 1.25,
    cacheWritePerMillion: 3.75,
  });
});

test.describe('the instance-wide rules', () => {
  test.beforeEach(async ({ database }) => putBackDefaults(database));
  test.afterEach(async ({ database }) => putBackDefaults(database));

  test('an admin changes the failed-call rule’s statuses, audited with the lists before and after', async ({
    page,
    database,
  }) => {
    const reason = `gateway answers 409 itself ${randomUUID().slice(0, 6)}`;
    await page.goto('/settings/pricing');
    const form = page.getByTestId('statuses-form');
    const statuses = form.getByLabel('HTTP statuses of a refused call');
    await expect(statuses).toHaveValue('400, 401, 403, 404, 413, 422, 429');
    await statuses.fill('429, 409 400,401, 403, 404, 413, 422, 429');
    await form.getByLabel('Reason (kept in the audit log)').fill(reason);
    await form.getByRole('button', { name: 'Save statuses' }).click();
    await expect(toasts(page)).toContainText('Refused statuses saved: 400, 401, 403, 404, 409, 413, 422, 429.');
    await expect(form.getByRole('button', { name: 'Save statuses' })).toBeFocused();
    // The list is shown as stored: sorted, each once.
    await expect(statuses).toHaveValue('400, 401, 403, 404, 409, 413, 422, 429');
    expect(await storedStatuses(database)).toEqual([400, 401, 403, 404, 409, 413, 422, 429]);
    const [record] = await database.db.select().from(auditLog).where(eq(auditLog.reason, reason));
    expect(record).toMatchObject({
      action: 'refused_call_statuses.save',
      targetId: 'refused_call_statuses',
      before: defaultStatuses,
      after: [400, 401, 403, 404, 409, 413, 422, 429],
    });
  });

  test('bad values name their field and write nothing: a negative price, a status 200, a missing reason', async ({
    page,
    database,
    expectAccessible,
  }, testInfo) => {
    const model = uniqueModel('refused');
    await page.goto('/settings/pricing');
    const form = page.getByTestId('override-form');
    await form.getByLabel('Model').fill(model);
    await form.getByLabel('Input ($ / M tokens)').fill('-1');
    await form.getByLabel('Output ($ / M tokens)').fill('4');
    await form.getByLabel('Reason (kept in the audit log)').fill('trying a negative price');
    await form.getByRole('button', { name: 'Save override' }).click();
    await expect(form.getByTestId('override-error-inputPerMillion')).toHaveText('must be 0 or more');
    await expect(form.getByLabel('Input ($ / M tokens)')).toHaveAttribute('aria-invalid', 'true');
    await expect(form.getByLabel('Model')).toHaveValue(model);
    await expect(form.getByRole('alert')).toHaveText('Check the fields marked above.');
    await expect(toasts(page)).toContainText('Not saved: check the fields marked in the form.');
    await expectAccessible();

    const statusesForm = page.getByTestId('statuses-form');
    await statusesForm.getByLabel('HTTP statuses of a refused call').fill('200, 429, 4x9');
    await statusesForm.getByLabel('Reason (kept in the audit log)').fill('trying a success status');
    await statusesForm.getByRole('button', { name: 'Save statuses' }).click();
    await expect(statusesForm.getByTestId('statuses-error-statuses')).toHaveText(
      '200: must be 4xx or 5xx; 4x9: is not a status number',
    );
    await expect(statusesForm.getByLabel('HTTP statuses of a refused call')).toHaveValue('200, 429, 4x9');

    // The rules' one reason is needed for every change: a move without one is refused.
    await page.getByRole('button', { name: 'Move rule 1 down' }).click();
    const reason = page.getByLabel('Reason for changing the rules (kept in the audit log)');
    await expect(page.getByTestId('error-rules-error-reason')).toHaveText('say why the rules are changed');
    await expect(reason).toBeFocused();
    await expect(toasts(page)).toContainText('Not saved: type a reason above the table.');
    const addForm = page.getByTestId('add-rule-form');
    await reason.fill('a success is no error');
    await addForm.getByLabel('From status').fill('600');
    await addForm.getByRole('button', { name: 'Add rule' }).click();
    await expect(addForm.getByTestId('add-rule-error-from')).toHaveText('must be an HTTP status');
    // A blank "to" is the one status "from": its error is said once.
    await expect(addForm.getByTestId('add-rule-error-to')).toHaveCount(0);
    await expect(addForm.getByRole('button', { name: 'Add rule' })).toBeFocused();
    await page.screenshot({ path: testInfo.outputPath('pricing-refused.png'), fullPage: true });

    const [override] = await database.db.execute(sql`select 1 from price_overrides where model = ${model}`);
    expect(override).toBeUndefined();
    expect(await auditOf(database, `*/${model}`)).toEqual([]);
    expect(await storedStatuses(database)).toEqual(defaultStatuses);
    expect(rulesFingerprint(await readErrorClassRules(database.db))).toBe(rulesFingerprint(DEFAULT_ERROR_CLASS_RULES));
    const refusedRules = await database.db.select().from(auditLog).where(eq(auditLog.reason, 'a success is no error'));
    expect(refusedRules).toEqual([]);
  });

  test('an admin adds an error class rule before rule 1, moves it, deletes it, and resets the table to the defaults', async ({
    page,
    database,
    expectAccessible,
  }) => {
    const reason = `teapots are permanent ${randomUUID().slice(0, 6)}`;
    await page.goto('/settings/pricing');
    const rows = page.getByTestId('error-rules-table').locator('tbody tr');
    await expect(rows).toHaveCount(DEFAULTS);
    await expect(page.getByTestId('error-rule-1').getByTestId('rule-condition')).toHaveText('HTTP 429');
    await expect(page.getByTestId('error-rule-4').getByTestId('rule-condition')).toHaveText('HTTP 500–599');
    await expect(page.getByTestId('error-rule-2').getByTestId('rule-condition')).toContainText(
      'error.type contains rate_limit',
    );

    await page.getByLabel('Reason for changing the rules (kept in the audit log)').fill(reason);
    const add = page.getByTestId('add-rule-form');
    await add.getByLabel('From status').fill('418');
    await add.getByLabel('Class').selectOption('permanent');
    await add.getByLabel('Position').selectOption({ label: 'before rule 1' });
    await add.getByRole('button', { name: 'Add rule' }).click();
    await expect(toasts(page)).toContainText('Rule added: HTTP 418 → permanent.');
    await expect(rows).toHaveCount(DEFAULTS + 1);
    await expect(page.getByTestId('error-rule-1').getByTestId('rule-condition')).toHaveText('HTTP 418');
    await expect(page.getByTestId('error-rule-1').getByTestId('rule-class')).toHaveText('permanent');
    await expect(add.getByRole('button', { name: 'Add rule' })).toBeFocused();

    await page.getByRole('button', { name: 'Move rule 1 down' }).click();
    await expect(toasts(page)).toContainText('Rule 1 moved down.');
    await expect(page.getByTestId('error-rule-2').getByTestId('rule-condition')).toHaveText('HTTP 418');
    // Focus follows the rule moved.
    await expect(page.getByRole('button', { name: 'Move rule 2 down' })).toBeFocused();
    expect((await readErrorClassRules(database.db))[1]).toMatchObject({ httpStatusFrom: 418, errorClass: 'permanent' });

    await page.getByRole('button', { name: 'Move rule 2 up' }).click();
    await expect(toasts(page)).toContainText('Rule 2 moved up.');
    await expect(page.getByTestId('error-rule-1').getByTestId('rule-condition')).toHaveText('HTTP 418');

    await page.getByRole('button', { name: 'Delete rule 1', exact: true }).click();
    const dialog = page.getByTestId('delete-rule-dialog');
    await expect(dialog).toContainText('HTTP 418 → permanent');
    await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
    await dialog.getByRole('button', { name: 'Delete rule' }).click();
    await expect(toasts(page)).toContainText('Rule 1 deleted.');
    await expect(rows).toHaveCount(DEFAULTS);
    await expect(page.getByRole('heading', { name: 'Error classes for spans' })).toBeFocused();
    expect(rulesFingerprint(await readErrorClassRules(database.db))).toBe(rulesFingerprint(DEFAULT_ERROR_CLASS_RULES));

    // Words at the end, then the defaults back.
    await add.getByLabel('Matches').selectOption('words');
    await add.getByLabel('Words').fill('quota_exceeded, slow down');
    await add.getByLabel('Class').selectOption('rate_limited');
    await add.getByRole('button', { name: 'Add rule' }).click();
    await expect(page.getByTestId(`error-rule-${DEFAULTS + 1}`).getByTestId('rule-condition')).toHaveText(
      'error.type contains quota_exceeded or slow down',
    );
    await expectAccessible();

    await page.getByRole('button', { name: 'Reset to defaults…' }).click();
    const reset = page.getByTestId('reset-rules-dialog');
    await expect(reset).toContainText(
      `The ${DEFAULTS + 1} rules in the table are replaced by the ${DEFAULTS} default rules.`,
    );
    await reset.getByRole('button', { name: 'Reset rules' }).click();
    await expect(toasts(page)).toContainText('The rules are the defaults again.');
    await expect(rows).toHaveCount(DEFAULTS);
    await expect(page.getByRole('button', { name: 'Reset to defaults…' })).toBeFocused();
    expect(rulesFingerprint(await readErrorClassRules(database.db))).toBe(rulesFingerprint(DEFAULT_ERROR_CLASS_RULES));

    const records = await database.db.select().from(auditLog).where(eq(auditLog.reason, reason)).orderBy(auditLog.id);
    expect(records.map((record) => [record.action, record.targetId])).toEqual(
      Array(6).fill(['error_class_rules.save', 'error_class_rules']),
    );
    // The first record keeps the table after the add: the new rule first, then the defaults.
    const added = records[0]?.after as unknown[] | undefined;
    expect(added).toHaveLength(DEFAULTS + 1);
    expect(added?.[0]).toMatchObject({ httpStatusFrom: 418, httpStatusTo: 418, errorClass: 'permanent' });
  });

  test('a change to rules another admin saved since the page was loaded is refused, and Reload shows theirs', async ({
    page,
    database,
  }, testInfo) => {
    await page.goto('/settings/pricing');
    await expect(page.getByTestId('error-rules-table').locator('tbody tr')).toHaveCount(DEFAULTS);
    const theirs: ErrorClassRuleInput[] = [
      ...defaultRules,
      { when: 'status', from: 451, to: 451, errorClass: 'permanent' },
    ];
    await saveErrorClassRules({ db: database.db, actor: admin }, { rules: theirs, reason: 'e2e: another admin' });

    await page.getByLabel('Reason for changing the rules (kept in the audit log)').fill('rate limits first');
    await page.getByRole('button', { name: 'Move rule 1 down' }).click();
    const conflict = page.getByTestId('error-rules-conflict');
    await expect(conflict).toContainText('changed by someone else since you loaded the page: reload');
    await expect(conflict.getByRole('button', { name: 'Reload' })).toBeFocused();
    await conflict.screenshot({ path: testInfo.outputPath('pricing-conflict.png') });
    // Nothing of the refused move was written: the table is still theirs.
    expect(rulesFingerprint(await readErrorClassRules(database.db))).toBe(fingerprintOf(theirs));

    await conflict.getByRole('button', { name: 'Reload' }).click();
    await expect(page.getByTestId(`error-rule-${DEFAULTS + 1}`).getByTestId('rule-condition')).toHaveText('HTTP 451');
    await expect(conflict).toHaveCount(0);
    // Based on the table now shown, the same move is saved.
    await page.getByRole('button', { name: 'Move rule 1 down' }).click();
    await expect(toasts(page)).toContainText('Rule 1 moved down.');
    expect((await readErrorClassRules(database.db))[1]).toMatchObject({ httpStatusFrom: 429 });
  });

  test('the forms are reachable and submittable from the keyboard', async ({ page, database }) => {
    const model = uniqueModel('keyboard');
    await page.goto('/settings/pricing');

    const form = page.getByTestId('override-form');
    await tabTo(page, form.getByLabel('Provider'));
    await page.keyboard.press('Tab');
    await expect(form.getByLabel('Model')).toBeFocused();
    await page.keyboard.type(model);
    await page.keyboard.press('Tab');
    await page.keyboard.type('0.15');
    await page.keyboard.press('Tab');
    await page.keyboard.type('0.6');
    await tabTo(page, form.getByLabel('Reason (kept in the audit log)'), 5);
    await page.keyboard.type('typed from the keyboard');
    await page.keyboard.press('Enter');
    await expect(toasts(page)).toContainText(`Price override added for any provider / ${model}.`);
    await expect(page.getByTestId(`override-row-*-${model}`).getByTestId('override-output')).toHaveText('$0.60');

    const statuses = page.getByTestId('statuses-form').getByLabel('HTTP statuses of a refused call');
    await tabTo(page, statuses);
    await page.keyboard.press('End');
    await page.keyboard.type(', 409');
    await page.keyboard.press('Tab');
    await page.keyboard.type('keyboard statuses');
    await page.keyboard.press('Enter');
    await expect(toasts(page)).toContainText('Refused statuses saved: 400, 401, 403, 404, 409, 413, 422, 429.');

    await tabTo(page, page.getByLabel('Reason for changing the rules (kept in the audit log)'));
    await page.keyboard.type('keyboard rules');
    // Each change gives the rules a new version, which the add form must carry before it submits (else it is
    // refused as changed by someone else): the test waits for the page to show each new version.
    const basedOn = () => page.getByTestId('add-rule-form').locator('input[name="basedOn"]').inputValue();
    const firstVersion = await basedOn();
    await tabTo(page, page.getByRole('button', { name: 'Move rule 1 down' }), 5);
    await page.keyboard.press('Enter');
    await expect(toasts(page)).toContainText('Rule 1 moved down.');
    await expect.poll(basedOn).not.toBe(firstVersion);
    const secondVersion = await basedOn();
    await expect(page.getByRole('button', { name: 'Move rule 2 down' })).toBeFocused();
    await page.keyboard.press('Shift+Tab');
    await expect(page.getByRole('button', { name: 'Move rule 2 up' })).toBeFocused();
    await page.keyboard.press('Space');
    await expect(toasts(page)).toContainText('Rule 2 moved up.');
    await expect.poll(basedOn).not.toBe(secondVersion);

    const add = page.getByTestId('add-rule-form');
    await tabTo(page, add.getByLabel('From status'));
    await page.keyboard.type('509');
    await page.keyboard.press('Enter');
    await expect(toasts(page)).toContainText('Rule added: HTTP 509 → transient.');
    await expect(page.getByTestId(`error-rule-${DEFAULTS + 1}`).getByTestId('rule-condition')).toHaveText('HTTP 509');

    expect(await storedStatuses(database)).toEqual([400, 401, 403, 404, 409, 413, 422, 429]);
    // The defaults, then the rule added from the keyboard.
    expect((await readErrorClassRules(database.db)).map((rule) => rule.httpStatusFrom)).toEqual([
      ...DEFAULT_ERROR_CLASS_RULES.map((rule) => rule.httpStatusFrom),
      509,
    ]);
    await deletePriceOverride({ db: database.db, actor: admin }, { model, reason: 'e2e: keyboard test done' });
  });

  test('a responder sees the prices and rules read only, with no form and the reason why', async ({
    page,
    database,
    expectAccessible,
  }) => {
    const model = uniqueModel('read-only');
    await savePriceOverride(
      { db: database.db, actor: admin },
      { provider: 'anthropic', model, inputPerMillion: 3, outputPerMillion: 15, reason: 'e2e: for the responder' },
    );
    await signInAs(page, 'responder');
    await page.goto('/settings/pricing');
    await expect(page.getByTestId('pricing-read-only')).toContainText('this needs the admin role');
    for (const form of ['override-form', 'statuses-form', 'add-rule-form'])
      await expect(page.getByTestId(form)).toHaveCount(0);
    const row = page.getByTestId(`override-row-anthropic-${model}`);
    await expect(row.getByTestId('override-output')).toHaveText('$15.00');
    await expect(row.getByRole('link', { name: /Edit/ })).toHaveCount(0);
    await expect(page.getByRole('main').getByRole('button')).toHaveCount(0);
    await expect(page.getByRole('main').getByRole('textbox')).toHaveCount(0);
    await expect(page.getByTestId('refused-statuses')).toHaveText(
      'Refused statuses: 400, 401, 403, 404, 413, 422, 429',
    );
    await expect(page.getByTestId('error-rules-table').locator('tbody tr')).toHaveCount(DEFAULTS);
    await expectAccessible();
    await deletePriceOverride(
      { db: database.db, actor: admin },
      { provider: 'anthropic', model, reason: 'e2e: responder test done' },
    );
  });
});

test('long names and words wrap inside the page at 1440 x 900 and 390 x 844', async ({ page, database }, testInfo) => {
  // A fine-tuned model's id, 200 characters without a space; a rule of 20 words of 100 characters.
  const model = `ft:gpt-4o-mini-2024-07-18:acme-corp:${'support-triage-'.repeat(12)}${randomUUID()}`.slice(0, 200);
  const words = Array.from({ length: 20 }, (_, index) =>
    `${index}-${'quota_exceeded_for_project_'.repeat(4)}`.slice(0, 100),
  );
  const ctx = { db: database.db, actor: admin };
  await savePriceOverride(ctx, {
    provider: 'openai',
    model,
    inputPerMillion: 0.3,
    outputPerMillion: 1.2,
    cacheReadPerMillion: 0.15,
    reason: 'e2e: a long model name',
  });
  await saveErrorClassRules(ctx, {
    rules: [...defaultRules, { when: 'words', words, errorClass: 'rate_limited' }],
    reason: 'e2e: long words',
  });
  try {
    for (const viewport of [
      { width: 1440, height: 900 },
      { width: 390, height: 844 },
    ]) {
      await page.setViewportSize(viewport);
      await page.goto(`/settings/pricing?${new URLSearchParams({ provider: 'openai', model })}`);
      await expect(page.getByTestId(`override-row-openai-${model}`)).toBeVisible();
      await expect(page.getByTestId(`error-rule-${DEFAULTS + 1}`)).toContainText(words[19]!);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width, `the page is ${width} px wide at ${viewport.width} px`).toBeLessThanOrEqual(viewport.width);
      // Nothing is cut off inside a table's scrolling box either: each table fits its box.
      for (const table of ['overrides-table', 'error-rules-table']) {
        const fits = await page
          .getByTestId(table)
          .evaluate((element) => element.scrollWidth <= (element.parentElement?.clientWidth ?? 0) + 1);
        expect(fits, `${table} is wider than its box at ${viewport.width} px`).toBe(true);
      }
      await page.screenshot({
        path: testInfo.outputPath(`pricing-${viewport.width}x${viewport.height}.png`),
        fullPage: true,
      });
    }
  } finally {
    await deletePriceOverride(ctx, { provider: 'openai', model, reason: 'e2e: long names done' });
    await saveErrorClassRules(ctx, { rules: defaultRules, reason: 'e2e: long words done' });
  }
});
