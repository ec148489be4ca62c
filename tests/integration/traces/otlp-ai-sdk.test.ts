import { OpenTelemetry } from '@ai-sdk/otel';
import { SpanStatusCode } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { type ReadableSpan, SimpleSpanProcessor, type SpanExporter, TracerProvider } from '@opentelemetry/sdk-trace';
import { APICallError, generateText, RetryError, registerTelemetry, ToolLoopAgent, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createApiToken } from '../../../packages/engine/src/core';
import { priceCall } from '../../../packages/engine/src/core/pricing/price-call';
import { startServerOn, type HoldfastServer } from '../../support/holdfast-server';
import { useTestDatabase } from '../../support/test-database';
import { admin } from '../../support/actors';

/**
 * The Vercel AI SDK 7 exporting to a running Holdfast (the production server): its spans come
 * through `@ai-sdk/otel` (`registerTelemetry(new OpenTelemetry(...))`), the model is the SDK's own
 * mock (`MockLanguageModelV4`, no network), the exporter the official OTLP/HTTP protobuf one.
 *
 * What the SDK emits for an agent run (generateText or ToolLoopAgent): `invoke_agent <model>` (the
 * run), under it `step N` (gen_ai.operation.name `agent_step`, not counted), under each step one
 * `chat <model>` and one `execute_tool <tool>` per tool call the agent executes. Its retries
 * (`maxRetries`) happen inside one `chat` span: no span per attempt.
 */
const database = useTestDatabase();
/** The agent's name twice, as an AI SDK user names it: the resource's service.name and the call's functionId. */
const AGENT = 'ai-sdk-support';
const MODEL = 'gpt-4o';
let server: HoldfastServer;
let provider: TracerProvider;
let exported: RecordingExporter;

/** The protobuf exporter, keeping every span it was given and every export that did not succeed. */
class RecordingExporter implements SpanExporter {
  readonly spans: ReadableSpan[] = [];
  readonly failures: unknown[] = [];
  constructor(private readonly inner: SpanExporter) {}
  export(spans: ReadableSpan[], done: Parameters<SpanExporter['export']>[1]): void {
    this.spans.push(...spans);
    this.inner.export(spans, (result) => {
      if (result.code !== 0) this.failures.push(result.error ?? result);
      done(result);
    });
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

beforeAll(async () => {
  const { token } = await createApiToken(
    { db: database.db, actor: admin },
    { name: 'ai sdk exporter', scopes: ['traces'] },
  );
  server = await startServerOn(database);
  exported = new RecordingExporter(
    // A long timeout: on a loaded machine a slow answer must not count as a failed export.
    new OTLPTraceExporter({
      url: `${server.baseUrl}/v1/traces`,
      headers: { authorization: `Bearer ${token}` },
      timeoutMillis: 60_000,
    }),
  );
  provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': AGENT }),
    spanProcessors: [new SimpleSpanProcessor({ exporter: exported })],
  });
  // The tracer is given, not taken from the global provider: nothing else in this process sees these spans.
  registerTelemetry(new OpenTelemetry({ tracer: provider.getTracer('ai-sdk-test') }));
}, 300_000);

afterAll(async () => {
  await provider?.shutdown();
  await server?.stop();
});

type Usage = { input: number; output: number; cacheRead?: number };
/** A model answer as a provider adapter returns it (LanguageModelV4 usage: input totals include cached tokens). */
function usageOf({ input, output, cacheRead = 0 }: Usage) {
  return {
    inputTokens: { total: input, noCache: input - cacheRead, cacheRead, cacheWrite: 0 },
    outputTokens: { total: output, text: output, reasoning: 0 },
  };
}

/** A 503 the SDK retries (APICallError with isRetryable), asking for `retryAfterMs` of backoff. */
function unavailable(retryAfterMs: number) {
  return new APICallError({
    message: 'Service Unavailable',
    url: 'http://127.0.0.1:9/v1/responses',
    requestBodyValues: {},
    statusCode: 503,
    isRetryable: true,
    responseHeaders: { 'retry-after-ms': String(retryAfterMs) },
  });
}

