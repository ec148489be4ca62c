import { randomUUID } from 'node:crypto';
import { createDeadLetter } from '../support/factories';
import { expect, signInAs, test } from '../support/fixtures';

test('a dead letter redriven with an edited payload: JSON checked as typed, changes listed, confirmed, run as a new task', async ({
  page,
  database,
  expectAccessible,
}) => {
  const queue = `edit-${randomUUID().slice(0, 6)}`;
  const id = await createDeadLetter(database, {
    queue,
    errorText: '400 Bad Request: the recipient address is invalid',
    content: { page: 'spring-sale', recipient: 'nobody@invalid' },
  });
  const [letter] = await database.sql<{ task_id: string; edit_nonce: string }[]>`
    select task_id, edit_nonce from dead_letters where id = ${id}`;
  const taskId = letter!.task_id;
  // The new task's id ends with the dead letter's random nonce: no other agent can work it out and take it first.
  const runsAs = `${taskId}.edited-${id}-${letter!.edit_nonce}`;
  await signInAs(page, 'responder');
  await page.goto(`/dead-letters/${id}`);

  // The editor opens on the stored payload, with the keyboard in it.
  await page.getByTestId('edit-payload-open').click();
  const editor = page.getByTestId('payload-editor');
  await expect(editor).toBeFocused();
  await expect(editor).toHaveValue(JSON.stringify({ page: 'spring-sale', recipient: 'nobody@invalid' }, null, 2));
  await expect(page.getByTestId('payload-changes')).toContainText('No change yet');

  // Not JSON: said where, and the redrive cannot be sent.
  await editor.fill('{\n  "page": "spring-sale",\n  "recipient": \n}');
  await expect(page.getByTestId('payload-editor-error')).toContainText('Not valid JSON');
  await expect(page.getByTestId('payload-editor-error')).toContainText('a value is expected at line 4, column 1');
  await expect(page.getByTestId('edited-redrive-submit')).toBeDisabled();

  // Fixed: the one change is listed.
  await editor.fill('{"recipient": "ada@example.com", "page": "spring-sale"}');
  await expect(page.getByTestId('payload-editor-error')).toHaveCount(0);
  await expect(page.getByTestId('payload-change-list')).toHaveText('$.recipient: "nobody@invalid" → "ada@example.com"');
  await page.getByRole('button', { name: 'Format' }).click();
  await expect(editor).toHaveValue(JSON.stringify({ recipient: 'ada@example.com', page: 'spring-sale' }, null, 2));
  await expectAccessible();

  // The reason is required; the confirmation names the new task and what stays.
  const form = page.getByTestId('edited-redrive');
  await page.getByTestId('edited-redrive-submit').click();
  await expect(page.getByTestId('confirm-edited-redrive')).toBeHidden();
  await form.getByLabel('Reason').fill('recipient corrected with the customer');
  await page.getByTestId('edited-redrive-submit').click();
  const confirm = page.getByTestId('confirm-edited-redrive');
  await expect(confirm).toContainText(runsAs);
  await expect(confirm).toContainText('keeps its stored results');
  // Focus starts on the way back, so a stray Enter redrives nothing.
  await expect(confirm.getByRole('button', { name: 'Keep editing' })).toBeFocused();
  await confirm.getByRole('button', { name: 'Redrive' }).click();

  await expect(page.getByTestId('toasts')).toContainText(`redriven as task ${runsAs} with the edited payload`);
  await expect(page.getByTestId('dead-letter-status')).toContainText('redriven');
  await expect(page.getByTestId('dead-letter-status')).toBeFocused();
  await expect(page.getByTestId('dead-letter-runs-as')).toHaveAttribute('href', `/tasks/${encodeURIComponent(runsAs)}`);
  await expect(page.getByTestId('dead-letter-redrive-1')).toContainText('edited payload');

  // Stored: the outbox row runs the new task with the new payload; the audit record keeps the change and the reason.
  const [outbox] = await database.sql<{ task_id: string; payload: unknown; payload_edited: boolean }[]>`
    select task_id, payload, payload_edited from redrives where dead_letter_id = ${id}`;
  expect(outbox).toEqual({
    task_id: runsAs,
    payload: { recipient: 'ada@example.com', page: 'spring-sale' },
    payload_edited: true,
  });
  const [audit] = await database.sql<{ reason: string; after: { payloadChanges: unknown[] } }[]>`
    select reason, after from audit_log where action = 'dead_letter.redrive' and target_id = ${String(id)}`;
  expect(audit!.reason).toBe('recipient corrected with the customer');
  expect(audit!.after.payloadChanges).toEqual([
    { path: '$.recipient', change: 'changed', before: 'nobody@invalid', after: 'ada@example.com' },
  ]);
});

test('at 390 px the open payload editor and its changes fit the screen', async ({ page, database }) => {
  const queue = `edit-narrow-${randomUUID().slice(0, 6)}`;
  const id = await createDeadLetter(database, {
    queue,
    errorText: `Error: ${'y'.repeat(10_000 - 7)}`,
    content: { note: 'z'.repeat(600), nested: { list: [1, 2, 3] } },
  });
  await signInAs(page, 'responder');
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/dead-letters/${id}`);
  await page.getByTestId('edit-payload-open').click();
  await page.getByTestId('payload-editor').fill(JSON.stringify({ note: 'w'.repeat(600), nested: { list: [1, 2] } }));
  await expect(page.getByTestId('payload-change-list')).toContainText('$.nested.list[2] removed');
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  const submit = page.getByTestId('edited-redrive-submit');
  await submit.scrollIntoViewIfNeeded();
  await expect(submit).toBeInViewport({ ratio: 1 });
});
