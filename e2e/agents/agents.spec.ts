import fs from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { formatCount, formatMicros } from '../../lib/console/format';
import { saveStepOwner } from '../../packages/engine/src/core';
import { agentRuns } from '../../packages/engine/src/db/schema';
import { createToken, uniqueId } from '../support/factories';
import { expect, test } from '../support/fixtures';

/**
 * "What does this agent cost?", answered without adding rows by hand: from the Agents list to the agent's page and
 * its CSV, each figure the sum of the API's per-step figures for the same window.
 */
test("a cost reviewer goes from the agents list to an agent's retry spend and its CSV; the figures are the API's", async ({
  page,
  database,
  recordAttempts,
  expectAccessible,
}) => {
  const agent = uniqueId('e2e-costly');
  const start = Date.now() - 30 * 60_000;
  const at = (offset: number) => ({
    startedAt: new Date(start + offset * 1_000),
    finishedAt: new Date(start + offset * 1_000 + 500),
  });
  const task = () => `task-${randomUUID().slice(0, 8)}`;
  const retried = task();
  // draft: a timeout ($0.003) retried to a success ($0.005), and a first-try success ($0.004); send: one ($0.001).
  await recordAttempts([
    {
      taskId: retried,
      agent,
      step: 'draft',
      attemptNumber: 1,
      outcome: 'failed',
      errorClass: 'timeout',
      errorText: 'no answer in 30 s',
      costMicros: 3_000,
      ...at(1),
    },
    { taskId: retried, agent, step: 'draft', attemptNumber: 2, outcome: 'succeeded', costMicros: 5_000, ...at(2) },
    { taskId: task(), agent, step: 'draft', attemptNumber: 1, outcome: 'succeeded', costMicros: 4_000, ...at(3) },
    { taskId: task(), agent, step: 'send', attemptNumber: 1, outcome: 'succeeded', costMicros: 1_000, ...at(4) },
  ]);

  // Two runs of the agent, as its spans reported them (agent_runs): one failed.
  await database.db.insert(agentRuns).values(
    [1, 2].map((run) => ({
      traceId: randomUUID().replaceAll('-', ''),
      spanId: randomUUID().slice(0, 16).replace('-', '0'),
      agent,
      name: 'invoke_agent',
      convention: 'invoke_agent',
      ...at(run * 10),
      outcome: run === 1 ? ('succeeded' as const) : ('failed' as const),
      errorText: run === 1 ? null : 'the model refused the plan',
    })),
  );

  // The API's figures for the same window, per step, as a token limited to this agent reads them.
  const { token } = await createToken(database, { scopes: ['read'], allowedAgents: [agent] });
  const answer = await page.request.get('/api/v1/step-stats?window=24h', {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(answer.status()).toBe(200);
  const { steps } = (await answer.json()) as {
    steps: { agent: string; attempts: number; totalSpendMicros: number; retrySpendMicros: number }[];
  };
  expect(steps.map((step) => step.agent)).toEqual([agent, agent]);
  const sum = (figure: (step: (typeof steps)[number]) => number) =>
    steps.reduce((total, step) => total + figure(step), 0);

  await page.goto('/agents?window=24h');
  const row = page.getByTestId(`agent-row-${agent}`);
  await expect(row.getByTestId('attempts')).toContainText(formatCount(sum((step) => step.attempts)));
  await expect(row.getByTestId('totalSpendMicros')).toContainText(formatMicros(sum((step) => step.totalSpendMicros)));
  await expect(row.getByTestId('retrySpendMicros')).toContainText(formatMicros(sum((step) => step.retrySpendMicros)));
  await expect(row.getByTestId('retrySpendMicros')).toContainText('$0.0030');
  await expectAccessible();

  await row.getByRole('link', { name: agent }).click();
  await expect(page).toHaveURL(new RegExp(`/agents/${agent}\\?window=24h$`));
  await expect(page.getByRole('heading', { name: agent, level: 1 })).toBeVisible();
  const tile = (key: string) => page.getByTestId(`step-headline-${key}`).getByTestId('value');
  await expect(tile('retrySpendMicros')).toHaveText(formatMicros(sum((step) => step.retrySpendMicros)));
  await expect(tile('totalSpendMicros')).toHaveText('$0.0130');
  // Two executions of draft and one of send, two of them right the first time.
  await expect(tile('firstTrySuccess')).toHaveText('66.7%');
  await expect(page.getByTestId(`steps-row-${agent}-draft`)).toBeVisible();
  await expect(page.getByTestId(`steps-row-${agent}-send`)).toBeVisible();
  // How its spend was costed: each step's way under its spend, and the agent's attempts by cost source.
  await expect(page.getByTestId(`steps-row-${agent}-draft`).getByTestId('cost-sources')).toHaveText('reported');
  const mix = page.getByTestId('cost-source-mix');
  await expect(mix.getByTestId('cost-source-reported').getByTestId('cost')).toHaveText('$0.0130');
  await expect(mix.getByTestId('cost-source-total').getByTestId('retry-cost')).toHaveText(
    formatMicros(sum((step) => step.retrySpendMicros)),
  );
  await expectAccessible();

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('agent-steps-export').click()]);
  const lines = (await fs.readFile(await download.path(), 'utf8')).split('\r\n').filter(Boolean);
  const header = lines[0]!.split(',');
  const column = (name: string) => header.indexOf(name);
  const rows = lines.slice(1).map((line) => line.split(','));
  expect(rows.map((cells) => cells[column('agent')])).toEqual([agent, agent]);
  const csvRetrySpend = rows.reduce((total, cells) => total + Number(cells[column('retry_spend_usd')]), 0);
  expect(csvRetrySpend).toBeCloseTo(sum((step) => step.retrySpendMicros) / 1_000_000, 10);
  expect(rows.map((cells) => cells[column('cost_sources')])).toEqual(['reported', 'reported']);

  // Its runs, from its spans: two, one failed, the latest failure named.
  const runs = page.getByTestId('agent-runs');
  await expect(runs).toContainText('2 runs, 1 failed');
  await expect(runs).toContainText('The latest failure: the model refused the plan');

  // The Steps list filters by how steps were costed: none of this agent's was priced from tokens.
  await page.getByTestId('agent-steps-link').click();
  await expect(page).toHaveURL(new RegExp(`/steps\\?window=24h&agent=${agent}`));
  // Its steps' subtotal, as the API's figures add up.
  const subtotal = page.getByTestId('steps-subtotal');
  await expect(subtotal.getByTestId('subtotal-attempts')).toHaveText(
    `${formatCount(sum((step) => step.attempts))} attempts`,
  );
  await expect(subtotal.getByTestId('subtotal-retry-spend')).toHaveText(
    formatMicros(sum((step) => step.retrySpendMicros)),
  );
  await page.getByLabel('Cost source').selectOption('priced');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(/cost=priced/);
  await expect(page.getByTestId(`steps-row-${agent}-draft`)).toHaveCount(0);
});

