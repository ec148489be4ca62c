import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { createAlertChannel, setAlertChannelEnabled } from '../../packages/engine/src/alerts/manage-channels';
import type { CoreContext } from '../../packages/engine/src/core';
import { alertChannels, alertDeliveries, alertRules, auditLog } from '../../packages/engine/src/db/schema';
import { expect, signInAs, test } from '../support/fixtures';

const unique = (label: string) => `e2e-${label}-${randomUUID().slice(0, 8)}`;

/** A path a Slack or webhook URL would keep secret: it must never reach the page or the audit log. */
const secretPath = () => `services/T000/${randomUUID()}`;

test('an admin edits a rule, adds a webhook channel (secret shown once), tests, disables and deletes it, all audited', async ({
  page,
  database,
  expectAccessible,
}) => {
  // A rule: a threshold no other run has set, and a reason to find its audit record by.
  const minutes = 100 + Math.floor(Math.random() * 1_300);
  const reason = unique('locks-are-slow-tonight');
  await page.goto('/alerts?tab=rules');
  await expect(page.getByRole('link', { name: 'Rules' })).toHaveAttribute('aria-current', 'true');
  const rule = page.getByTestId('rule-form-stale_lock');
  await rule.getByLabel('Unreleased for longer than (minutes)').fill(String(minutes));
  await rule.getByLabel('Reason (optional, kept in the audit log)').fill(reason);
  await rule.getByRole('button', { name: 'Save rule' }).click();
  await expect(page.getByTestId('toasts')).toContainText('Stale lock saved: the next sweep uses these values.');
  await expectAccessible();
  const [stored] = await database.db.select().from(alertRules).where(eq(alertRules.kind, 'stale_lock'));
  expect(stored?.thresholds).toEqual({ unreleasableMinutes: minutes });
  const [ruleAudit] = await database.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.targetType, 'alert_rule'), eq(auditLog.reason, reason)));
  expect(ruleAudit).toMatchObject({
    action: 'alert_rule.save',
    targetId: 'stale_lock',
    actorId: 'ada@holdfast.demo',
    after: { thresholds: { unreleasableMinutes: minutes } },
  });

  // A channel: the URL's path never comes back; the signing secret is shown once.
  const name = unique('on-call');
  const team = unique('team');
  const path = secretPath();
  await page.getByRole('link', { name: 'Channels' }).click();
  await expect(page).toHaveURL('/alerts?tab=channels');
  const form = page.getByTestId('channel-form');
  await form.getByLabel('Name').fill(name);
  await form.getByLabel('Kind').selectOption('webhook');
  await form.getByLabel('URL').fill(`https://hooks.example.com/${path}`);
  await form.getByLabel('Team (optional)').fill(team);
  await form.getByRole('button', { name: 'Add channel' }).click();
  const secretBox = page.getByTestId('channel-secret');
  await expect(secretBox).toContainText('it is shown only once');
  const secret = await page.getByTestId('channel-secret-value').inputValue();
  expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
  const row = page.getByTestId(`channel-row-${name}`);
  await expect(row).toContainText('https://hooks.example.com/…');
  await expect(row).toContainText(team);
  await expect(row.getByTestId('channel-status')).toHaveText('Enabled');
  await expectAccessible();

  // Once: a reload shows neither the secret nor the URL's path.
  await page.reload();
  await expect(row).toBeVisible();
  await expect(page.getByTestId('channel-secret')).toHaveCount(0);
  const html = await page.content();
  expect(html).not.toContain(secret);
  expect(html).not.toContain(path);

  // A test notification: one outbox row, which the history lists.
  await row.getByRole('button', { name: `Send a test to ${name}` }).click();
  await expect(page.getByTestId('toasts')).toContainText(`Test queued for ${name}`);
  const [channel] = await database.db.select().from(alertChannels).where(eq(alertChannels.name, name));
  if (!channel) throw new Error('the channel was not stored');
  const deliveries = await database.db.select().from(alertDeliveries).where(eq(alertDeliveries.channelId, channel.id));
  expect(deliveries).toHaveLength(1);
  expect(deliveries[0]).toMatchObject({ event: 'test', instanceId: null });
  await page.getByRole('link', { name: /^Firing/ }).click();
  await expect(page.getByTestId(`delivery-${deliveries[0]!.id}`)).toContainText(name);
  await expectAccessible();

  // Disable, then delete after a confirmation.
  await page.goto('/alerts?tab=channels');
  await row.getByRole('button', { name: `Disable ${name}` }).click();
  await expect(row.getByTestId('channel-status')).toHaveText('Disabled');
  await expect(page.getByTestId('toasts')).toContainText(`${name} disabled`);
  await expect(row.getByRole('button', { name: `Send a test to ${name}` })).toBeDisabled();
  await row.getByRole('button', { name: `Delete ${name}` }).click();
  const dialog = row.getByTestId('delete-channel-dialog');
  await expect(dialog).toContainText('marked failed');
  await dialog.getByRole('button', { name: 'Delete channel' }).click();
  await expect(row).toHaveCount(0);
  await expect(page.getByTestId('toasts')).toContainText(`${name} deleted.`);

  const audit = await database.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.targetType, 'alert_channel'), eq(auditLog.targetId, String(channel.id))))
    .orderBy(auditLog.id);
  expect(audit.map((record) => [record.action, record.actorId])).toEqual([
    ['alert_channel.create', 'ada@holdfast.demo'],
    ['alert_channel.test', 'ada@holdfast.demo'],
    ['alert_channel.disable', 'ada@holdfast.demo'],
    ['alert_channel.delete', 'ada@holdfast.demo'],
  ]);
  expect(JSON.stringify(audit)).not.toContain(path);
  expect(JSON.stringify(audit)).not.toContain(secret);

  // The audit page shows the records too.
  await page.goto(`/audit?targetType=alert_channel&targetId=${channel.id}`);
  await expect(page.getByText('alert_channel.create')).toBeVisible();
});

