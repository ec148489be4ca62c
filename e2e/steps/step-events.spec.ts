import { resumePause, setPause } from '../../packages/engine/src/core';
import type { DatabaseConnection } from '../../packages/engine/src/db/client';
import { uniqueId } from '../support/factories';
import { expect, test } from '../support/fixtures';

/** A step of a new agent that on-call paused and resumed (with a ramp when given) a moment ago. */
async function pausedAndResumed(
  database: DatabaseConnection,
  seeStep: (agent: string, step: string) => Promise<void>,
  label: string,
  ramp?: { startPerMinute: number; overMinutes: number },
): Promise<string> {
  const agent = uniqueId(label);
  await seeStep(agent, 'send');
  const oncall = { type: 'person' as const, id: 'remy@holdfast.demo', role: 'responder' as const, teams: ['growth'] };
  const ctx = { db: database.db, actor: oncall };
  const { pause } = await setPause(ctx, { scope: 'step', agent, step: 'send', reason: 'e2e' });
  await resumePause(ctx, { pauseId: pause.id, reason: 'e2e', ...(ramp ? { ramp } : {}) });
  return agent;
}

/** What happened when: a pause and its ramped resume are marked on the step's charts and listed under them. */
test("a pause and its ramped resume are marked on the step's charts and listed in words", async ({
  page,
  database,
  seeStep,
  expectAccessible,
}) => {
  const agent = await pausedAndResumed(database, seeStep, 'e2e-events', { startPerMinute: 5, overMinutes: 10 });

  await page.goto(`/steps/${agent}/send?window=1h`);
  const events = page.getByTestId('step-events');
  await expect(events.getByTestId('step-event-paused')).toContainText('Paused');
  await expect(events.getByTestId('step-event-paused')).toContainText('person:remy@holdfast.demo');
  await expect(events.getByTestId('step-event-ramping')).toContainText('Resumed with a ramp');
  // Each chart draws the marks, labelled.
  await expect(page.getByTestId('chart-attempts').locator('svg text', { hasText: 'paused' })).toHaveCount(1);
  await expect(page.getByTestId('chart-retry-rate').locator('svg text', { hasText: 'ramp' })).toHaveCount(1);
  await expectAccessible();
});

test('a quiet step says nothing happened in the window', async ({ page, seeStep }) => {
  const agent = uniqueId('e2e-quiet');
  await seeStep(agent, 'send');
  await page.goto(`/steps/${agent}/send`);
  await expect(page.getByTestId('step-events')).toContainText(
    'No pause, resume, breaker change, policy change, redrive or new agent version.',
  );
});

test("the Overview marks the fleet's pauses on its charts and lists them, naming the step", async ({
  page,
  database,
  seeStep,
}) => {
  const agent = await pausedAndResumed(database, seeStep, 'e2e-fleet-events');

  await page.goto('/?window=1h');
  const paused = page.getByTestId('fleet-events').getByTestId('step-event-paused').filter({ hasText: agent });
  await expect(paused).toContainText(`${agent}/send: Paused`);
  // Marked on the chart: by name, or counted with the other pauses of its bucket.
  await expect(
    page
      .getByTestId('chart-retry-share')
      .locator('svg text', { hasText: /^paused/ })
      .first(),
  ).toBeVisible();
});
