import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Actor, createApiToken, saveSpendBudget } from '../../../packages/engine/src/core';
import { readMetrics } from '../../../packages/engine/src/metrics/read-metrics';
import { useApi } from '../../support/api-harness';
import { otlpJsonExport, otlpJsonSpan } from '../../support/otlp-json';
import { exportOfRecording } from '../../support/recorded-spans';

/**
 * Nothing accepted is dropped in silence: every span a batch carried is counted, per service, under what became
 * of it (a call, an HTTP try, a run, a run's step, refused, an operation not counted, a call-like span no
 * convention reads, anything else), with a sample of each ignored shape; and agents' runs are kept as runs.
 */
const api = useApi();
const FIXTURES = path.join(import.meta.dirname, '../../fixtures/otel-emitters');
let limitedToken = '';

beforeAll(async () => {
  const admin: Actor = { type: 'person', id: 'ada@example.com', role: 'admin', teams: [] };
  limitedToken = (
    await createApiToken(
      { db: api.database.db, actor: admin },
      { name: 'one agent', scopes: ['traces'], allowedAgents: ['allowed-agent'] },
    )
  ).token;
});

async function countsOf(service: string) {
  const rows = await api.database.sql<{ outcome: string; spans: number }[]>`
    select outcome, sum(spans)::int as spans from span_ingest_hours where service = ${service} group by outcome`;
  return Object.fromEntries(rows.map((row) => [row.outcome, row.spans]));
}

function recordedSpans(emitter: string, scenario: string): { name: string; spanId: string }[] {
  const recorded = JSON.parse(fs.readFileSync(path.join(FIXTURES, emitter, `${scenario}.json`), 'utf8')) as {
    spans: { name: string; spanId: string }[];
  };
  return recorded.spans;
}

const recorded = fs
  .readdirSync(FIXTURES, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && entry.name !== 'recorder')
  .flatMap((emitter) =>
    fs
      .readdirSync(path.join(FIXTURES, emitter.name))
      .filter((file) => file.endsWith('.json'))
      .map((file) => ({ emitter: emitter.name, scenario: file.replace(/\.json$/, '') })),
  );

describe('the spans of every recorded emitter are all counted, and their runs kept as runs', () => {
  it.each(recorded)('$emitter: $scenario', async ({ emitter, scenario }) => {
    const service = `ingest-${randomUUID().slice(0, 8)}`;
    const spans = recordedSpans(emitter, scenario);
    const names = spans.map((span) => span.name);
    const answer = await api.request('/v1/traces', { body: exportOfRecording(emitter, scenario, service) });
    expect(answer).toMatchObject({ status: 200, body: {} });
    const counts = await countsOf(service);
    // Every span sent is counted once, and none of these emitters writes a call Holdfast cannot read.
    expect(Object.values(counts).reduce((sum, spans) => sum + spans, 0)).toBe(names.length);
    expect(counts.ignored_unrecognised ?? 0).toBe(0);
    expect(counts.ignored_operation ?? 0).toBe(0);
    expect(counts.rejected ?? 0).toBe(0);
    // Runs by their names as the emitters write them: the AI SDK 7's invoke_agent, the AI SDK 6's generateText
    // and streamText; the AI SDK 7's step spans are parts of a run. The scripted parent (agent.run) is no call.
    const named = (test: (name: string) => boolean) => names.filter(test).length;
    const runs = named(
      (name) => name.startsWith('invoke_agent') || name === 'ai.generateText' || name === 'ai.streamText',
    );
    expect(counts.run ?? 0).toBe(runs);
    expect(counts.run_part ?? 0).toBe(named((name) => /^step \d+$/.test(name)));
    // Stored as runs (of the agent the spans name: the service, or the AI SDK 7's gen_ai.agent.name), no step.
    const runIds = spans
      .filter((recordedSpan) => recordedSpan.name.startsWith('invoke_agent') || recordedSpan.name.startsWith('ai.'))
      .map((recordedSpan) => recordedSpan.spanId);
    const [stored] = await api.database.sql<{ runs: number; steps: number }[]>`
      select (select count(*)::int from agent_runs where span_id = any(${runIds})
          and started_at > now() - interval '10 minutes') as runs,
        (select count(*)::int from attempts where agent = ${service} and (step like 'invoke_agent%' or step in ('ai.generateText', 'ai.streamText'))) as steps`;
    expect(stored).toEqual({ runs, steps: 0 });
  });
});

