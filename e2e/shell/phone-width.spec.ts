import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Locator, Page } from '@playwright/test';
import { createDeadLetter, createHold, createStaleLock, uniqueId } from '../support/factories';
import { expect, signInAs, test } from '../support/fixtures';

/**
 * Every console page at 390 x 844 is no wider than the screen, with the data that
 * used to break it: a 10,000-character error holding a 400-character unbroken token.
 * Each page is its own test, and a failure names the page, its width and what sticks out.
 */

const phone = { width: 390, height: 844 };
const token = `https://storage.example.com/${'a1b2c3d4e5'.repeat(37)}`.slice(0, 400);
const longError = (length: number) => {
  const filler = 'at Object.handle (/srv/agents/payments/charge.js:120:17) ';
  const half = filler.repeat(Math.ceil(length / filler.length)).slice(0, (length - token.length - 2) / 2);
  return `${half} ${token} ${half}`.slice(0, length);
};

interface PhoneData {
  taskId: string;
  agent: string;
  step: string;
  deadLetterId: number;
  key: string;
}

/** Made once per worker: every page below reads it, none changes it. */
let made: PhoneData | undefined;

test.beforeAll(async ({ database, recordAttempts }) => {
  if (made) return;
  const taskId = uniqueId('phone-task');
  const agent = 'e2e-phone';
  const step = `charge_${randomUUID().slice(0, 8)}`;
  const startedAt = new Date(Date.now() - 10 * 60_000);
  await recordAttempts([
    {
      taskId,
      agent,
      step,
      attemptNumber: 1,
      startedAt,
      finishedAt: new Date(startedAt.getTime() + 1_500),
      outcome: 'failed',
      errorClass: 'transient',
      errorText: longError(10_000),
      idempotencyKey: `${taskId}/${step}`,
    },
  ]);
  const deadLetterId = await createDeadLetter(database, { queue: uniqueId('phone'), errorText: longError(10_000) });
  const [letter] = await database.db.execute<{ key: string }>(
    sql`select k.key from dead_letters d join idempotency_keys k using (task_id) where d.id = ${deadLetterId}`,
  );
  await createHold(database, { owner: 'team:payments', detail: longError(4_000) });
  await createStaleLock(database);
  made = { taskId, agent, step, deadLetterId, key: letter?.key ?? `${taskId}/${step}` };
});

const pages: { name: string; path: (data: PhoneData) => string }[] = [
  { name: 'Overview', path: () => '/' },
  { name: 'Agents', path: () => '/agents' },
  { name: 'Agent detail', path: (data) => `/agents/${data.agent}` },
  { name: 'Steps', path: () => '/steps' },
  { name: 'Step detail', path: (data) => `/steps/${data.agent}/${data.step}` },
  // The step's one group: its 10,000-character error as the pattern and the sample.
  { name: 'Errors', path: (data) => `/errors?agent=${data.agent}&step=${data.step}` },
  { name: 'Holds', path: () => '/holds' },
  { name: 'Dead letters', path: () => '/dead-letters' },
  { name: 'Dead letter detail', path: (data) => `/dead-letters/${data.deadLetterId}` },
  { name: 'Locks', path: () => '/locks' },
  { name: 'Keys', path: () => '/keys' },
  { name: 'Key detail', path: (data) => `/keys?show=${encodeURIComponent(data.key)}` },
  { name: 'Audit', path: () => '/audit' },
  { name: 'Task', path: (data) => `/tasks/${data.taskId}` },
  { name: 'Alerts', path: () => '/alerts' },
  { name: 'Retry pools', path: () => '/settings/retry-pools' },
  { name: 'Costs and errors', path: () => '/settings/pricing' },
  { name: 'People', path: () => '/settings/people' },
  { name: 'API tokens', path: () => '/settings/tokens' },
  { name: 'API reference', path: () => '/settings/api' },
  { name: 'Runbooks', path: () => '/runbooks' },
  // A runbook's wide tables scroll in their own box; the page itself stays within the screen.
  { name: 'A runbook', path: () => '/runbooks/dead-letters-waiting' },
  { name: 'Search results', path: (data) => `/search?q=${data.taskId.slice(0, 6)}` },
];

