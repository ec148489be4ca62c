import { randomUUID } from 'node:crypto';
import { createHold, createPerson, uniqueTeam } from '../support/factories';
import { expect, signInAs, test } from '../support/fixtures';

/**
 * The Holds page filtered to one owner: holds come 50 a page, oldest first, so a hold a
 * test has just made may sit pages away once other specs have parked work; its owner is
 * the test's own team, which finds it on the first page.
 */
const holdsOf = (owner: string) => `/holds?owner=${encodeURIComponent(owner)}`;

test("a viewer clears a hold of their own team, and cannot clear another team's", async ({
  anonymousPage: page,
  database,
  expectAccessible,
}) => {
  const viewer = await createPerson(database, { role: 'viewer' });
  const ownTeamHold = await createHold(database, {
    owner: `team:${viewer.teams[0]}`,
    reason: 'needs_approval',
    detail: 'Refund of $740 is above the $500 limit for automatic refunds',
  });
  const otherTeamHold = await createHold(database, { owner: `team:${uniqueTeam()}` });

  await signInAs(page, viewer);
  await page.goto(holdsOf(otherTeamHold.owner));
  const ownTeam = page.getByTestId(`hold-row-${ownTeamHold.itemId}`);
  const otherTeam = page.getByTestId(`hold-row-${otherTeamHold.itemId}`);
  await expect(otherTeam.getByTestId('clear-refused')).toContainText(
    'viewers may act only on holds owned by them or their teams',
  );
  await expect(otherTeam.getByRole('button', { name: 'Clear' })).toHaveCount(0);
  await expectAccessible();

  await page.goto(holdsOf(ownTeamHold.owner));
  await ownTeam.getByLabel('Resolution').selectOption('resume');
  await ownTeam.getByLabel('Note').fill('Refund approved by finance');
  await ownTeam.getByRole('button', { name: 'Clear' }).click();
  await page.getByRole('dialog', { name: 'Resume this hold?' }).getByRole('button', { name: 'Resume' }).click();
  await expect(ownTeam).toHaveCount(0);
  await page.goto(holdsOf(otherTeamHold.owner));
  await expect(otherTeam).toBeVisible();
});

test("a responder may clear any team's hold; a viewer may not open the token settings", async ({
  anonymousPage: page,
  database,
}) => {
  const responder = await createPerson(database, { role: 'responder' });
  const ownTeamHold = await createHold(database, { owner: `team:${responder.teams[0]}` });
  const otherTeamHold = await createHold(database, { owner: `team:${uniqueTeam()}` });
  await signInAs(page, responder);
  await page.goto(holdsOf(ownTeamHold.owner));
  await expect(page.getByTestId(`hold-row-${ownTeamHold.itemId}`).getByRole('button', { name: 'Clear' })).toBeVisible();
  await page.goto(holdsOf(otherTeamHold.owner));
  await expect(
    page.getByTestId(`hold-row-${otherTeamHold.itemId}`).getByRole('button', { name: 'Clear' }),
  ).toBeVisible();

  await signInAs(page, 'viewer');
  await page.goto('/settings/tokens');
  await expect(page.getByTestId('tokens-refused')).toContainText('this needs the admin role');
  await expect(page.getByTestId('create-token-form')).toHaveCount(0);
});

