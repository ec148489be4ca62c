import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { APIRequestContext } from '@playwright/test';
import { formatMicros } from '../../lib/console/format';
import type { DatabaseConnection } from '../../packages/engine/src/db/client';
import { rollUpAttempts } from '../../packages/engine/src/rollups/roll-up';
import { createToken } from '../support/factories';
import { expect, test } from '../support/fixtures';

type Attribute = { key: string; value: { stringValue: string } | { intValue: string } | { doubleValue: number } };
const text = (key: string, value: string): Attribute => ({ key, value: { stringValue: value } });
const int = (key: string, value: number): Attribute => ({ key, value: { intValue: String(value) } });

/**
 * One model call and its retries as an OpenTelemetry SDK exports them: sibling `chat draft` spans of one parent
 * (attempts 1 to 4 of one execution). Refused with 429 (the failed-call rule: 0), cut by a 503 after 50 tokens
 * (priced), answered (priced), answered again with its cost stated (reported). gpt-4o is 2.50 $ in and 10 $ out a
 * million tokens in the pinned price table.
 */
function chatDraftSpans(startMs: number) {
  const traceId = randomBytes(16).toString('hex');
  const parentSpanId = randomBytes(8).toString('hex');
  const chat = [
    text('gen_ai.operation.name', 'chat'),
    text('gen_ai.provider.name', 'openai'),
    text('gen_ai.request.model', 'gpt-4o'),
  ];
  const tokens = (input: number, output: number) => [
    int('gen_ai.usage.input_tokens', input),
    int('gen_ai.usage.output_tokens', output),
  ];
  const span = (offsetMs: number, attributes: Attribute[], status?: { code: 2; message: string }) => ({
    traceId,
    spanId: randomBytes(8).toString('hex'),
    parentSpanId,
    name: 'chat draft',
    startTimeUnixNano: String(BigInt(startMs + offsetMs) * 1_000_000n),
    endTimeUnixNano: String(BigInt(startMs + offsetMs + 300) * 1_000_000n),
    attributes: [...chat, ...attributes],
    ...(status ? { status } : {}),
  });
  return [
    span(0, [...tokens(1_000, 0), text('error.type', '429')], { code: 2, message: 'Too Many Requests' }),
    span(1_000, [...tokens(1_000, 50), text('error.type', '503')], { code: 2, message: 'Service Unavailable' }),
    span(2_000, tokens(1_000, 200)),
    span(3_000, [{ key: 'gen_ai.usage.cost.amount', value: { doubleValue: 0.002 } }]),
  ];
}

/** Sends spans to the traces receiver as an exporter does, then runs the rollup pass (which keeps step_sources). */
async function exportSpans(request: APIRequestContext, database: DatabaseConnection, agent: string, spans: object[]) {
  const { token } = await createToken(database, { scopes: ['ingest'] });
  const answer = await request.post('/v1/traces', {
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    data: JSON.stringify({
      resourceSpans: [{ resource: { attributes: [text('service.name', agent)] }, scopeSpans: [{ spans }] }],
    }),
  });
  expect(answer.status()).toBe(200);
  expect(await answer.json()).toEqual({});
  await rollUpAttempts(database.db, { now: new Date(), retentionFloor: new Date(Date.now() - 30 * 86_400_000) });
}

test('Steps shows each step the ways its attempts came, and filters by one', async ({
  page,
  database,
  recordAttempts,
  expectAccessible,
}) => {
  const agent = `e2e-sources-${randomUUID().slice(0, 6)}`;
  await exportSpans(page.request, database, agent, chatDraftSpans(Date.now() - 20 * 60_000));
  const startedAt = new Date(Date.now() - 15 * 60_000);
  await recordAttempts([
    {
      taskId: `task-${randomUUID().slice(0, 8)}`,
      agent,
      step: 'send_reply',
      attemptNumber: 1,
      outcome: 'succeeded',
      costMicros: 100,
      startedAt,
      finishedAt: new Date(startedAt.getTime() + 200),
    },
  ]);

  await page.goto(`/steps?agent=${agent}`);
  const traced = page.getByTestId(`steps-row-${agent}-chat_draft`);
  const inProcess = page.getByTestId(`steps-row-${agent}-send_reply`);
  await expect(traced.getByTestId('source-badge-traces')).toHaveText(/^traces/);
  await expect(traced.getByTestId('source-badge-traces')).toHaveAttribute('title', /OpenTelemetry spans/);
  await expect(traced.getByTestId('source-badge-library')).toHaveCount(0);
  await expect(inProcess.getByTestId('source-badge-library')).toHaveText(/^library/);
  await expect(inProcess.getByTestId('source-badge-traces')).toHaveCount(0);
  await expectAccessible();

  const filters = page.getByTestId('steps-filters');
  await filters.getByLabel('Arrived through').selectOption('traces');
  await filters.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(/source=traces/);
  await expect(page.getByTestId('steps-table').locator('tbody tr')).toHaveCount(1);
  await expect(traced).toBeVisible();
  // Sorting keeps the filter, as every other one.
  await page.getByTestId('sort-attempts').click();
  await expect(page).toHaveURL(/source=traces.*sort=attempts/);
  await expect(page.getByTestId('steps-table').locator('tbody tr')).toHaveCount(1);

  await page.goto(`/steps?agent=${agent}&source=http`);
  await expect(page.getByTestId('steps-empty')).toBeVisible();
});

