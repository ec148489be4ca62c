import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useApi } from '../../support/api-harness';
import { exportOfRecording } from '../../support/recorded-spans';

/**
 * The compatibility table of docs/agents/emitters/README.md, measured: each emitter's recorded scenarios
 * (tests/fixtures/otel-emitters, spans real instrumentations emitted against a fake provider that logged every
 * request) exported to the receiver, and what Holdfast recorded read back. The docs carry the table this test
 * renders, between its markers; when a change moves a cell, the test fails and prints the table as measured.
 */
const api = useApi();
const DOCS = path.join(import.meta.dirname, '../../../docs/agents/emitters/README.md');
const START = '<!-- compatibility table: measured by tests/integration/traces/emitter-compatibility.test.ts -->';
const END = '<!-- end of the compatibility table -->';

const EMITTERS = [
  { emitter: 'otel-instrumentation-openai', label: 'official `instrumentation-openai` 0.21' },
  { emitter: 'otel-instrumentation-openai+undici', label: 'official, with `instrumentation-undici`' },
  { emitter: 'traceloop-instrumentation-openai', label: 'OpenLLMetry `@traceloop/instrumentation-openai` 0.27' },
  { emitter: 'traceloop-instrumentation-openai+undici', label: 'OpenLLMetry, with `instrumentation-undici`' },
  { emitter: 'openinference-instrumentation-openai', label: 'OpenInference `instrumentation-openai` 4.2' },
  { emitter: 'ai-sdk-6', label: 'AI SDK 6 (`experimental_telemetry`)' },
  { emitter: 'ai-sdk-6+undici', label: 'AI SDK 6, with `instrumentation-undici`' },
  { emitter: 'ai-sdk-7-otel', label: 'AI SDK 7 (`@ai-sdk/otel`)' },
  { emitter: 'ai-sdk-7-otel+undici', label: 'AI SDK 7, with `instrumentation-undici`' },
];

interface Stored {
  attempts: {
    execution: string;
    attempt_number: number;
    outcome: string;
    error_class: string | null;
    cost_source: string | null;
    cost_micros: number;
  }[];
  runs: number;
}

async function exported(emitter: string, scenario: string): Promise<Stored | undefined> {
  if (!fs.existsSync(path.join(import.meta.dirname, '../../fixtures/otel-emitters', emitter, `${scenario}.json`)))
    return undefined;
  const agent = `compat-${randomUUID().slice(0, 8)}`;
  const answer = await api.request('/v1/traces', { body: exportOfRecording(emitter, scenario, agent) });
  expect(answer).toMatchObject({ status: 200, body: {} });
  const attempts = await api.database.sql<Stored['attempts']>`
    select task_id || '/' || step || '/' || iteration as execution, attempt_number, outcome, error_class, cost_source,
      cost_micros::int as cost_micros
    from attempts where agent = ${agent}
    order by started_at, attempt_number`;
  const [runs] = await api.database.sql<{ n: number }[]>`
    select count(*)::int as n from agent_runs r
    where r.started_at > now() - interval '10 minutes' and r.trace_id in (
      select distinct t.trace_id from trace_spans t where t.agent = ${agent})`;
  return { attempts: [...attempts], runs: runs!.n };
}

const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

/** One emitter's row: each cell what Holdfast recorded of one scenario, the provider's truth beside it. */
async function rowOf(emitter: string): Promise<string[]> {
  // 429, 500, 200: three requests, one call.
  const retried = (await exported(emitter, 'a-retry-429-500-200'))!;
  const retries =
    retried.attempts.length === 3
      ? `3 of 3 (${retried.attempts.map((a) => a.error_class ?? 'ok').join(', ')})`
      : `${retried.attempts.length} of 3: the client's retries unseen`;
  // 500 three times: a call failing for good.
  const failing = (await exported(emitter, 'b-fail-500-always'))!;
  const failed = failing.attempts.filter((a) => a.outcome === 'failed');
  const failure =
    failing.attempts.length === 0
      ? 'no span: not seen'
      : `${count(failed.length, 'failed attempt')} (${[...new Set(failed.map((a) => a.error_class))].join(', ')})`;
  // Two different calls under one parent: two first attempts, never a retry.
  const distinct = (await exported(emitter, 'e-two-distinct-calls-one-parent'))!;
  const executions = new Set(distinct.attempts.map((a) => a.execution)).size;
  const retriesOfTwo = distinct.attempts.filter((a) => a.attempt_number > 1).length;
  const twoCalls = `${count(executions, 'call')}, ${count(retriesOfTwo, 'retry')}`.replace('retrys', 'retries');
  // 10,000 input tokens of which 4,000 cached: priced at the cache price only if the span says so.
  const cached = (await exported(emitter, 'c-cached'))!;
  const plain = (await exported(emitter, 'd-stream-usage'))!;
  const cachedCost = cached.attempts.at(-1)?.cost_micros ?? 0;
  // The retried call's success used the same 10,000 / 2,000 tokens with nothing cached: a lower cost for the cached
  // call means its cache reads were in the span and priced at the cache price.
  const uncachedCost = retried.attempts.at(-1)?.cost_micros ?? 0;
  const cacheReads = cachedCost > 0 && cachedCost < uncachedCost ? 'priced at the cache price' : 'not in the spans';
  const stream =
    plain.attempts.at(-1)?.cost_source === 'priced' ? "priced from the provider's usage" : 'no usage in the span';
  return [retries, failure, twoCalls, cacheReads, stream, String(retried.runs + failing.runs + distinct.runs)];
}

const HEADER = [
  'emitter',
  '429, 500, 200 (attempts of 3 requests)',
  'a call failing for good (500 ×3)',
  'two calls under one parent',
  'cache reads',
  'a stream',
  'runs kept (of a, b, e)',
];

/** A markdown table's cells, row by row, without its separator row. */
function cellsOf(table: string): string[][] {
  return table
    .split('\n')
    .map((line) =>
      line
        .trim()
        .replace(/^\|/, '')
        .replace(/\|$/, '')
        .split('|')
        .map((cell) => cell.trim()),
    )
    .filter((cells) => !cells.every((cell) => /^:?-+:?$/.test(cell)));
}

function renderTable(rows: string[][]): string {
  const lines = [HEADER, HEADER.map(() => '---'), ...rows].map((cells) => `| ${cells.join(' | ')} |`);
  return lines.join('\n');
}

describe('the emitters compatibility table is what the recorded spans give', () => {
  it('measures every emitter and matches the table in the docs', async () => {
    const rows: string[][] = [];
    for (const { emitter, label } of EMITTERS) rows.push([label, ...(await rowOf(emitter))]);
    const measured = renderTable(rows);
    const docs = fs.readFileSync(DOCS, 'utf8');
    const table = docs.slice(docs.indexOf(START) + START.length, docs.indexOf(END)).trim();
    expect(docs.includes(START) && docs.includes(END), 'the docs carry the table between its markers').toBe(true);
    // Cell by cell: the docs' formatter pads the columns.
    expect(cellsOf(table), `docs/agents/emitters/README.md should carry the table as measured:\n${measured}\n`).toEqual(
      cellsOf(measured),
    );
  });
});
