import { sql } from 'drizzle-orm';
import { beginStep, type Actor } from '../../packages/engine/src/core';
import { uniqueId } from '../support/factories';
import { expect, signInAs, test } from '../support/fixtures';

const agentToken: Actor = { type: 'agent', id: 'e2e-paused-agent', scopes: ['ingest'] };

/** A ramp still running would name this test's step on every page's pause notice: it is ended once checked. */
async function endRampsOf(
  database: { db: { execute: (query: ReturnType<typeof sql>) => Promise<unknown> } },
  agent: string,
) {
  await database.db.execute(sql`
    update pauses set ramp_ends_at = resumed_at + interval '1 millisecond'
    where agent = ${agent} and ramp_ends_at is not null`);
}

test('a responder pauses a step from its page, its agent waits, and a resume with a ramp is announced and audited', async ({
  page,
  database,
  seeStep,
  expectAccessible,
}) => {
  const agent = uniqueId('e2e-pause');
  const step = 'send_email';
  await seeStep(agent, step);
  try {
    await page.goto(`/steps/${agent}/${step}`);
    const section = page.getByTestId('step-pauses');
    await expect(section).toContainText('Not paused');
    await section.getByLabel('For').selectOption('60');
    await section.getByLabel('Reason').fill('Mail API answers 503 for everyone');
    await section.getByRole('button', { name: 'Pause…' }).click();
    const dialog = page.getByRole('dialog', { name: `Pause step ${agent}/${step}?` });
    await expect(dialog).toContainText('Reason: Mail API answers 503 for everyone');
    await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
    await expectAccessible();
    await dialog.getByRole('button', { name: 'Pause', exact: true }).click();
    await expect(page.getByTestId('toasts')).toContainText(`Paused step ${agent}/${step}.`);
    await expect(section.getByRole('heading', { name: 'This step is paused' })).toBeVisible();
    await expect(section).toContainText('Mail API answers 503 for everyone');

    // The agent's next begin waits, naming the pause.
    const answer = await beginStep(
      { db: database.db, actor: agentToken },
      {
        taskId: uniqueId('task'),
        agent,
        step,
        owner: 'person:ada@holdfast.demo',
        content: null,
      },
    );
    expect(answer).toMatchObject({
      decision: 'wait',
      code: 'PAUSED',
      pause: { target: `${agent}/${step}`, pausedBy: 'person:ada@holdfast.demo' },
    });

    // The Overview says something is paused, and links to the Pauses page, where the backlog shows.
    await page.goto('/');
    await expect(page.getByTestId('pauses-notice')).toContainText(`${agent}/${step}`);
    await expect(page.getByTestId('pauses-notice')).toContainText(/\d+ begin\(s\) turned away in the last 15 minutes/);
    await page.getByTestId('pauses-notice').getByRole('link', { name: 'See Pauses' }).click();
    await expect(page).toHaveURL(/\/pauses$/);
    const [pause] = await database.db.execute<{ id: string }>(sql`select id from pauses where agent = ${agent}`);
    const row = page.getByTestId(`pause-row-${pause!.id}`);
    await expect(row.getByTestId('pause-waiting-begins')).toHaveText('1');
    await expect(row.getByTestId('pause-waiting-tasks')).toHaveText('1');
    await expectAccessible();

    await row.getByLabel(`Reason for resuming ${agent}/${step}`).fill('Mail API is back');
    await row.getByLabel('Ramp up').check();
    await row.getByLabel('Begins in the first minute').fill('5');
    await row.getByLabel('Unlimited after (minutes)').fill('10');
    await row.getByRole('button', { name: 'Resume…' }).click();
    const resume = page.getByRole('dialog', { name: `Resume ${agent}/${step}?` });
    await expect(resume).toContainText('Begins resume at 5 in the first minute');
    await resume.getByRole('button', { name: 'Resume', exact: true }).click();
    await expect(page.getByTestId('toasts')).toContainText(`${agent}/${step} resumed with a ramp.`);
    await expect(row).toContainText('Ramping up');

    // The downstream took the first minutes well: the ramp is ended early, asked first, and the row ends.
    await row.getByLabel(`Reason for ending the ramp of ${agent}/${step}`).fill('Mail API holds the load');
    await row.getByRole('button', { name: 'End the ramp…' }).click();
    await page
      .getByRole('dialog', { name: `End the ramp of ${agent}/${step}?` })
      .getByRole('button', { name: 'End the ramp' })
      .click();
    await expect(page.getByTestId('toasts')).toContainText(`${agent}/${step} runs unlimited again: the ramp ended.`);
    await expect(page.getByTestId('pause-history-table').getByTestId(`pause-row-${pause!.id}`)).toContainText('Ended');

    const audit = await database.db.execute<{ action: string; actor_id: string; reason: string }>(sql`
      select action, actor_id, reason from audit_log where target_type = 'pause' and target_id = ${pause!.id} order by id`);
    expect(audit.map((record) => ({ ...record }))).toEqual([
      { action: 'pause.set', actor_id: 'ada@holdfast.demo', reason: 'Mail API answers 503 for everyone' },
      { action: 'pause.resume', actor_id: 'ada@holdfast.demo', reason: 'Mail API is back' },
      { action: 'pause.ramp_end', actor_id: 'ada@holdfast.demo', reason: 'Mail API holds the load' },
    ]);
  } finally {
    await endRampsOf(database, agent);
  }
});