test('an admin creates tokens shown once; the API takes them by scope, and refuses them once revoked', async ({
  page,
  expectAccessible,
}) => {
  const createToken = async (name: string, scopes: ('ingest' | 'read')[]) => {
    await page.goto('/settings/tokens');
    const form = page.getByTestId('create-token-form');
    await form.getByLabel('Used by').fill(name);
    for (const scope of ['ingest', 'read'] as const) await form.getByLabel(scope).setChecked(scopes.includes(scope));
    await form.getByRole('button', { name: 'Create token' }).click();
    return (await page.getByTestId('new-token').textContent()) ?? '';
  };
  const ingestName = `ingest-${randomUUID().slice(0, 6)}`;
  const ingest = await createToken(ingestName, ['ingest']);
  const read = await createToken(`read-${randomUUID().slice(0, 6)}`, ['read']);
  expect(ingest).toMatch(/^hf_/);
  await expectAccessible();
  await page.reload();
  await expect(page.getByTestId('new-token')).toHaveCount(0); // shown once

  const attempt = {
    taskId: `api-${randomUUID()}`,
    agent: 'api-agent',
    step: 'fetch',
    attemptNumber: 1,
    startedAt: new Date(Date.now() - 1_000).toISOString(),
    finishedAt: new Date().toISOString(),
    outcome: 'succeeded',
    costMicros: 10,
  };
  const post = (token: string, body: unknown) =>
    page.request.post('/api/v1/attempts', { headers: { authorization: `Bearer ${token}` }, data: body });
  expect((await post(ingest, attempt)).status()).toBe(201);
  expect((await post(ingest, attempt)).status()).toBe(200); // a repeated report
  const invalid = await post(ingest, { ...attempt, taskId: `api-${randomUUID()}`, outcome: 'failed', errorText: ' ' });
  expect(invalid.status()).toBe(400);
  expect(await invalid.json()).toMatchObject({
    code: 'INVALID_INPUT',
    fieldErrors: { errorText: [expect.any(String)], errorClass: [expect.any(String)] },
  });

  const readWrite = await post(read, { ...attempt, taskId: `api-${randomUUID()}` });
  expect(readWrite.status()).toBe(403);
  expect(await readWrite.json()).toMatchObject({ code: 'FORBIDDEN' });
  const readRead = await page.request.get('/api/v1/step-stats?window=24h', {
    headers: { authorization: `Bearer ${read}` },
  });
  expect(readRead.status()).toBe(200);
  expect((await readRead.json()).steps).toContainEqual(expect.objectContaining({ agent: 'api-agent', step: 'fetch' }));

  const session = await page.request.get('/api/v1/step-stats', {}); // a console session is not an API credential
  expect(session.status()).toBe(401);

  await page.goto('/settings/tokens');
  // Revoking asks first (settings' own spec checks the dialog in full).
  await page
    .getByTestId(`token-row-${ingestName}`)
    .getByRole('button', { name: `Revoke the token for ${ingestName}` })
    .click();
  await page.getByTestId('revoke-token-dialog').getByRole('button', { name: 'Revoke token' }).click();
  await expect(page.getByTestId(`token-row-${ingestName}`)).toContainText('revoked');
  const revoked = await post(ingest, { ...attempt, taskId: `api-${randomUUID()}` });
  expect(revoked.status()).toBe(401);
  expect(await revoked.json()).toMatchObject({ code: 'UNAUTHENTICATED', detail: 'A valid API token is required' });
});

test("a viewer's forged request to clear another team's hold is refused and changes nothing", async ({
  anonymousPage: page,
  database,
}) => {
  const viewer = await createPerson(database, { role: 'viewer' });
  const ownTeamHold = await createHold(database, { owner: `team:${viewer.teams[0]}` });
  const target = await createHold(database, { owner: `team:${uniqueTeam()}` });
  const auditOfTarget = async () => {
    const [row] = await database.sql<
      { n: number }[]
    >`select count(*)::int as n from audit_log where target_id = ${String(target.holdId)}`;
    return row?.n;
  };
  const auditBefore = await auditOfTarget();

  await signInAs(page, viewer);
  await page.goto(holdsOf(ownTeamHold.owner));
  // Reuse the form of a hold the viewer may clear, aimed at the other team's hold.
  const form = page.getByTestId(`hold-row-${ownTeamHold.itemId}`).getByTestId('clear-hold-form');
  await form
    .locator('input[name="holdId"]')
    .evaluate((input, id) => ((input as HTMLInputElement).value = String(id)), target.holdId);
  await form.getByLabel('Note').fill('forged');
  await form.getByRole('button', { name: 'Clear' }).click();
  await page.getByRole('dialog', { name: 'Resume this hold?' }).getByRole('button', { name: 'Resume' }).click();
  await expect(form.getByRole('alert')).toContainText('may not hold.clear');

  const [after] = await database.sql<{ status: string }[]>`select status from holds where id = ${target.holdId}`;
  expect(after?.status).toBe('open');
  expect(await auditOfTarget()).toBe(auditBefore);
});