/** The spans the SDK exported since `from` (a count of exported spans): waits for the exports to finish first. */
async function spansSince(from: number) {
  await provider.forceFlush();
  expect(exported.failures).toEqual([]);
  const spans = exported.spans.slice(from);
  // One run, one trace.
  expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1);
  return spans;
}

const startMs = (span: ReadableSpan) => span.startTime[0] * 1_000 + Math.floor(span.startTime[1] / 1_000_000);

/** The attempts the receiver made of one trace's spans, each with the span it came from. */
/** The agent runs stored from a trace (agent_runs). */
function runsOfTrace(traceId: string) {
  return database.sql<
    { agent: string; name: string; convention: string; outcome: string; error_text: string | null }[]
  >`
    select agent, name, convention, outcome, error_text from agent_runs where trace_id = ${traceId}`;
}

async function attemptsOfTrace(spans: ReadableSpan[]) {
  const traceId = spans[0]!.spanContext().traceId;
  const rows = await database.sql<
    {
      idempotency_key: string;
      task_id: string;
      agent: string;
      step: string;
      attempt_number: number;
      outcome: string;
      error_class: string | null;
      error_text: string | null;
      latency_ms: number | null;
      cost_micros: string;
      cost_source: string | null;
      source: string | null;
    }[]
  >`select idempotency_key, task_id, agent, step, attempt_number, outcome, error_class, error_text, latency_ms,
      cost_micros, cost_source, source from attempts where idempotency_key like ${`span:${traceId}/%`}`;
  return rows.map((row) => {
    const span = spans.find((candidate) => row.idempotency_key === `span:${traceId}/${candidate.spanContext().spanId}`);
    return { ...row, span: span?.name, spanId: span?.spanContext().spanId, costMicros: Number(row.cost_micros) };
  });
}

/** The cost packages/engine/src/core/pricing/price-call.ts gives a chat span's tokens, at the span's start. */
function expectedCost(span: ReadableSpan, usage: Usage) {
  return priceCall({
    usage: { inputTokens: usage.input, outputTokens: usage.output, cacheReadInputTokens: usage.cacheRead ?? 0 },
    model: MODEL,
    provider: 'openai',
    at: new Date(startMs(span)),
  });
}

