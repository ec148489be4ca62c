import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { Locator, Page } from '@playwright/test';
import { alertChannels, alertDeliveries, apiTokens, auditLog, people } from '../../packages/engine/src/db/schema';
import { createPerson, uniqueId } from '../support/factories';
import { expect, signInAs, test } from '../support/fixtures';

/**
 * Feedback on the settings pages and Alerts: every action announces its outcome in
 * the live region (the toasts) and leaves keyboard focus on the page, never on the
 * body; destructive ones ask first. Each test makes its own people, tokens, pools
 * and channels; the demo people are never changed.
 */

const toasts = (page: Page) => page.getByTestId('toasts');

/** Focus is on this element (not dropped to the body). */
async function expectFocusOn(locator: Locator) {
  await expect(locator).toBeFocused();
}

async function expectFocusKept(page: Page) {
  await expect.poll(() => page.evaluate(() => document.activeElement?.tagName ?? 'none')).not.toBe('BODY');
}

test('an admin removing their own admin role is warned first; Cancel keeps it, confirming saves it with the reason', async ({
  page,
  database,
  expectAccessible,
}) => {
  const admin = await createPerson(database, { role: 'admin' });
  await signInAs(page, admin);
  await page.goto('/settings/people');
  const own = page.getByTestId(`person-form-${admin.email}`);
  await own.getByLabel('Role').selectOption('viewer');
  await own.getByLabel('Reason').fill('handing over the admin role');
  await own.getByRole('button', { name: 'Save' }).click();

  const dialog = page.getByTestId('self-demotion-dialog');
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('You will lose access to these settings');
  await expectFocusOn(dialog.getByRole('button', { name: 'Cancel' }));
  await expectAccessible();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  await expectFocusOn(own.getByRole('button', { name: 'Save' }));
  const roleOf = async () =>
    (await database.db.select({ role: people.role }).from(people).where(eq(people.email, admin.email)))[0]?.role;
  expect(await roleOf()).toBe('admin');

  // Someone else's row never asks: only one's own admin role is warned about.
  const other = await createPerson(database, { role: 'viewer' });
  await page.reload();
  const theirs = page.getByTestId(`person-form-${other.email}`);
  await theirs.getByLabel('Role').selectOption('responder');
  await theirs.getByLabel('Reason').fill('joins on-call');
  await theirs.getByRole('button', { name: 'Save' }).click();
  await expect(toasts(page)).toContainText(`Saved ${other.email}.`);
  await expect(dialog).toBeHidden();

  await own.getByLabel('Role').selectOption('viewer');
  await own.getByLabel('Reason').fill('handing over the admin role');
  await own.getByRole('button', { name: 'Save' }).click();
  await dialog.getByRole('button', { name: 'Remove my admin role' }).click();
  await expect.poll(roleOf).toBe('viewer');
  const [record] = await database.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.targetId, admin.email), eq(auditLog.action, 'person.update')));
  expect(record).toMatchObject({
    actorId: admin.email,
    reason: 'handing over the admin role',
    before: { role: 'admin' },
    after: { role: 'viewer' },
  });
  // Their session ended with the role: the settings are theirs no more.
  await page.goto('/settings/people');
  await expect(page.getByTestId(`person-form-${other.email}`)).toHaveCount(0);
});

test('saving a person announces what happened, "nothing changed" included, needs a reason, and keeps focus', async ({
  page,
  database,
}) => {
  const person = await createPerson(database, { role: 'viewer' });
  await page.goto('/settings/people');
  const form = page.getByTestId(`person-form-${person.email}`);
  await expect(form.getByLabel('Reason')).toHaveAttribute('required', '');

  await form.getByLabel('Role').selectOption('responder');
  await form.getByLabel('Reason').fill('covers nights this month');
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(toasts(page)).toContainText(`Saved ${person.email}.`);
  await expectFocusOn(form.getByRole('button', { name: 'Save' }));
  const records = () =>
    database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetId, person.email), eq(auditLog.action, 'person.update')));
  const [changed] = await records();
  expect(changed?.before).toEqual({ role: 'viewer' });
  expect(changed?.after).toEqual({ role: 'responder' });
  expect(changed?.reason).toBe('covers nights this month');

  // The same values again: nothing written, and said so.
  await expect(form.getByLabel('Role')).toHaveValue('responder');
  await form.getByLabel('Reason').fill('saving again');
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(toasts(page)).toContainText(`Nothing changed for ${person.email}.`);
  await expectFocusOn(form.getByRole('button', { name: 'Save' }));
  expect(await records()).toHaveLength(1);

  // A reason too short is refused by the server beside the field; nothing changes.
  await form.getByLabel('Teams').fill(`${person.teams.join(', ')}, ${uniqueId('team')}`);
  await form.getByLabel('Reason').evaluate((input) => input.removeAttribute('minlength'));
  await form.getByLabel('Reason').fill('ab');
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(toasts(page)).toContainText('Not saved');
  await expect(form).toContainText('Reason: say why, in at least 3 characters');
  await expectFocusKept(page);
  expect(await records()).toHaveLength(1);
});