test("My agents lists the agents an owner's teams answer for, from the sidebar", async ({
  page,
  database,
  seeStep,
}) => {
  const ours = uniqueId('e2e-ours');
  const theirs = uniqueId('e2e-theirs');
  await seeStep(ours, 'plan');
  await seeStep(theirs, 'plan');
  // The signed-in admin is in team platform.
  const admin = { type: 'person' as const, id: 'ada@holdfast.demo', role: 'admin' as const, teams: ['platform'] };
  await saveStepOwner(
    { db: database.db, actor: admin },
    { agent: ours, step: '*', owner: 'team:platform', reason: 'e2e' },
  );
  await saveStepOwner(
    { db: database.db, actor: admin },
    { agent: theirs, step: '*', owner: 'team:payments', reason: 'e2e' },
  );

  await page.goto('/');
  await page.getByRole('link', { name: 'My agents' }).click();
  await expect(page).toHaveURL(/\/agents\?owner=mine$/);
  await expect(page.getByTestId(`agent-row-${ours}`).getByTestId('step-owner')).toHaveText('team:platform');
  await expect(page.getByTestId(`agent-row-${theirs}`)).toHaveCount(0);
  await page.getByRole('link', { name: 'All agents' }).click();
  await expect(page.getByTestId(`agent-row-${theirs}`).getByTestId('step-owner')).toHaveText('team:payments');
});