test('a viewer sees what is paused and is told why they cannot pause', async ({ page }) => {
  await signInAs(page, 'viewer');
  await page.goto('/pauses');
  await expect(page.getByRole('heading', { level: 1, name: 'Pauses' })).toBeVisible();
  await expect(page.getByTestId('new-pause')).toContainText('Pausing: this needs the responder or admin role.');
  await expect(page.getByTestId('pause-form')).toHaveCount(0);
});

test('pausing a downstream nobody named yet is allowed, and a bad form names its fields', async ({
  page,
  database,
}) => {
  const downstream = uniqueId('smtp');
  await page.goto('/pauses');
  const form = page.getByTestId('pause-form');
  await form.getByLabel('What to pause').selectOption('downstream');
  await form.getByLabel('Downstream').fill('has spaces in it');
  await form.getByLabel('Reason').fill('relay down');
  await form.getByRole('button', { name: 'Pause…' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Pause', exact: true }).click();
  await expect(form).toContainText('may contain only letters, digits and _ . : -');

  await form.getByLabel('Downstream').fill(downstream);
  await form.getByRole('button', { name: 'Pause…' }).click();
  await page
    .getByRole('dialog', { name: `Pause every step that calls ${downstream}?` })
    .getByRole('button', { name: 'Pause', exact: true })
    .click();
  await expect(page.getByTestId('toasts')).toContainText(`Paused every step that calls ${downstream}.`);
  const [pause] = await database.db.execute<{ id: string }>(
    sql`select id from pauses where downstream = ${downstream}`,
  );
  await expect(page.getByTestId(`pause-row-${pause!.id}`)).toContainText(`downstream ${downstream}`);
  // Resumed at once, so other tests' pages carry no notice of it.
  const row = page.getByTestId(`pause-row-${pause!.id}`);
  await row.getByLabel(`Reason for resuming downstream ${downstream}`).fill('relay is back');
  await row.getByRole('button', { name: 'Resume…' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Resume', exact: true }).click();
  await expect(page.getByTestId('toasts')).toContainText(`downstream ${downstream} resumed.`);
  await expect(page.getByTestId('pause-history-table')).toContainText(downstream);
});

test('an open breaker shows on the Pauses page and its step page; admins change the settings, audited', async ({
  page,
  database,
  seeStep,
}) => {
  const agent = uniqueId('e2e-breaker');
  const step = 'charge_card';
  await seeStep(agent, step);
  const target = `step:${agent}/${step}`;
  // As the finish path leaves it when a storm trips it (tests/integration/breakers covers that path).
  await database.db.execute(sql`
    insert into circuit_breakers (target, scope, agent, step, state, opened_at, probe_at, failure_share, volume, changed_at)
    values (${target}, 'step', ${agent}, ${step}, 'open', now(), now() + interval '30 seconds', 0.8, 25, now())`);
  await database.db.execute(sql`
    insert into breaker_events (target, event, at, failure_share, volume) values (${target}, 'opened', now(), 0.8, 25)`);
  try {
    await page.goto('/pauses');
    const row = page.getByTestId(`breaker-row-${target}`);
    await expect(row).toContainText('Open');
    await expect(row).toContainText('80% of 25 attempts failing');
    await row.getByRole('link', { name: `${agent}/${step}` }).click();
    const section = page.getByTestId('step-breaker');
    await expect(section).toContainText('Circuit breaker: Open');
    await expect(page.getByTestId('step-breaker-history')).toContainText('Opened (80% of 25 attempts failing)');

    await page.goto('/pauses');
    const form = page.getByTestId('breaker-settings-form');
    await form.getByLabel('Minimum attempts').fill('0');
    await form.getByLabel('Reason').fill('quieter steps should trip too');
    await form.getByRole('button', { name: 'Save settings' }).click();
    await expect(form).toContainText('must be at least 1');
    await form.getByLabel('Minimum attempts').fill('40');
    await form.getByRole('button', { name: 'Save settings' }).click();
    await expect(page.getByTestId('toasts')).toContainText('Breaker settings saved');
    await expect(page.getByTestId('breaker-settings-summary')).toContainText('of at least 40 attempts');
    const [audit] = await database.db.execute<{ actor_id: string; after: { minimumVolume: number } }>(sql`
      select actor_id, after from audit_log where action = 'breaker_settings.save' order by id desc limit 1`);
    expect(audit).toMatchObject({ actor_id: 'ada@holdfast.demo', after: { minimumVolume: 40 } });
  } finally {
    await database.db.execute(sql`delete from breaker_settings`);
    await database.db.execute(
      sql`update circuit_breakers set state = 'closed', probe_at = null where target = ${target}`,
    );
  }
});