/** The page's width, and the outermost elements that stick out past the screen (not those clipped by a scrolling box). */
async function measure(page: Page) {
  return page.evaluate(() => {
    const viewport = window.innerWidth;
    const clipped = (element: Element) => {
      for (let parent = element.parentElement; parent && parent !== document.body; parent = parent.parentElement) {
        if (getComputedStyle(parent).overflowX !== 'visible' && parent.getBoundingClientRect().right <= viewport + 1)
          return true;
      }
      return false;
    };
    const describe = (element: Element) => {
      const testId = element.getAttribute('data-testid');
      const classes = typeof element.className === 'string' ? element.className.split(' ').slice(0, 4).join('.') : '';
      return `${element.tagName.toLowerCase()}${testId ? `[data-testid=${testId}]` : ''}${classes ? `.${classes}` : ''} (right edge ${Math.round(element.getBoundingClientRect().right)} px)`;
    };
    const sticking = [...document.body.querySelectorAll('*')].filter(
      (element) => element.getBoundingClientRect().right > viewport + 1 && !clipped(element),
    );
    const outermost = sticking.filter((element) => !sticking.includes(element.parentElement as Element));
    return {
      width: document.documentElement.scrollWidth,
      viewport,
      offenders: outermost.slice(0, 4).map(describe),
    };
  });
}

for (const { name, path } of pages) {
  test(`${name} at 390 x 844 is no wider than the screen`, async ({ page }) => {
    if (!made) throw new Error('the phone data was not made');
    await page.setViewportSize(phone);
    const url = path(made);
    await page.goto(url);
    await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible();
    // Charts size themselves after they mount: measure once the page has settled.
    await page.waitForLoadState('networkidle');
    const { width, viewport, offenders } = await measure(page);
    expect(
      width,
      `${name} (${url}) is ${width} px wide at ${viewport} px (${width - viewport} px too wide); sticking out: ${offenders.join('; ') || 'nothing found'}`,
    ).toBeLessThanOrEqual(viewport);
  });
}

test('Pauses and a paused step at 390 x 844 are no wider than the screen, with a 2,000-character reason', async ({
  page,
  database,
}) => {
  if (!made) throw new Error('the phone data was not made');
  // The longest reason a pause takes, holding the unbroken token; resumed at the end so no other page names it.
  const reason = longError(2_000);
  const [pause] = await database.db.execute<{ id: string }>(sql`
    insert into pauses (scope, agent, reason, paused_by, paused_at)
    values ('agent', ${made.agent}, ${reason}, 'person:ada@holdfast.demo', now()) returning id`);
  try {
    await page.setViewportSize(phone);
    for (const url of ['/pauses', `/steps/${made.agent}/${made.step}`]) {
      await page.goto(url);
      await expect(page.getByTestId(`pause-row-${pause!.id}`)).toBeVisible();
      const { width, viewport, offenders } = await measure(page);
      expect(
        width,
        `${url} is ${width} px wide at ${viewport} px; sticking out: ${offenders.join('; ')}`,
      ).toBeLessThanOrEqual(viewport);
      // The row's action stays within the screen's width, under its data.
      const resume = page.getByTestId(`pause-row-${pause!.id}`).getByRole('button', { name: 'Resume…' });
      const box = await resume.boundingBox();
      expect(box && box.x + box.width).toBeLessThanOrEqual(viewport);
    }
  } finally {
    await database.db.execute(sql`update pauses set resumed_at = now(), resumed_by = 'e2e' where id = ${pause!.id}`);
  }
});

test('the 404 page at 390 x 844 is no wider than the screen', async ({ page, browser }) => {
  // Chromium logs a 404 document as a console error, which the page fixture counts as a
  // fault: this page is measured in a second, unwatched tab of the same session.
  const context = await browser.newContext({ storageState: await page.context().storageState(), viewport: phone });
  const tab = await context.newPage();
  await tab.goto('/tasks/does-not-exist');
  await expect(tab.getByTestId('nothing-found')).toBeVisible();
  const { width, viewport, offenders } = await measure(tab);
  expect(
    width,
    `the 404 page is ${width} px wide at ${viewport} px; sticking out: ${offenders.join('; ')}`,
  ).toBeLessThanOrEqual(viewport);
  await context.close();
});