const span = otlpJsonSpan;
const exportOf = otlpJsonExport;

describe('what is not counted is counted and shown', () => {
  it('an operation not counted, a call-like span no convention reads, and the rest: counted, each with a sample', async () => {
    const service = `shapes-${randomUUID().slice(0, 8)}`;
    const answer = await api.request('/v1/traces', {
      body: exportOf(service, [
        span('create_agent support', { 'gen_ai.operation.name': 'create_agent', 'gen_ai.agent.name': 'support' }),
        span('LangGraph node', { 'llm.request.type': 'chat', 'traceloop.entity.name': 'node' }),
        span('GET /health', { 'http.request.method': 'GET' }),
        span('chat gpt-4o', { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o' }),
      ]),
    });
    expect(answer).toMatchObject({ status: 200, body: {} });
    expect(await countsOf(service)).toEqual({ ignored_operation: 1, ignored_unrecognised: 1, other: 1, call: 1 });
    const samples = await api.database.sql<{ outcome: string; sample: object }[]>`
      select outcome, sample from span_ingest_hours where service = ${service} and sample is not null order by outcome`;
    expect(samples).toEqual([
      {
        outcome: 'ignored_operation',
        sample: {
          name: 'create_agent support',
          operation: 'create_agent',
          keys: ['gen_ai.agent.name', 'gen_ai.operation.name'],
        },
      },
      {
        outcome: 'ignored_unrecognised',
        sample: { name: 'LangGraph node', keys: ['llm.request.type', 'traceloop.entity.name'] },
      },
    ]);
    // The same counts at /metrics, as counters per service and outcome.
    const metrics = await readMetrics(api.database.db, new Date());
    const ofService = metrics.holdfast_trace_spans_total.filter((sample) => sample.labels.service === service);
    expect(Object.fromEntries(ofService.map((sample) => [sample.labels.outcome, sample.value]))).toEqual({
      call: 1,
      ignored_operation: 1,
      ignored_unrecognised: 1,
      other: 1,
    });
  });

  it('a run for an agent the token may not act for is refused, counted as refused, and not stored', async () => {
    const service = `limited-${randomUUID().slice(0, 8)}`;
    const run = span('invoke_agent other', {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'other-agent',
    });
    const answer = await api.request('/v1/traces', { token: limitedToken, body: exportOf(service, [run]) });
    expect(answer).toMatchObject({ status: 200, body: { partialSuccess: { rejectedSpans: '1' } } });
    expect(await countsOf(service)).toEqual({ rejected: 1 });
    const [stored] = await api.database.sql<{ runs: number }[]>`
      select count(*)::int as runs from agent_runs where agent = 'other-agent'`;
    expect(stored!.runs).toBe(0);
  });

  it('a run sent twice is one run; a failed run keeps its error, and states no step, cost or class', async () => {
    const service = `runs-${randomUUID().slice(0, 8)}`;
    const failed = span(
      'invoke_agent billing',
      { 'gen_ai.operation.name': 'invoke_agent' },
      { status: { code: 2, message: 'the model call failed: 503' } },
    );
    for (let delivery = 0; delivery < 2; delivery += 1)
      expect(await api.request('/v1/traces', { body: exportOf(service, [failed]) })).toMatchObject({ status: 200 });
    const runs = await api.database.sql<{ name: string; outcome: string; error_text: string }[]>`
      select name, outcome, error_text from agent_runs where agent = ${service}`;
    expect(runs).toEqual([
      { name: 'invoke_agent_billing', outcome: 'failed', error_text: 'the model call failed: 503' },
    ]);
    // Counted per delivery: the page says so.
    expect(await countsOf(service)).toEqual({ run: 2 });
    const [attempts] = await api.database.sql<
      { n: number }[]
    >`select count(*)::int as n from attempts where agent = ${service}`;
    expect(attempts!.n).toBe(0);
  });
});

describe('spend read from spans', () => {
  it('counts under the spend budgets covering it, as seen: never refused, once per span', async () => {
    const service = `budgeted-${randomUUID().slice(0, 8)}`;
    const admin: Actor = { type: 'person', id: 'ada@example.com', role: 'admin', teams: [] };
    await saveSpendBudget(
      { db: api.database.db, actor: admin },
      { name: service, scope: 'agent', scopeValue: service, period: 'month', limitUsd: 0.001, reason: 'test' },
    );
    const call = span('chat gpt-4o', {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.usage.cost.amount': '0.0025',
    });
    for (const _send of [1, 2]) {
      expect(await api.request('/v1/traces', { body: exportOf(service, [call]) })).toMatchObject({ status: 200 });
    }
    const [usage] = await api.database.sql<{ spent: number; seen: number }[]>`
      select sum(u.spent_micros)::int as spent, sum(u.seen_micros)::int as seen
      from spend_budget_usage u join spend_budgets b on b.id = u.budget_id where b.name = ${service}`;
    expect(usage).toEqual({ spent: 2_500, seen: 2_500 });
  });

  it("counts a model's calls under its budget as each real instrumentation names the model", async () => {
    const admin: Actor = { type: 'person', id: 'ada@example.com', role: 'admin', teams: [] };
    const name = `gpt-4o-mini ${randomUUID().slice(0, 8)}`;
    await saveSpendBudget(
      { db: api.database.db, actor: admin },
      { name, scope: 'model', scopeValue: 'gpt-4o-mini', period: 'month', limitUsd: 1, reason: 'test' },
    );
    // The OpenAI instrumentations and the AI SDK name the model asked for; OpenInference only the dated snapshot
    // that answered (gpt-4o-mini-2024-07-18), which counts under its model.
    const emitters = [
      'otel-instrumentation-openai',
      'traceloop-instrumentation-openai',
      'openinference-instrumentation-openai',
      'ai-sdk-6',
    ];
    for (const emitter of emitters) {
      const service = `modelled-${randomUUID().slice(0, 8)}`;
      const body = exportOfRecording(emitter, 'e-two-distinct-calls-one-parent', service);
      expect(await api.request('/v1/traces', { body })).toMatchObject({ status: 200 });
      const attempts = await api.database.sql<{ model: string | null; cost: number }[]>`
        select model, cost_micros::int as cost from attempts where agent = ${service}`;
      expect(attempts.map((attempt) => attempt.model)).toEqual(['gpt-4o-mini', 'gpt-4o-mini']);
      expect(attempts.every((attempt) => attempt.cost > 0)).toBe(true);
    }
    // The budget's spend is the attempt log's, recounted by model: all of it seen.
    const [usage] = await api.database.sql<{ spent: number; seen: number; recount: number }[]>`
      select sum(u.spent_micros)::int as spent, sum(u.seen_micros)::int as seen,
        (select sum(a.cost_micros)::int from attempts a
          where a.model = 'gpt-4o-mini' and a.started_at >= min(u.period_start) and a.outcome <> 'running') as recount
      from spend_budget_usage u join spend_budgets b on b.id = u.budget_id where b.name = ${name}`;
    expect(usage!.spent).toBeGreaterThan(0);
    expect(usage).toEqual({ spent: usage!.recount, seen: usage!.recount, recount: usage!.recount });
  });
});
