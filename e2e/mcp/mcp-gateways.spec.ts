import { eq } from 'drizzle-orm';
import { randomUUID } from 'node:crypto';
import { recordMcpGatewayReport } from '../../packages/engine/src/core';
import { circuitBreakers } from '../../packages/engine/src/db/schema';
import { uniqueId } from '../support/factories';
import { expect, signInAs, test } from '../support/fixtures';

/**
 * The MCP gateways page: what a gateway reported of each tool's calls, beside what the tool's steps cost, and the
 * instance with its options; on a phone too.
 */
test('shows what the gateways did with each tool, what the tools cost, and the instances', async ({
  page,
  database,
  recordAttempts,
  expectAccessible,
}) => {
  const server = uniqueId('e2e-pay');
  const instanceId = randomUUID();
  const agent = uniqueId('e2e-mcp-agent');
  await recordMcpGatewayReport(
    { db: database.db, actor: { type: 'agent', id: 'e2e-gateway', scopes: ['ingest'] } },
    {
      instanceId,
      serverName: server,
      version: '0.1.0',
      startedAt: new Date().toISOString(),
      config: { keylessDefault: 'window', rateLimits: 'charge=30/m', maxIdenticalCalls: 25 },
      counts: [
        { tool: 'charge', outcome: 'ran', calls: 2 },
        { tool: 'charge', outcome: 'replayed', calls: 3 },
        { tool: 'charge', outcome: 'refused_arguments', calls: 1 },
        { tool: 'charge', outcome: 'refused_unknown_tool', calls: 1 },
        { tool: 'charge', outcome: 'rate_limited', calls: 4 },
        { tool: 'lookup', outcome: 'passed_through', calls: 7 },
      ],
    },
  );
  const startedAt = new Date(Date.now() - 10 * 60_000);
  await recordAttempts(
    [1, 2].map((number) => ({
      taskId: `task-${randomUUID().slice(0, 8)}`,
      agent,
      step: `${server}:charge`,
      attemptNumber: 1,
      outcome: 'succeeded' as const,
      costMicros: 2_500,
      startedAt: new Date(startedAt.getTime() + number * 1_000),
      finishedAt: new Date(startedAt.getTime() + number * 1_000 + 300),
    })),
  );

  // The charge tool's own breaker is open for the agent (each tool is a step with its breaker).
  await database.db.insert(circuitBreakers).values({
    target: `step:${agent}/${server}:charge`,
    scope: 'step',
    agent,
    step: `${server}:charge`,
    state: 'open',
    openedAt: new Date(),
    probeAt: new Date(Date.now() + 60_000),
    changedAt: new Date(),
  });

  await page.goto('/');
  await page.getByRole('navigation').getByRole('link', { name: 'MCP gateways' }).click();
  const section = page.getByTestId(`mcp-server-${server}`);
  const charge = section.getByTestId('mcp-tool-charge');
  await expect(charge.getByTestId('calls')).toHaveText('11');
  await expect(charge.getByTestId('outcome-ran')).toHaveText('2');
  await expect(charge.getByTestId('outcome-replayed')).toHaveText('3');
  // Refused: the caller's mistakes together (an unknown tool and arguments the schema refused).
  await expect(charge.getByTestId('outcome-refused_unknown_tool')).toContainText('2');
  // ...and each reason's count beneath.
  await expect(charge.getByTestId('refusal-reasons')).toHaveText('unknown tool 1, arguments 1');
  await expect(charge.getByTestId('outcome-rate_limited')).toHaveText('4');
  await expect(charge.getByTestId('attempts')).toHaveText('2');
  await expect(charge.getByTestId('cost')).toHaveText('$0.0050');
  await expect(charge.getByTestId('tool-breaker')).toHaveText('breaker open');
  await expect(section.getByTestId('mcp-tool-lookup').getByTestId('tool-breaker')).toHaveCount(0);
  await expect(section.getByTestId('mcp-tool-lookup').getByTestId('outcome-passed_through')).toHaveText('7');
  const instance = page.getByTestId(`mcp-instance-${instanceId}`);
  await expect(instance).toContainText('0.1.0');
  await instance.getByText(/options, reported by/).click();
  await expect(instance).toContainText('charge=30/m');
  await expectAccessible();

  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await expect(
    page.getByTestId(`mcp-server-${server}`).getByTestId('mcp-tool-charge').getByTestId('cost'),
  ).toBeVisible();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  // Closed again, so that no later test meets its alert.
  await database.db
    .update(circuitBreakers)
    .set({ state: 'closed', changedAt: new Date() })
    .where(eq(circuitBreakers.target, `step:${agent}/${server}:charge`));
});

