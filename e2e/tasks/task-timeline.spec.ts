import { randomUUID } from 'node:crypto';
import { beginStep, claimKey, runStep, StepError } from '../../packages/engine/src/core';
import { createHold, uniqueTeam } from '../support/factories';
import { expect, test } from '../support/fixtures';

test('shows every attempt of a task in order, with keys, its dead letter and its hold', async ({
  page,
  database,
  expectAccessible,
}) => {
  const taskId = `e2e-task-${randomUUID().slice(0, 8)}`;
  // An agent of its own: the owner it declares is this task's.
  const agent = `e2e-fleet-${taskId.slice(-8)}`;
  const step = (name: string) => ({
    taskId,
    agent,
    owner: 'team:growth',
    step: name,
    content: { name },
    retryAllowance: 3,
  });
  const fast = { baseDelayMs: 1, maxDelayMs: 1 };
  await runStep(
    { db: database.db },
    step('draft'),
    async () => {
      throw new StepError('rate_limited', '429 slow down', { costMicros: 500 });
    },
    fast,
  );
  await runStep({ db: database.db }, step('draft'), async () => ({ result: 'a draft', costMicros: 700 }), fast);
  await runStep(
    { db: database.db },
    step('send'),
    async () => {
      throw new StepError('permanent', '550 mailbox does not exist');
    },
    fast,
  );

  await page.goto(`/tasks/${taskId}`);
  await expect(page.getByRole('heading', { name: `Task ${taskId}` })).toBeVisible();
  // The header counts the retry its timeline shows, beside what it took from the allowance.
  await expect(page.getByText(/1 retry \(1 of the allowance of 3 used\)/)).toBeVisible();
  // Who answers for its steps: the owner its agent declares, for both steps it ran.
  const owners = page.getByTestId('task-owners');
  await expect(owners.getByTestId('task-step-owner')).toHaveText('team:growth (declared)');
  await expect(owners.getByRole('link', { name: 'draft', exact: true })).toBeVisible();
  await expect(owners.getByRole('link', { name: 'send', exact: true })).toBeVisible();
  const rows = page.getByTestId('task-timeline').locator('tbody tr');
  await expect(rows).toHaveCount(3);
  await expect(rows.nth(0)).toHaveAttribute('data-testid', 'attempt-draft-1');
  await expect(rows.nth(1)).toHaveAttribute('data-testid', 'attempt-draft-2');
  await expect(rows.nth(2)).toHaveAttribute('data-testid', 'attempt-send-1');

  const firstDraft = page.getByTestId('attempt-draft-1');
  await expect(firstDraft.getByTestId('outcome')).toHaveText('failed');
  await expect(firstDraft.getByTestId('error')).toContainText('rate_limited');
  await expect(firstDraft.getByTestId('error')).toContainText('429 slow down');
  await expect(page.getByTestId('attempt-draft-2').getByTestId('key')).toContainText('completed');
  // Every step name links to its detail.
  await expect(firstDraft.getByRole('link', { name: 'draft', exact: true })).toHaveAttribute(
    'href',
    `/steps/${agent}/draft`,
  );
  await expect(page.getByTestId('attempt-send-1').getByTestId('key')).toContainText('failed');

  await expect(page.getByTestId('task-dead-letters')).toContainText('550 mailbox does not exist');
  await expect(page.getByTestId('task-holds')).toContainText('permanent_error');
  // The parked work links to where it is acted on.
  await expect(
    page.getByTestId('task-dead-letters').getByRole('link', { name: /Redrive or discard dead letter #\d+/ }),
  ).toHaveAttribute('href', /^\/dead-letters\/\d+$/);
  await expect(
    page.getByTestId('task-holds').getByRole('link', { name: 'Act on it: clear or reassign' }).first(),
  ).toHaveAttribute('href', /^\/holds\/\d+$/);
  await expectAccessible();
});

test('a sub-task links to its parent, and the parent lists its sub-tasks', async ({
  page,
  database,
  expectAccessible,
}) => {
  const parent = `e2e-brief-${randomUUID().slice(0, 8)}`;
  const begin = (taskId: string, parentTaskId?: string) =>
    beginStep(
      { db: database.db },
      { taskId, agent: 'e2e-research', owner: 'team:platform', step: 'plan', content: {}, parentTaskId },
    );
  await begin(parent);
  await begin(`${parent}.part-1`, parent);
  await begin(`${parent}.part-2`, parent);

  await page.goto(`/tasks/${parent}`);
  const subTasks = page.getByTestId('task-sub-tasks');
  await expect(subTasks).toContainText('Started 2 sub-tasks');
  await subTasks.getByRole('link', { name: `${parent}.part-2` }).click();
  await expect(page).toHaveURL(`/tasks/${parent}.part-2`);
  await expect(page.getByTestId('task-parent')).toContainText(`Sub-task of ${parent}`);
  await expectAccessible();
  await page.getByTestId('task-parent').getByRole('link', { name: parent }).click();
  await expect(page).toHaveURL(`/tasks/${parent}`);
});

test('answers not found for a task nobody reported, inside the console', async ({ page }) => {
  // Through the request API: a browser would log the 404 itself as a console error.
  const response = await page.request.get('/tasks/no-such-task');
  expect(response.status()).toBe(404);
  const html = await response.text();
  // The console's own not-found page (its shell, with the signed-in person), not a made-up task page.
  expect(html).toContain('Nothing here');
  expect(html).toContain('signed-in-person');
  expect(html).not.toContain('Task no-such-task');
});

test('a task known only from its keys is a task, not a 404, and links to them', async ({ page, database }) => {
  const taskId = `e2e-keyed-${randomUUID().slice(0, 8)}`;
  await claimKey(
    { db: database.db },
    { key: `${taskId}/charge`, requestHash: 'h', downstreamIdempotent: true, taskId, step: 'charge' },
  );
  const response = await page.goto(`/tasks/${taskId}`);
  expect(response?.status()).toBe(200);
  await page.getByTestId('task-keys-link').click();
  await expect(page.getByTestId('keys-found')).toContainText(`${taskId}/charge`);
});

test('a task known only from a hold opens from the Holds page', async ({ page, database }) => {
  const owner = `team:${uniqueTeam()}`;
  const { itemId } = await createHold(database, {
    owner,
    reason: 'manual',
    detail: 'Check the Q4 summary numbers before it is sent to the board',
  });
  // Holds are paged oldest first: the owner's filter brings this new one to the first page.
  await page.goto(`/holds?owner=${encodeURIComponent(owner)}`);
  await page.getByRole('link', { name: `task:${itemId}` }).click();
  await expect(page.getByRole('heading', { name: `Task ${itemId}` })).toBeVisible();
  await expect(page.getByTestId('task-holds')).toContainText('Check the Q4 summary numbers');
  await expect(page.getByTestId('task-no-attempts')).toBeVisible();
});

test('a 10,000-character stack trace keeps the timeline within the screen, clamped with "Show all"', async ({
  page,
  database,
  expectAccessible,
}) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  const taskId = `e2e-long-${randomUUID().slice(0, 8)}`;
  const trace =
    `TypeError: bad answer from https://api.example.com/${'v1/'.repeat(130)}?token=${'x'.repeat(400)}\n${'    at frame (/srv/agent/index.js:1:1)\n'.repeat(400)}`.slice(
      0,
      10_000,
    );
  await runStep(
    { db: database.db },
    { taskId, agent: 'e2e-fleet', owner: 'team:growth', step: 'draft', content: {} },
    async () => {
      throw new StepError('permanent', trace);
    },
  );
  await page.goto(`/tasks/${taskId}`);
  await expect(page.getByTestId('attempt-draft-1').getByText('Show all (10,000 characters)')).toBeVisible();
  await expect(page.getByTestId('task-dead-letters').getByText('Show all (10,000 characters)')).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1440);
  await expectAccessible();

  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await expect(page.getByTestId('attempt-draft-1').getByText('Show all (10,000 characters)')).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
});