test("a viewer's session replayed on an admin's revoke form is refused", async ({ page, browser, database }) => {
  await page.goto('/settings/tokens');
  const name = `kept-${randomUUID().slice(0, 6)}`;
  const form = page.getByTestId('create-token-form');
  await form.getByLabel('Used by').fill(name);
  await form.getByRole('button', { name: 'Create token' }).click();
  await expect(page.getByTestId('new-token')).toBeVisible();
  await page.reload();

  // Swap the admin's session for a viewer's, then press the admin's Revoke button.
  const viewerContext = await browser.newContext();
  const viewerPage = await viewerContext.newPage();
  await signInAs(viewerPage, 'viewer');
  const viewerCookies = await viewerContext.cookies();
  await viewerContext.close();
  await page.context().clearCookies();
  await page.context().addCookies(viewerCookies);
  const actionAnswered = page.waitForResponse((response) => response.request().method() === 'POST');
  await page
    .getByTestId(`token-row-${name}`)
    .getByRole('button', { name: `Revoke the token for ${name}` })
    .click();
  await page.getByTestId('revoke-token-dialog').getByRole('button', { name: 'Revoke token' }).click();
  await actionAnswered;
  const [token] = await database.sql<
    { revoked_at: Date | null }[]
  >`select revoked_at from api_tokens where name = ${name}`;
  expect(token?.revoked_at).toBeNull();
});

for (const role of ['viewer', 'responder', 'admin'] as const) {
  test(`the ${role} sees exactly the actions the ${role} may take`, async ({ anonymousPage: page, database }) => {
    // It walks every page of open holds, and the demo's freeze pass parks every idle task (hundreds of holds).
    test.slow();
    // One hold on each side of the demo viewer's line, so neither branch is checked vacuously; neither is changed.
    await createHold(database, { owner: 'team:payments' });
    await createHold(database, { owner: `team:${uniqueTeam()}` });
    await signInAs(page, role);
    const open = await database.sql<
      { item_id: string; owner: string; item_type: string }[]
    >`select item_id, owner, item_type from holds where status = 'open'`;
    const vera = ['team:payments', 'person:vera@holdfast.demo'];
    // A viewer clears the holds she owns, except where clearing is the item's own action (a redrive, a key settled).
    const mayClear = (hold: { owner: string; item_type: string }) =>
      role !== 'viewer' || (vera.includes(hold.owner) && hold.item_type !== 'dead_letter' && hold.item_type !== 'key');

    // Holds come 50 a page: walk every page, so every open hold is checked exactly once.
    await page.goto('/holds');
    const checked = new Set<string>();
    for (;;) {
      // Read every row of the page at once (a locator per row takes ~70 ms, and there may be hundreds of holds).
      const onPage = await page
        .getByTestId('holds-table')
        .locator('tbody tr')
        .evaluateAll((rows) =>
          rows.map((row) => ({
            itemId: row.getAttribute('data-testid')?.replace('hold-row-', '') ?? '',
            clearButtons: [...row.querySelectorAll('button')].filter((button) => button.textContent?.trim() === 'Clear')
              .length,
            refusals: row.querySelectorAll('[data-testid="clear-refused"]').length,
          })),
        );
      for (const { itemId, clearButtons, refusals } of onPage) {
        const hold = open.find((candidate) => candidate.item_id === itemId);
        if (!hold) continue; // opened by another test since the query above
        expect({ itemId, clearButtons, refusals }).toEqual({
          itemId,
          clearButtons: mayClear(hold) ? 1 : 0,
          refusals: mayClear(hold) ? 0 : 1,
        });
        checked.add(itemId);
      }
      const next = page.getByTestId('holds-pager').getByRole('link', { name: 'Next →' });
      if ((await next.count()) === 0) break;
      const showing = await page.getByTestId('holds-showing').textContent();
      await next.click();
      await expect(page.getByTestId('holds-showing')).not.toHaveText(showing ?? '');
    }
    // Every hold open before the walk and still open after it was seen (the sweeper may settle one meanwhile).
    const stillOpen = new Set(
      (await database.sql<{ item_id: string }[]>`select item_id from holds where status = 'open'`).map(
        (hold) => hold.item_id,
      ),
    );
    const expected = open.map((hold) => hold.item_id).filter((itemId) => stillOpen.has(itemId));
    expect(expected.filter((itemId) => !checked.has(itemId))).toEqual([]);

    await page.goto('/settings/tokens');
    await expect(page.getByTestId('create-token-form')).toHaveCount(role === 'admin' ? 1 : 0);
    await expect(page.getByTestId('tokens-refused')).toHaveCount(role === 'admin' ? 0 : 1);
  });
}