describe('the Vercel AI SDK 7 exporting to Holdfast', () => {
  it("turns an agent run's invoke_agent, chat and execute_tool spans into attempts; a call retried inside the SDK is one attempt", async () => {
    const firstAnswer = usageOf({ input: 1_000, output: 50 });
    const secondAnswer = usageOf({ input: 1_500, output: 120, cacheRead: 1_024 });
    // Step 1: a 503 the SDK retries after 250 ms, then a tool call; step 2: the answer, its prompt mostly cached.
    const script = [
      async () => {
        throw unavailable(250);
      },
      async () => ({
        content: [
          { type: 'tool-call' as const, toolCallId: 'call_1', toolName: 'lookup_order', input: '{"orderId":42}' },
        ],
        finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
        usage: firstAnswer,
        warnings: [],
      }),
      async () => ({
        content: [{ type: 'text' as const, text: 'Order 42 ships today.' }],
        finishReason: { unified: 'stop' as const, raw: 'stop' },
        usage: secondAnswer,
        warnings: [],
      }),
    ];
    const model = new MockLanguageModelV4({
      provider: 'openai.responses',
      modelId: MODEL,
      doGenerate: () => script[model.doGenerateCalls.length - 1]!(),
    });
    const lookups: number[] = [];
    const agent = new ToolLoopAgent({
      model,
      instructions: 'You answer questions about orders.',
      maxRetries: 2,
      telemetry: { functionId: AGENT },
      tools: {
        lookup_order: tool({
          description: 'Look an order up',
          inputSchema: z.object({ orderId: z.number() }),
          execute: async ({ orderId }) => {
            lookups.push(orderId);
            return { orderId, status: 'shipped' };
          },
        }),
      },
    });

    const before = exported.spans.length;
    const result = await agent.generate({ prompt: 'Where is order 42?' });
    expect(result.text).toBe('Order 42 ships today.');
    expect(model.doGenerateCalls).toHaveLength(3); // the failed call, its retry, the second step
    expect(lookups).toEqual([42]);

    const spans = await spansSince(before);
    const byName = (name: string) => spans.filter((span) => span.name === name);
    // The SDK's spans: three model calls, two chat spans. No span failed: the 503 left no trace.
    expect(spans.map((span) => span.name).sort()).toEqual([
      `chat ${MODEL}`,
      `chat ${MODEL}`,
      'execute_tool lookup_order',
      `invoke_agent ${MODEL}`,
      'step 1',
      'step 2',
    ]);
    expect(spans.filter((span) => span.status.code === SpanStatusCode.ERROR)).toEqual([]);
    const root = byName(`invoke_agent ${MODEL}`)[0]!;
    expect(root.parentSpanContext).toBeUndefined();
    const [step1, step2] = [byName('step 1')[0]!, byName('step 2')[0]!];
    const chatIn = (step: ReadableSpan) =>
      byName(`chat ${MODEL}`).find((span) => span.parentSpanContext?.spanId === step.spanContext().spanId)!;
    const [chat1, chat2] = [chatIn(step1), chatIn(step2)];
    const toolSpan = byName('execute_tool lookup_order')[0]!;
    expect(toolSpan.parentSpanContext?.spanId).toBe(step1.spanContext().spanId);
    expect(chat1.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': MODEL,
      'gen_ai.response.model': MODEL,
      'gen_ai.usage.input_tokens': 1_000,
      'gen_ai.usage.output_tokens': 50,
    });
    expect(chat2.attributes).toMatchObject({
      'gen_ai.usage.input_tokens': 1_500,
      'gen_ai.usage.cache_read.input_tokens': 1_024,
      'gen_ai.usage.output_tokens': 120,
    });

    const traceId = root.spanContext().traceId;
    const rows = await attemptsOfTrace(spans);
    // Every call is one attempt; the step spans (agent_step) are not counted, and the run is a run.
    expect(rows.map((row) => row.source)).toEqual(['traces', 'traces', 'traces']);
    expect(rows.map((row) => row.span).sort()).toEqual([`chat ${MODEL}`, `chat ${MODEL}`, 'execute_tool lookup_order']);
    const rowOf = (span: ReadableSpan) => rows.find((row) => row.spanId === span.spanContext().spanId)!;
    const summary = (span: ReadableSpan) => {
      const row = rowOf(span);
      return {
        agent: row.agent,
        step: row.step,
        task: row.task_id,
        attempt: row.attempt_number,
        outcome: row.outcome,
        errorClass: row.error_class,
        cost: { costMicros: row.costMicros, source: row.cost_source },
      };
    };
    const step1Task = `${traceId}/${step1.spanContext().spanId}`;
    const succeeded = { agent: AGENT, attempt: 1, outcome: 'succeeded', errorClass: null };
    // Each step's model call is a task of its own (its parent is the step span), so the two calls are not
    // numbered as retries of each other; the tool call is a task under its step, named by its call id.
    expect(summary(chat1)).toEqual({
      ...succeeded,
      step: 'chat_gpt-4o',
      task: step1Task,
      cost: expectedCost(chat1, { input: 1_000, output: 50 }),
    });
    expect(summary(chat2)).toEqual({
      ...succeeded,
      step: 'chat_gpt-4o',
      task: `${traceId}/${step2.spanContext().spanId}`,
      cost: expectedCost(chat2, { input: 1_500, output: 120, cacheRead: 1_024 }),
    });
    expect(summary(toolSpan)).toEqual({
      ...succeeded,
      step: 'lookup_order',
      task: `${step1Task}/call_1`,
      cost: { costMicros: 0, source: 'none' },
    });
    // The run's own span states the run's token totals (the sum of its chat spans'), which are priced on the
    // chat spans: the run is a run of its agent, no step and no cost, so the trace's spend is counted once.
    expect(root.attributes['gen_ai.usage.input_tokens']).toBe(2_500);
    expect(await runsOfTrace(traceId)).toEqual([
      { agent: AGENT, name: 'invoke_agent_gpt-4o', convention: 'invoke_agent', outcome: 'succeeded', error_text: null },
    ]);
    const traceSpend = rows.reduce((sum, row) => sum + row.costMicros, 0);
    expect(traceSpend).toBe(
      expectedCost(chat1, { input: 1_000, output: 50 }).costMicros +
        expectedCost(chat2, { input: 1_500, output: 120, cacheRead: 1_024 }).costMicros,
    );
    // Priced from the table, and cached input priced below fresh input.
    expect(expectedCost(chat1, { input: 1_000, output: 50 }).source).toBe('priced');
    expect(expectedCost(chat2, { input: 1_500, output: 120, cacheRead: 1_024 }).costMicros).toBeLessThan(
      expectedCost(chat2, { input: 1_500, output: 120 }).costMicros,
    );
    // What Holdfast sees of the SDK's retry: the call is one succeeded attempt whose latency holds the 250 ms
    // backoff (a timer may fire a little early, hence 200).
    expect(rowOf(chat1).latency_ms).toBeGreaterThanOrEqual(200);
  });

  it('records a call whose retries all failed as one failed attempt; the count is only in the error text', async () => {
    const model = new MockLanguageModelV4({
      provider: 'openai.responses',
      modelId: MODEL,
      doGenerate: async () => {
        throw unavailable(10);
      },
    });
    const before = exported.spans.length;
    const failure = await generateText({
      model,
      prompt: 'Where is order 43?',
      maxRetries: 1,
      telemetry: { functionId: AGENT },
    }).catch((error: unknown) => error);
    expect(RetryError.isInstance(failure)).toBe(true);
    expect(model.doGenerateCalls).toHaveLength(2);

    const spans = await spansSince(before);
    expect(spans.map((span) => span.name).sort()).toEqual([`chat ${MODEL}`, `invoke_agent ${MODEL}`, 'step 1']);
    const chat = spans.find((span) => span.name === `chat ${MODEL}`)!;
    // The SDK states the last error's HTTP status and the RetryError's message on the one span.
    const message = 'Failed after 2 attempts. Last error: AI_APICallError: Service Unavailable';
    expect(chat.attributes['http.response.status_code']).toBe(503);
    expect(chat.status).toEqual({ code: SpanStatusCode.ERROR, message });

    const rows = await attemptsOfTrace(spans);
    expect(rows.map((row) => row.span).sort()).toEqual([`chat ${MODEL}`]);
    const chatRow = rows.find((row) => row.spanId === chat.spanContext().spanId)!;
    expect({
      agent: chatRow.agent,
      step: chatRow.step,
      attempt: chatRow.attempt_number,
      outcome: chatRow.outcome,
      errorClass: chatRow.error_class,
      errorText: chatRow.error_text,
      cost: { costMicros: chatRow.costMicros, source: chatRow.cost_source },
    }).toEqual({
      agent: AGENT,
      step: 'chat_gpt-4o',
      attempt: 1,
      outcome: 'failed',
      errorClass: 'transient',
      errorText: message,
      // No usage on a failed call: nothing to price.
      cost: priceCall({
        model: MODEL,
        provider: 'openai',
        failure: { httpStatus: 503, errorClass: 'transient' },
        at: new Date(startMs(chat)),
      }),
    });
    expect(chatRow.cost_source).toBe('none');
    // The run failed with its call: one failure, the call's; the run is listed as a failed run, not an attempt.
    expect(await runsOfTrace(chat.spanContext().traceId)).toEqual([
      { agent: AGENT, name: 'invoke_agent_gpt-4o', convention: 'invoke_agent', outcome: 'failed', error_text: message },
    ]);
  });
});