/** The action is inside the screen (not scrolled away in its table) and nothing covers its middle. */
async function expectReachable(action: Locator, label: string) {
  const row = action.locator('xpath=ancestor::tr[1]');
  // Bring the row up and down into view, never sideways: sideways is what is being checked.
  await row.evaluate((element) => window.scrollTo(0, element.getBoundingClientRect().top + window.scrollY - 200));
  const box = await action.boundingBox();
  expect(box, `${label}: the action has no box`).not.toBeNull();
  if (!box) return;
  expect(
    box.x >= 0 && box.x + box.width <= phone.width,
    `${label}: the action spans x = ${Math.round(box.x)}–${Math.round(box.x + box.width)} at ${phone.width} px`,
  ).toBe(true);
  const onTop = await action.evaluate((element) => {
    const { x, y, width, height } = element.getBoundingClientRect();
    const hit = document.elementFromPoint(x + width / 2, y + height / 2);
    return hit !== null && (hit === element || element.contains(hit));
  });
  expect(onTop, `${label}: something covers the action`).toBe(true);
  await action.click({ trial: true });
}

test('on Holds at 390 px, as the viewer Vera, every Clear of her team is on screen and clickable', async ({ page }) => {
  await page.setViewportSize(phone);
  await signInAs(page, 'viewer');
  await page.goto('/holds?owner=team%3Apayments');
  const rows = page.getByTestId('holds-table').locator('tbody tr');
  await expect(rows.first()).toBeVisible();
  const clears = page.getByTestId('holds-table').getByRole('button', { name: /^Clear/ });
  const count = await clears.count();
  expect(count, 'Vera sees a Clear on her team’s holds').toBeGreaterThan(0);
  for (let index = 0; index < Math.min(count, 20); index += 1)
    await expectReachable(clears.nth(index), `Clear in hold row ${index + 1}`);
});

test('on Dead letters at 390 px, as the responder Remy, every Redrive is on screen and clickable', async ({
  page,
  database,
}) => {
  const queue = uniqueId('phone-dl');
  for (let index = 0; index < 2; index += 1) await createDeadLetter(database, { queue, errorText: longError(10_000) });
  await page.setViewportSize(phone);
  await signInAs(page, 'responder');
  await page.goto(`/dead-letters?queue=${queue}`);
  const redrives = page.getByRole('main').getByRole('button', { name: 'Redrive', exact: true });
  await expect(redrives).toHaveCount(2);
  for (let index = 0; index < 2; index += 1) await expectReachable(redrives.nth(index), `Redrive in row ${index + 1}`);
});

test('on a phone the step tables show each step with its retry rate and retry spend, no sideways scrolling', async ({
  page,
}) => {
  if (!made) throw new Error('the phone data was not made');
  await page.setViewportSize(phone);
  for (const [path, table] of [
    ['/steps?window=24h', 'steps-table'],
    ['/', 'step-stats-table'],
  ] as const) {
    await page.goto(path);
    const stepTable = page.getByTestId(table);
    await expect(stepTable).toBeVisible();
    // Nothing to scroll sideways inside the table's box, and the retry spend header ends within the screen.
    const box = stepTable.locator('xpath=..');
    const { scrollWidth, clientWidth } = await box.evaluate((element) => ({
      scrollWidth: element.scrollWidth,
      clientWidth: element.clientWidth,
    }));
    expect(scrollWidth, `${path}: the table scrolls sideways`).toBeLessThanOrEqual(clientWidth);
    const spendHeader = stepTable.getByRole('columnheader', { name: /Retry spend/ });
    const header = await spendHeader.boundingBox();
    expect(header && header.x + header.width, `${path}: retry spend off the screen`).toBeLessThanOrEqual(phone.width);
    // A step's name may break only after its separators (charge_…: after the underscore).
    expect(await stepTable.locator('a wbr').count()).toBeGreaterThan(0);
  }
});