test('an admin gives a person a team; a viewer sees people read-only', async ({
  anonymousPage: page,
  database,
  expectAccessible,
}) => {
  const viewer = await createPerson(database, { role: 'viewer' });
  const [ownTeam] = viewer.teams;
  const newTeam = uniqueTeam();
  const newTeamHold = await createHold(database, { owner: `team:${newTeam}` });

  await signInAs(page, 'admin');
  await page.goto('/settings/people');
  const person = page.getByTestId(`person-form-${viewer.email}`);
  await person.getByLabel('Teams').fill(`${ownTeam}, ${newTeam}`);
  await person.getByLabel('Reason').fill('joins the new team');
  await person.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByTestId('toasts')).toContainText(`Saved ${viewer.email}.`);
  await expectAccessible();

  await signInAs(page, viewer);
  await expect(page.getByTestId('signed-in-person')).toContainText([ownTeam, newTeam].sort().join(', '));
  await page.goto(holdsOf(newTeamHold.owner));
  const newTeamRow = page.getByTestId(`hold-row-${newTeamHold.itemId}`);
  await expect(newTeamRow.getByRole('button', { name: 'Clear' })).toHaveCount(1); // now their team's too
  await page.goto('/settings/people');
  await expect(page.getByTestId('people-read-only')).toContainText('this needs the admin role');
  await expect(page.getByRole('button', { name: 'Save' })).toHaveCount(0);
});

test('an admin limits a token to agents and queues: the list shows the limits and the API refuses other agents', async ({
  page,
  expectAccessible,
}) => {
  await page.goto('/settings/tokens');
  const name = `limited-${randomUUID().slice(0, 6)}`;
  const form = page.getByTestId('create-token-form');
  await form.getByLabel('Used by').fill(name);
  await form.getByLabel('Only for agents').fill('outreach, payments');
  await form.getByLabel('Only on queues').fill('outreach');
  await form.getByRole('button', { name: 'Create token' }).click();
  const token = (await page.getByTestId('new-token').textContent()) ?? '';
  expect(token).toMatch(/^hf_/);
  await page.reload();
  const limits = page.getByTestId(`token-row-${name}`).getByTestId('token-limits');
  await expect(limits).toContainText('agents: outreach, payments');
  await expect(limits).toContainText('queues: outreach');
  await expectAccessible();

  const attempt = (agent: string) => ({
    taskId: `limited-${randomUUID()}`,
    agent,
    step: 'send',
    attemptNumber: 1,
    startedAt: new Date(Date.now() - 1_000).toISOString(),
    finishedAt: new Date().toISOString(),
    outcome: 'succeeded',
  });
  const post = (body: unknown) =>
    page.request.post('/api/v1/attempts', { headers: { authorization: `Bearer ${token}` }, data: body });
  expect((await post(attempt('outreach'))).status()).toBe(201);
  const refused = await post(attempt('billing'));
  expect(refused.status()).toBe(403);
  expect(await refused.json()).toMatchObject({
    code: 'FORBIDDEN',
    detail: expect.stringContaining('this token may act only for agents outreach, payments'),
  });
});

test("a hold's detail shows bidi controls as markers, never applying them", async ({ page, database }) => {
  const { itemId, owner } = await createHold(database, {
    agent: 'payments',
    reason: 'needs_approval',
    owner: `team:${uniqueTeam()}`,
    detail: 'Approve invoice\u202Efdp.exe for $10',
  });
  await page.goto(holdsOf(owner));
  const row = page.getByTestId(`hold-row-${itemId}`);
  await expect(row).toContainText('Approve invoice⟨U+202E⟩fdp.exe for $10');
  expect(await row.textContent()).not.toContain('\u202E');
});