test("a step seen only through spans: its cost sources, the retry spend's estimate, and what spans cannot do", async ({
  page,
  database,
  expectAccessible,
}) => {
  const agent = `e2e-mix-${randomUUID().slice(0, 6)}`;
  await exportSpans(page.request, database, agent, chatDraftSpans(Date.now() - 40 * 60_000));
  const stored = await database.db.execute<{ cost_source: string; attempts: number; cost: string; retry: string }>(sql`
    select cost_source, count(*)::int as attempts, sum(cost_micros)::text as cost,
      sum(retry_cost_micros)::text as retry
    from attempts where agent = ${agent} group by cost_source`);
  const of = (source: string) => stored.find((row) => row.cost_source === source)!;
  expect(stored.map((row) => [row.cost_source, row.attempts]).sort()).toEqual([
    ['priced', 2],
    ['reported', 1],
    ['rule', 1],
  ]);

  await page.goto(`/steps/${agent}/chat_draft`);
  await expect(page.getByRole('heading', { name: `${agent} · chat_draft` })).toBeVisible();
  await expect(page.getByTestId('step-sources').getByTestId('source-badge-traces')).toBeVisible();

  const mix = page.getByTestId('cost-source-mix');
  await expect(mix.getByTestId('cost-source-priced').getByTestId('attempts')).toHaveText('2');
  await expect(mix.getByTestId('cost-source-priced').getByTestId('cost')).toHaveText(
    formatMicros(Number(of('priced').cost)),
  );
  await expect(mix.getByTestId('cost-source-priced').getByTestId('retry-cost')).toHaveText(
    formatMicros(Number(of('priced').retry)),
  );
  await expect(mix.getByTestId('cost-source-reported').getByTestId('cost')).toHaveText('$0.0020');
  await expect(mix.getByTestId('cost-source-rule').getByTestId('cost')).toHaveText('$0.00');
  await expect(mix.getByTestId('cost-source-none')).toHaveCount(0);
  const retrySpend = Number(of('priced').retry) + Number(of('reported').retry);
  await expect(mix.getByTestId('cost-source-total').getByTestId('retry-cost')).toContainText(formatMicros(retrySpend));
  const mark = mix.getByTestId('cost-source-total').getByTestId('estimate-mark');
  await expect(mark).toBeVisible();
  // A screen reader hears the mark once, with why: the visible word is hidden from it, the sentence is not shown.
  const heard = await mark.evaluate((element) =>
    [...element.querySelectorAll('*')]
      .filter((part) => !part.closest('[aria-hidden="true"]'))
      .map((part) => part.textContent)
      .join(''),
  );
  expect(heard).toMatch(/^estimate: Retry spend is an estimate: /);
  await expect(mix.getByTestId('retry-spend-estimate')).toContainText(
    `Retry spend is an estimate: ${formatMicros(Number(of('priced').retry))} of the ${formatMicros(retrySpend)}`,
  );
  await expect(page.getByTestId('chart-retry-spend')).toContainText('Retry spend per 15 minutes (estimate)');

  // Each failing attempt says where its cost came from.
  const failures = page.getByTestId('recent-failures');
  await expect(failures.locator('tbody tr')).toHaveCount(2);
  await expect(failures.getByTestId('cost-source')).toHaveText([' · priced', ' · rule']);

  const note = page.getByTestId('see-versus-control');
  await expect(note.getByRole('heading', { name: 'What you see vs what you control' })).toBeVisible();
  await expect(note).toContainText('docs/agents/step-protocol.md');
  await expect(note).toContainText('docs/agents/clients.md');
  // Its brakes and its policy say what they would need, instead of offering actions that would change nothing.
  await expect(page.getByTestId('step-pause-needs-protocol')).toContainText('a pause here would hold nothing');
  await expect(page.getByTestId('step-pauses').getByRole('button', { name: 'Pause…' })).toHaveCount(0);
  await expect(page.getByTestId('step-policy-needs-protocol')).toContainText('no policy here applies to it');
  await expect(page.getByTestId('step-policy-table')).toHaveCount(0);
  await expect(page.getByText('Simulate another policy…')).toHaveCount(0);
  await expectAccessible();

  // On a phone the mix keeps within the screen, its estimate mark included: the table needs no scrolling.
  await page.setViewportSize({ width: 390, height: 844 });
  const box = mix.getByRole('table').locator('..');
  await expect
    .poll(() => box.evaluate((element) => element.scrollWidth - element.clientWidth), { message: 'mix table overflow' })
    .toBe(0);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

  // The link to the step protocol's endpoints is reached from the keyboard.
  const protocol = note.getByRole('link', { name: 'its endpoints in the API reference' });
  await protocol.focus();
  await expect(protocol).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/settings\/api#beginStep$/);
  await expect(page.getByTestId('endpoint-beginStep')).toBeVisible();
});

