import { randomUUID } from 'node:crypto';
import { beginStep } from '../../packages/engine/src/core';
import { expect, test } from '../support/fixtures';

test("a task kept under its agent's alias says why, and links to the other agent's task of that id", async ({
  page,
  database,
  expectAccessible,
}) => {
  const taskId = `e2e-order-${randomUUID().slice(0, 8)}`;
  const begin = (agent: string) =>
    beginStep({ db: database.db }, { taskId, agent, owner: 'team:growth', step: 'charge', content: {} });
  // Another agent used the id first; this agent's task of that name is kept under its alias.
  await begin('e2e-research');
  expect(await begin('e2e-payments')).toMatchObject({ key: `~e2e-payments/${taskId}/charge` });

  await page.goto(`/tasks/${encodeURIComponent(`~e2e-payments/${taskId}`)}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`Task ~e2e-payments/${taskId}`);
  const note = page.getByTestId('task-alias');
  await expect(note).toContainText(`Agent e2e-payments’s task ${taskId}: another agent’s task had that id first`);
  await expectAccessible();
  await note.getByRole('link', { name: `The other task named ${taskId}` }).click();
  await expect(page).toHaveURL(`/tasks/${taskId}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`Task ${taskId}`);
  await expect(page.getByTestId('task-alias')).toHaveCount(0);
});
