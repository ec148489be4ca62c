import { randomUUID } from 'node:crypto';
import { readJsonRequest } from '../../packages/engine/src/traces/otlp-request';
import { ingestSpans } from '../../packages/engine/src/traces/ingest-spans';
import { DEFAULT_SPAN_MAPPING_RULES } from '../../packages/engine/src/traces/mapping-rules';
import { otlpJsonExport, otlpJsonSpan } from '../../tests/support/otlp-json';
import { expect, test } from '../support/fixtures';
import { expectNoSidewaysScroll } from '../support/page-width';

const span = (name: string, attributes: Record<string, string>, extra: object = {}) =>
  otlpJsonSpan(name, attributes, extra, 1_500);
const exportOf = (service: string, spans: object[]) => JSON.stringify(otlpJsonExport(service, spans));

test('the Ingest page says what became of each service’s spans, with samples of what was ignored, and lists runs', async ({
  page,
  database,
  expectAccessible,
}) => {
  const service = `e2e-ingest-${randomUUID().slice(0, 8)}`;
  const silent = `e2e-unread-${randomUUID().slice(0, 8)}`;
  const longError = `the model call failed: ${'x'.repeat(10_000)}`;
  const store = async (json: string) =>
    ingestSpans({ db: database.db }, (await readJsonRequest(json)).spans, DEFAULT_SPAN_MAPPING_RULES);
  await store(
    exportOf(service, [
      span('chat gpt-4o', { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o' }),
      span(
        'invoke_agent support',
        { 'gen_ai.operation.name': 'invoke_agent' },
        { status: { code: 2, message: longError } },
      ),
      span('create_agent support', { 'gen_ai.operation.name': 'create_agent' }),
      span('GET /health', { 'http.request.method': 'GET' }),
    ]),
  );
  // A service whose spans look like calls Holdfast does not read: nothing of it is counted, and the page says so.
  await store(
    exportOf(silent, [span('LangGraph node', { 'llm.request.type': 'chat', 'traceloop.entity.name': 'plan' })]),
  );

  await page.goto('/ingest?window=1h');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Ingest');
  const row = page.getByTestId('ingest-service').filter({ hasText: service });
  await expect(row.getByRole('cell')).toHaveText([service, '4', '1', '0', '1', '0', '0', '1', '0', '1', /.+/]);
  const unread = page.getByTestId('ingest-service').filter({ hasText: silent });
  await expect(unread).toBeVisible();
  await expect(page.getByTestId('ingest-nothing-counted')).toContainText(
    'Its spans look like calls Holdfast does not read yet',
  );
  await expect(page.getByTestId('ingest-sample').filter({ hasText: 'LangGraph node' })).toContainText(
    'llm.request.type, traceloop.entity.name',
  );
  await expect(page.getByTestId('ingest-sample').filter({ hasText: 'create_agent support' })).toContainText(
    'operation create_agent',
  );
  const runs = page.getByTestId('runs-table').getByRole('row').filter({ hasText: service });
  await expect(runs.getByRole('cell').nth(1)).toHaveText('1');
  await expect(runs.getByRole('cell').nth(2)).toHaveText('1');
  await expect(runs).toContainText('the model call failed');
  await expectAccessible();

  // The long error stays in its cell: the page does not scroll sideways at either size.
  await expectNoSidewaysScroll(page, 'ingest');
});
