import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import AxeBuilder from '@axe-core/playwright';
import { test as base, type BrowserContext, expect, type Page, request } from '@playwright/test';
import { recordAttempt, type RecordAttemptInput } from '../../packages/engine/src/core';
import { connectDatabase, type DatabaseConnection } from '../../packages/engine/src/db/client';
import { demoPeople } from '../../lib/demo/seed-people';
import { rollUpAttempts } from '../../packages/engine/src/rollups/roll-up';
import type { FactoryPerson } from './factories';
import { e2eRuntimeFile } from './runtime';

/**
 * The page's serious and critical accessibility violations, one line each (rule, help, where), by axe's full
 * rule set. Violations only: the nodes that pass are not collected (40 % of axe's time here). Legacy mode runs
 * axe in the page itself; the default also opens a blank page per check to combine the results of frames, which
 * tripled the check's time (about 0.7 s against 2 s a page on an idle machine) and the console has no frames,
 * so the rules and the document checked are the same.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page })
    .setLegacyMode(true)
    .options({ resultTypes: ['violations'] })
    .analyze();
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`,
    );
}

export type DemoRole = (typeof demoPeople)[number]['role'];

/**
 * Signs in through the demo sign-in page, as the seeded demo person with this role
 * or as a person a factory made. The page lists everyone, factory people too, so the
 * button is found by the person's e-mail address rather than by role.
 */
export async function signInAs(page: Page, who: DemoRole | FactoryPerson): Promise<void> {
  const person = typeof who === 'string' ? demoPeople.find((demo) => demo.role === who) : who;
  if (!person) throw new Error(`no demo person has the role ${String(who)}`);
  await page.context().clearCookies(); // whoever was signed in before
  await page.goto('/sign-in');
  await page
    .locator('form')
    .filter({ has: page.locator(`input[name="email"][value="${person.email}"]`) })
    .getByRole('button')
    .click();
  await expect(page.getByTestId('signed-in-person')).toContainText(person.email);
  await expect(page.getByTestId('signed-in-role')).toHaveText(person.role);
}

interface Fixtures {
  /** Signed in as the admin unless a test signs in as someone else; fails the test on any console error. */
  page: Page;
  /** A page that is not signed in. */
  anonymousPage: Page;
  /** Runs axe on the current page; fails on serious or critical violations. */
  expectAccessible: () => Promise<void>;
}

type Cookies = Awaited<ReturnType<BrowserContext['cookies']>>;

interface WorkerFixtures {
  /** The admin's session cookies, shared by the worker's tests while the session lasts. */
  adminSession: { cookies: Cookies | undefined };
  /** The database behind the server under test, for factories and independent checks. */
  database: DatabaseConnection;
  recordAttempts: (inputs: RecordAttemptInput[]) => Promise<void>;
  /** Makes a step known to the console: one succeeded attempt of a task of its own, five minutes ago. */
  seeStep: (agent: string, step: string) => Promise<void>;
}

export const test = base.extend<Fixtures, WorkerFixtures>({
  anonymousPage: async ({ context }, use) => {
    const page = await context.newPage();
    const problems = watchForErrors(page);
    await use(page);
    expect(problems, 'the page logged errors').toEqual([]);
  },

  page: async ({ anonymousPage, adminSession }, use) => {
    // Signing in through the page costs about 3 s a test; the admin's session is made once per
    // worker and handed to each test, and made again only once a test has ended it (signed out).
    if (!adminSession.cookies) {
      await signInAs(anonymousPage, 'admin');
      adminSession.cookies = await anonymousPage.context().cookies();
    } else {
      await anonymousPage.context().addCookies(adminSession.cookies);
    }
    await use(anonymousPage);
    if (!(await sessionStillValid(adminSession.cookies))) adminSession.cookies = undefined;
  },

  adminSession: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from its first parameter, which must be an object pattern; this fixture has none.
    async ({}, use) => use({ cookies: undefined }),
    { scope: 'worker' },
  ],

  expectAccessible: async ({ anonymousPage: page }, use) => {
    await use(async () => {
      // After a server action React re-renders the head, and for a moment the <title> can be
      // missing: check the page once it has settled, not in that moment.
      await expect(page).toHaveTitle(/\S/);
      expect(await seriousViolations(page), 'serious or critical accessibility violations').toEqual([]);
    });
  },

  database: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from its first parameter, which must be an object pattern; this fixture has none.
    async ({}, use) => {
      const { databaseUrl } = JSON.parse(fs.readFileSync(e2eRuntimeFile, 'utf8')) as { databaseUrl: string };
      const connection = connectDatabase(databaseUrl, { maxConnections: 2 });
      await use(connection);
      await connection.close();
    },
    { scope: 'worker' },
  ],

  recordAttempts: [
    async ({ database }, use) => {
      await use(async (inputs) => {
        for (const input of inputs) await recordAttempt({ db: database.db }, input);
        // Reports for hours already rolled up show once the next rollup pass runs
        // (within a minute under `npm start`); run that pass now rather than wait.
        await rollUpAttempts(database.db, { now: new Date(), retentionFloor: new Date(Date.now() - 30 * 86_400_000) });
      });
    },
    { scope: 'worker' },
  ],

  seeStep: [
    async ({ recordAttempts }, use) => {
      await use(async (agent, step) => {
        const startedAt = new Date(Date.now() - 5 * 60_000);
        const finishedAt = new Date(startedAt.getTime() + 800);
        const taskId = `task-${randomUUID()}`;
        await recordAttempts([{ taskId, agent, step, attemptNumber: 1, startedAt, finishedAt, outcome: 'succeeded' }]);
      });
    },
    { scope: 'worker' },
  ],
});

function watchForErrors(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    // A failed load names no address in its text; the message's location does.
    const where = message.location().url;
    if (message.type() === 'error') problems.push(`console error: ${message.text()}${where ? ` (${where})` : ''}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  return problems;
}

export { expect };

/**
 * Whether the cookies still open a session: a console route answers 404 for a
 * bulk redrive that does not exist when signed in, and 401 once the session ended.
 */
async function sessionStillValid(cookies: Cookies): Promise<boolean> {
  const baseURL = test.info().project.use.baseURL;
  const context = await request.newContext({ baseURL, storageState: { cookies, origins: [] } });
  try {
    const answer = await context.get('/api/console/bulk-redrives/999999999', { maxRedirects: 0 });
    return answer.status() === 404;
  } finally {
    await context.dispose();
  }
}