test('a step reported in-process has no spans note and no estimate; its costs are reported', async ({
  page,
  recordAttempts,
}) => {
  const agent = `e2e-lib-${randomUUID().slice(0, 6)}`;
  const start = Date.now() - 30 * 60_000;
  const taskId = `task-${randomUUID().slice(0, 8)}`;
  // A timeout ($0.0015), then its retry ($0.0030): the timeout is the retry spend, as the retry did the work.
  await recordAttempts(
    [1, 2].map((attemptNumber) => ({
      taskId,
      agent,
      step: 'charge',
      attemptNumber,
      ...(attemptNumber === 1
        ? { outcome: 'failed' as const, errorClass: 'timeout' as const, errorText: 'no answer in 30 s' }
        : { outcome: 'succeeded' as const }),
      costMicros: 1_500 * attemptNumber,
      startedAt: new Date(start + attemptNumber * 1_000),
      finishedAt: new Date(start + attemptNumber * 1_000 + 200),
    })),
  );

  await page.goto(`/steps/${agent}/charge`);
  await expect(page.getByTestId('step-sources').getByTestId('source-badge-library')).toBeVisible();
  await expect(page.getByTestId('see-versus-control')).toHaveCount(0);
  // The page leads with the window's figures, as the Steps list counts them.
  const headline = page.getByTestId('step-headline');
  await expect(headline.getByTestId('step-headline-attempts').getByTestId('value')).toHaveText('2');
  await expect(headline.getByTestId('step-headline-retries').getByTestId('value')).toHaveText('1');
  await expect(headline.getByTestId('step-headline-retryRate').getByTestId('value')).toHaveText('50.0%');
  await expect(headline.getByTestId('step-headline-totalSpendMicros').getByTestId('value')).toHaveText('$0.0045');
  await expect(headline.getByTestId('step-headline-retrySpendMicros').getByTestId('value')).toHaveText('$0.0015');
  await expect(headline.getByTestId('step-headline-failedSpendMicros').getByTestId('value')).toHaveText('$0.0015');
  await expect(headline).toContainText('The window before had no attempts');
  // A step run through the library can be paused and its policy changed from here.
  await expect(page.getByTestId('step-pauses').getByRole('button', { name: 'Pause…' })).toBeVisible();
  await expect(page.getByTestId('step-policy-table')).toBeVisible();
  const reported = page.getByTestId('cost-source-reported');
  await expect(reported.getByTestId('attempts')).toHaveText('2');
  await expect(reported.getByTestId('cost')).toHaveText('$0.0045');
  await expect(reported.getByTestId('retry-cost')).toHaveText('$0.0015');
  await expect(page.getByTestId('estimate-mark')).toHaveCount(0);
  await expect(page.getByTestId('retry-spend-estimate')).toHaveCount(0);
  await expect(page.getByTestId('chart-retry-spend')).not.toContainText('estimate');

  // A window with none of its attempts says so rather than showing an empty table.
  const minute = (msAgo: number) => new Date(Date.now() - msAgo).toISOString().slice(0, 16);
  await page.goto(`/steps/${agent}/charge?window=custom&from=${minute(2 * 86_400_000)}&to=${minute(86_400_000)}`);
  await expect(page.getByTestId('cost-source-empty')).toBeVisible();
  await expect(page.getByTestId('cost-source-mix').getByRole('table')).toHaveCount(0);
});