test('an admin sets, changes and removes a tool control with a reason; a responder reads them only', async ({
  page,
  database,
  expectAccessible,
}) => {
  const server = uniqueId('e2e-ctl');
  await recordMcpGatewayReport(
    { db: database.db, actor: { type: 'agent', id: 'e2e-gateway', scopes: ['ingest'] } },
    {
      instanceId: randomUUID(),
      serverName: server,
      version: '0.1.0',
      startedAt: new Date().toISOString(),
      config: {},
      counts: [{ tool: 'web_search', outcome: 'ran', calls: 3 }],
    },
  );
  await page.goto('/mcp');
  const form = page.getByTestId('tool-control-form');
  await form.getByLabel('Server').fill(server);
  await form.getByLabel('Tool', { exact: true }).fill('web_search');
  await form.getByLabel('Price per call ($)').fill('0.02');
  await form.getByLabel('Calls per agent').fill('30');
  await form.getByLabel('Reason (kept in the audit log)').fill('the vendor bills 2 cents a search');
  await form.getByRole('button', { name: 'Set controls' }).click();
  await expect(page.getByTestId('toasts')).toContainText(`Controls set for ${server}:web_search`);
  const row = page.getByTestId(`tool-control-${server}-web_search`);
  await expect(row.getByTestId('control-price')).toHaveText('$0.0200 a call');
  await expect(row.getByTestId('control-rate')).toHaveText('30 a minute');
  await expect(row.getByTestId('control-cap')).toHaveText("gateway's own");
  await expectAccessible();

  // A blank field is refused when nothing is set, named beside the field; nothing is written.
  await form.getByLabel('Server').fill(server);
  await form.getByLabel('Tool', { exact: true }).fill('*');
  await form.getByLabel('Reason (kept in the audit log)').fill('nothing');
  await form.getByRole('button', { name: 'Set controls' }).click();
  await expect(page.getByTestId('control-error-priceUsd')).toContainText('set a price, a rate, a spend limit or a cap');
  await expect(page.getByTestId(`tool-control-${server}-*`)).toHaveCount(0);

  await row.getByRole('link', { name: `Edit the controls of ${server}:web_search` }).click();
  const edit = page.getByTestId('tool-control-form');
  await expect(edit.getByLabel('Price per call ($)')).toHaveValue('0.02');
  await edit.getByLabel('Calls per agent').fill('');
  await edit.getByLabel('Identical calls in a session').fill('5');
  await edit.getByLabel('Calls, all agents together').fill('100');
  await edit.getByLabel('Spend per agent ($)').fill('0.5');
  await edit.getByLabel('Price per unit ($)').fill('0.001');
  await edit.getByLabel('Result field counting units').fill('results');
  await edit.getByLabel('Reason (kept in the audit log)').fill('a rate is the vendor’s now');
  await edit.getByRole('button', { name: 'Save changes' }).click();
  await expect(page.getByTestId('toasts')).toContainText(`Controls changed for ${server}:web_search`);
  await expect(row.getByTestId('control-rate')).toContainText("gateway's own");
  await expect(row.getByTestId('control-cap')).toHaveText('5 in a session');
  await expect(row.getByTestId('control-all-agents-rate')).toHaveText('all agents: 100 a minute');
  await expect(row.getByTestId('control-spend-limit')).toHaveText('spend: $0.5000 an hour per agent');
  await expect(row.getByTestId('control-unit-price')).toHaveText('and $0.0010 per unit (results)');

  await signInAs(page, 'responder');
  await page.goto('/mcp');
  await expect(page.getByTestId('tool-controls-read-only')).toContainText('this needs the admin role');
  await expect(page.getByTestId('tool-control-form')).toHaveCount(0);
  await expect(page.getByTestId(`tool-control-${server}-web_search`).getByTestId('control-cap')).toHaveText(
    '5 in a session',
  );

  await signInAs(page, 'admin');
  await page.goto('/mcp');
  const kept = page.getByTestId(`tool-control-${server}-web_search`);
  await kept.getByRole('button', { name: `Remove the controls of ${server}:web_search` }).click();
  await kept.getByLabel('Reason for removing').fill('contract ended');
  await kept.getByRole('button', { name: 'Remove controls' }).click();
  await expect(page.getByTestId('toasts')).toContainText(`Removed the controls of ${server}:web_search.`);
  await expect(kept).toHaveCount(0);
});