test('revoking a token asks first, naming it; confirming revokes it, removes its secret banner and announces it', async ({
  page,
  database,
  expectAccessible,
}) => {
  const name = `revoke-${randomUUID().slice(0, 8)}`;
  await page.goto('/settings/tokens');
  const form = page.getByTestId('create-token-form');
  await form.getByLabel('Used by').fill(name);
  await form.getByRole('button', { name: 'Create token' }).click();
  await expect(page.getByTestId('new-token')).toHaveText(/^hf_/);
  const secret = (await page.getByTestId('new-token').textContent()) ?? '';
  await expect(toasts(page)).toContainText(`Token created for ${name}`);
  await expectFocusOn(form.getByRole('button', { name: 'Create token' }));
  // Copy puts the secret on the clipboard, and says so.
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.getByRole('button', { name: 'Copy token' }).click();
  await expect(page.getByTestId('toasts')).toContainText('Token copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
  const [stored] = await database.db.select().from(apiTokens).where(eq(apiTokens.name, name));
  if (!stored) throw new Error('the token was not stored');

  const row = page.getByTestId(`token-row-${name}`);
  await row.getByRole('button', { name: `Revoke the token for ${name}` }).click();
  // Each row has its own (closed) dialog: the one of this row.
  const dialog = row.getByTestId('revoke-token-dialog');
  await expect(dialog).toContainText(`Revoke the token for ${name} (${stored.prefix}…)?`);
  await expectFocusOn(dialog.getByRole('button', { name: 'Cancel' }));
  await expectAccessible();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  await expectFocusOn(row.getByRole('button', { name: `Revoke the token for ${name}` }));
  const revokedAt = async () =>
    (await database.db.select().from(apiTokens).where(eq(apiTokens.id, stored.id)))[0]?.revokedAt ?? null;
  expect(await revokedAt()).toBeNull();
  await expect(page.getByTestId('new-token')).toBeVisible();

  await row.getByRole('button', { name: `Revoke the token for ${name}` }).click();
  await dialog.getByRole('button', { name: 'Revoke token' }).click();
  await expect(toasts(page)).toContainText(`Revoked the token for ${name}: requests with it now get 401.`);
  await expect(row).toContainText('revoked');
  await expect(page.getByTestId('new-token')).toHaveCount(0);
  await expectFocusOn(page.getByRole('heading', { name: 'Tokens, newest first' }));
  expect(await revokedAt()).not.toBeNull();
  const response = await page.request.get('/api/v1/step-stats', {
    headers: { authorization: `Bearer ${secret}` },
  });
  expect(response.status()).toBe(401);
});

test("a token's rate limit is set when it is created and changed in its row; a bad number is named and nothing saved", async ({
  page,
  database,
}) => {
  const name = `limited-${randomUUID().slice(0, 8)}`;
  await page.goto('/settings/tokens');
  const form = page.getByTestId('create-token-form');
  await form.getByLabel('Used by').fill(name);
  await form.getByLabel('Requests a second').fill('2.5');
  await form.getByLabel('Burst').fill('7');
  await form.getByRole('button', { name: 'Create token' }).click();
  await expect(toasts(page)).toContainText(`Token created for ${name}`);
  const stored = async () => (await database.db.select().from(apiTokens).where(eq(apiTokens.name, name)))[0];
  expect(await stored()).toMatchObject({ ratePerSecond: 2.5, rateBurst: 7 });

  const row = page.getByTestId(`token-row-${name}`);
  await expect(row.getByLabel(`Requests a second for ${name}`)).toHaveValue('2.5');
  await row.getByLabel(`Burst for ${name}`).fill('-3');
  await row.getByRole('button', { name: `Save the rate limit of ${name}` }).click();
  await expect(row).toContainText('Check the numbers marked above.');
  expect(await stored()).toMatchObject({ ratePerSecond: 2.5, rateBurst: 7 });

  await row.getByLabel(`Requests a second for ${name}`).fill('');
  await row.getByLabel(`Burst for ${name}`).fill('20');
  await row.getByRole('button', { name: `Save the rate limit of ${name}` }).click();
  await expect(toasts(page)).toContainText(`Rate limit of ${name} saved`);
  expect(await stored()).toMatchObject({ ratePerSecond: null, rateBurst: 20 });
});

test('retry pools: saving and deleting a pool announce it and keep focus', async ({ page }) => {
  const agent = `e2e-feedback-${randomUUID().slice(0, 8)}`;
  await page.goto('/settings/retry-pools');
  const form = page.getByTestId('pool-form');
  await form.getByLabel('Agent').fill(agent);
  await form.getByLabel('Reason (kept in the audit log)').fill('feedback test');
  await form.getByRole('button', { name: 'Save pool' }).click();
  await expect(toasts(page)).toContainText(`Pool added for ${agent} / all steps.`);
  await expectFocusOn(form.getByRole('button', { name: 'Save pool' }));

  await form.getByLabel('Agent').fill(agent);
  await form.getByLabel('Reason (kept in the audit log)').fill('same again');
  await form.getByRole('button', { name: 'Save pool' }).click();
  await expect(toasts(page)).toContainText(`No change: the pool of ${agent} / all steps already has these values.`);

  const row = page.getByTestId(`pool-row-${agent}-*`);
  await row.getByRole('button', { name: `Delete the pool of ${agent} / all steps` }).click();
  await expectFocusOn(row.getByLabel('Reason for deleting'));
  await row.getByRole('button', { name: 'Keep it' }).click();
  await expectFocusOn(row.getByRole('button', { name: `Delete the pool of ${agent} / all steps` }));
  await row.getByRole('button', { name: `Delete the pool of ${agent} / all steps` }).click();
  await row.getByLabel('Reason for deleting').fill('feedback test done');
  await row.getByRole('button', { name: 'Delete pool' }).click();
  await expect(toasts(page)).toContainText(`Deleted the pool of ${agent} / all steps.`);
  await expect(row).toHaveCount(0);
  await expectFocusOn(page.getByRole('heading', { name: 'Pools', exact: true }));
});

test('alerts: saving a rule, adding, testing, disabling and deleting a channel each announce it and keep focus', async ({
  page,
  database,
}) => {
  await page.goto('/alerts?tab=rules');
  const rule = page.getByTestId('rule-form-dead_letters_waiting');
  await rule.getByLabel('Reason (optional, kept in the audit log)').fill(uniqueId('feedback'));
  await rule.getByRole('button', { name: 'Save rule' }).click();
  await expect(toasts(page)).toContainText(/Dead letters waiting.*(saved|no change)/i);
  await expectFocusOn(rule.getByRole('button', { name: 'Save rule' }));

  const name = uniqueId('feedback-channel');
  await page.goto('/alerts?tab=channels');
  const form = page.getByTestId('channel-form');
  await form.getByLabel('Name').fill(name);
  await form.getByLabel('Kind').selectOption('slack');
  await form.getByLabel('URL').fill(`https://hooks.slack.com/services/${randomUUID()}`);
  await form.getByRole('button', { name: 'Add channel' }).click();
  await expect(toasts(page)).toContainText(`Channel ${name} added. Send a test to check it.`);
  await expectFocusOn(form.getByRole('button', { name: 'Add channel' }));

  const row = page.getByTestId(`channel-row-${name}`);
  await row.getByRole('button', { name: `Send a test to ${name}` }).click();
  await expect(toasts(page)).toContainText(`Test queued for ${name}`);
  await expectFocusOn(row.getByRole('button', { name: `Send a test to ${name}` }));

  await row.getByRole('button', { name: `Disable ${name}` }).click();
  await expect(toasts(page)).toContainText(`${name} disabled: it is sent nothing new.`);
  await expectFocusOn(row.getByRole('button', { name: `Enable ${name}` }));

  await row.getByRole('button', { name: `Delete ${name}` }).click();
  const dialog = row.getByTestId('delete-channel-dialog');
  await expectFocusOn(dialog.getByRole('button', { name: 'Cancel' }));
  await dialog.getByRole('button', { name: 'Delete channel' }).click();
  await expect(toasts(page)).toContainText(`${name} deleted.`);
  await expect(row).toHaveCount(0);
  await expectFocusOn(page.getByRole('heading', { name: 'Channels', exact: true }));
  const [channel] = await database.db.select().from(alertChannels).where(eq(alertChannels.name, name));
  expect(channel?.deletedAt).not.toBeNull();
});

/** A 10,000-character error holding a 400-character unbroken token: what used to widen pages. */
const unbroken = `https://hooks.example.com/${'f00dfeed42'.repeat(40)}`.slice(0, 400);
const longError =
  `${'connect ETIMEDOUT 10.0.0.7:443 while posting the alert '.repeat(90)}${unbroken} ${'retrying later '.repeat(200)}`.slice(
    0,
    10_000,
  );

/** The action is inside the 390-px screen, not covered, and clickable. */
async function expectOnScreen(action: Locator, label: string) {
  await action.scrollIntoViewIfNeeded();
  const box = await action.boundingBox();
  expect(box, `${label}: no box`).not.toBeNull();
  if (!box) return;
  expect(box.x >= 0 && box.x + box.width <= 390, `${label} spans x = ${box.x}–${box.x + box.width}`).toBe(true);
  await action.click({ trial: true });
}

async function expectNoWiderThanScreen(page: Page, label: string) {
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(width, `${label} is ${width} px wide at 390 px`).toBeLessThanOrEqual(390);
}

test('at 390 px, with long names and a 10,000-character error, each row of these pages keeps its action on screen', async ({
  page,
  database,
}) => {
  const person = await createPerson(database, { role: 'viewer' });
  const tokenName = `t${'0123456789'.repeat(9)}`.slice(0, 99);
  const channelName = `${uniqueId('phone')}-${'x'.repeat(60)}`;
  const agent = `e2e-phone-${randomUUID().slice(0, 8)}`;

  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto('/settings/tokens');
  await page.getByTestId('create-token-form').getByLabel('Used by').fill(tokenName);
  await page.getByTestId('create-token-form').getByRole('button', { name: 'Create token' }).click();
  await expect(page.getByTestId('new-token')).toBeVisible();
  await expectNoWiderThanScreen(page, 'API tokens');
  await expectOnScreen(
    page.getByTestId(`token-row-${tokenName}`).getByRole('button', { name: /^Revoke/ }),
    'Revoke in the long-named token row',
  );

  await page.goto('/settings/people');
  await expectNoWiderThanScreen(page, 'People');
  await expectOnScreen(
    page.getByTestId(`person-form-${person.email}`).getByRole('button', { name: 'Save' }),
    'Save in a person row',
  );

  await page.goto('/settings/retry-pools');
  const form = page.getByTestId('pool-form');
  await form.getByLabel('Agent').fill(agent);
  await form.getByLabel('Reason (kept in the audit log)').fill('phone width');
  await form.getByRole('button', { name: 'Save pool' }).click();
  await expect(toasts(page)).toContainText(`Pool added for ${agent}`);
  await expectNoWiderThanScreen(page, 'Retry pools');
  await expectOnScreen(
    page.getByRole('button', { name: `Delete the pool of ${agent} / all steps` }),
    'Delete in the pool row',
  );

  // A failing channel with a long reason, and a failed test delivery with the long error.
  const [channel] = await database.db
    .insert(alertChannels)
    .values({
      name: channelName,
      kind: 'webhook',
      url: 'https://hooks.example.com/x',
      urlHint: 'https://hooks.example.com/…',
      signingSecret: 'whsec_test',
      enabled: true,
      failingSince: new Date(),
      failingReason: longError,
      createdBy: 'person:ada@holdfast.demo',
    })
    .returning();
  if (!channel) throw new Error('no channel');
  await database.db.insert(alertDeliveries).values({
    channelId: channel.id,
    event: 'test',
    status: 'failed',
    attempts: 3,
    lastError: longError,
  });

  for (const tab of ['rules', 'channels', 'history']) {
    await page.goto(`/alerts?tab=${tab}`);
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    await expectNoWiderThanScreen(page, `Alerts (${tab})`);
  }
  await page.goto('/alerts?tab=channels');
  const row = page.getByTestId(`channel-row-${channelName}`);
  await expectOnScreen(row.getByRole('button', { name: `Send a test to ${channelName}` }), 'Send a test');
  await expectOnScreen(row.getByRole('button', { name: `Delete ${channelName}` }), 'Delete channel');
  await expect(row.getByTestId('channel-status')).toContainText('Failing since');
  // Deleted again, so the server under test sends the later specs' alerts to no outside address.
  await database.db.update(alertChannels).set({ deletedAt: new Date() }).where(eq(alertChannels.id, channel.id));

  await signInAs(page, person);
  await page.goto('/settings/people');
  await expectNoWiderThanScreen(page, 'People, read only');
});