test('a channel URL that is not https, or carries credentials, is refused beside its field', async ({ page }) => {
  await page.goto('/alerts?tab=channels');
  const form = page.getByTestId('channel-form');
  const name = unique('bad-url');
  await form.getByLabel('Name').fill(name);
  await form.getByLabel('URL').fill('http://hooks.example.com/x');
  await form.getByRole('button', { name: 'Add channel' }).click();
  await expect(form.getByTestId('channel-error-url')).toHaveText(
    'must be https (plain http only to 127.0.0.1 or localhost)',
  );
  await expect(form.getByLabel('URL')).toHaveAttribute('aria-invalid', 'true');
  await expect(form.getByLabel('Name')).toHaveValue(name);

  await form.getByLabel('URL').fill('https://user:pass@hooks.example.com/x');
  await form.getByRole('button', { name: 'Add channel' }).click();
  await expect(form.getByTestId('channel-error-url')).toHaveText('must not carry a user name or password');
  await expect(page.getByTestId(`channel-row-${name}`)).toHaveCount(0);
});

test('a viewer sees rules and channels read only: values, no forms, no buttons', async ({
  page,
  database,
  expectAccessible,
}) => {
  const name = unique('viewer-sees');
  const admin: CoreContext = {
    db: database.db,
    actor: { type: 'person', id: 'ada@holdfast.demo', role: 'admin', teams: [] },
  };
  const created = await createAlertChannel(
    admin,
    { name, kind: 'slack', url: `https://hooks.slack.com/${secretPath()}` },
    // Allowed by name, as the server under test allows it (playwright.config.ts): saving it asks no DNS server.
    { outbound: { allowedHosts: 'hooks.slack.com' } },
  );
  // Switched off at once: the server under test must not post the other specs' alerts to Slack.
  await setAlertChannelEnabled(admin, { channelId: created.channel.id, enabled: false });

  await signInAs(page, 'viewer');
  await page.goto('/alerts?tab=rules');
  await expect(page.getByTestId('rules-read-only')).toContainText('admins change these');
  await expect(page.getByRole('button', { name: 'Save rule' })).toHaveCount(0);
  await expect(page.getByRole('checkbox')).toHaveCount(0);
  await expect(page.getByTestId('rule-dead_letters_waiting').getByTestId('rule-value-maxWaiting')).toContainText(
    'dead letters',
  );
  await expectAccessible();

  await page.goto('/alerts?tab=channels');
  await expect(page.getByTestId('channels-read-only')).toBeVisible();
  await expect(page.getByTestId('channel-form')).toHaveCount(0);
  const row = page.getByTestId(`channel-row-${name}`);
  await expect(row).toContainText('https://hooks.slack.com/…');
  await expect(row.getByRole('button')).toHaveCount(0);
  await expectAccessible();

  await page.goto('/alerts?tab=history');
  await expect(page.getByTestId('history-count')).toContainText('Showing');
});
