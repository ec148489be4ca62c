import { randomUUID } from 'node:crypto';
import type { LanguageModelV4GenerateResult, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { APICallError, generateText, stepCountIs, streamText, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { HoldfastStepStopped, HoldfastStepWaiting, holdfastTask } from '@holdfast/client/ai-sdk';
import { createHoldfastClient, type HoldfastClient } from '@holdfast/client';
import { createApiToken, SWEEPER } from '../../../packages/engine/src/core';
import { demoServerEnv, type HoldfastServer, startHoldfastServer } from '../../support/holdfast-server';
import { aSpentModelBudget, aSpentQueueBudget } from '../../support/spent-budget';
import { useTestDatabase } from '../../support/test-database';

/**
 * The AI SDK adapter against a running Holdfast, with the SDK's own mock model
 * (no network): each model call is an attempt, retried when Holdfast says so
 * and after the delay it says, replayed from its stored result when the task
 * is delivered again, and priced from its tokens.
 */
const database = useTestDatabase();
let server: HoldfastServer;
let client: HoldfastClient;
const AGENT = 'sdk-agent';
const MODEL = 'gpt-4o-mini';
/** gpt-4o-mini in the pinned price table, in micro-dollars per token. */
const PRICE = { input: 0.15, output: 0.6 };
const USAGE = { input: 1_000, output: 500 };
const PRICED_CALL = USAGE.input * PRICE.input + USAGE.output * PRICE.output; // 450

beforeAll(async () => {
  const { token } = await createApiToken(
    { db: database.db, actor: SWEEPER },
    { name: 'ai sdk adapter', scopes: ['ingest'] },
  );
  server = await startHoldfastServer({ env: demoServerEnv(database) });
  client = createHoldfastClient({ baseUrl: server.baseUrl, token });
}, 300_000);

afterAll(async () => {
  await server?.stop();
});

const usage = (input: number, output: number): LanguageModelV4GenerateResult['usage'] => ({
  inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: output, text: output, reasoning: undefined },
});

const answer = (text: string): LanguageModelV4GenerateResult => ({
  content: [{ type: 'text', text }],
  finishReason: { unified: 'stop', raw: 'stop' },
  usage: usage(USAGE.input, USAGE.output),
  warnings: [],
});

const toolCall = (id: string, name: string, input: object): LanguageModelV4GenerateResult => ({
  content: [{ type: 'tool-call', toolCallId: id, toolName: name, input: JSON.stringify(input) }],
  finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
  usage: usage(USAGE.input, USAGE.output),
  warnings: [],
});

const httpFailure = (status: number, headers: Record<string, string> = {}) =>
  new APICallError({
    message: `HTTP ${status}`,
    url: 'https://api.openai.com/v1/responses',
    requestBodyValues: {},
    statusCode: status,
    responseHeaders: headers,
    isRetryable: status === 429 || status >= 500,
  });

/** A mock model that answers from a script, one entry per call; a thrown entry is a failed call. */
function scriptedModel(script: (() => LanguageModelV4GenerateResult)[], modelId = MODEL) {
  const model: MockLanguageModelV4 = new MockLanguageModelV4({
    provider: 'openai.responses',
    modelId,
    doGenerate: async () => {
      const next = script[model.doGenerateCalls.length - 1];
      if (!next) throw new Error('the script has no more answers');
      return next();
    },
  });
  return model;
}

/** One delivery of a task: a binding of its own whose waits are recorded, never slept. */
function delivery(taskId: string, extra: { spendCeilingMicros?: number; queue?: string } = {}, maxWaitMs?: number) {
  const waits: number[] = [];
  const holdfast = holdfastTask({
    client,
    task: { taskId, agent: AGENT, owner: 'team:platform', ...extra },
    loop: {
      sleep: async (ms) => {
        waits.push(ms);
      },
      maxWaitMs,
    },
  });
  return { holdfast, waits };
}

async function attemptsOf(taskId: string) {
  return database.sql<
    {
      step: string;
      iteration: number;
      attempt_number: number;
      outcome: string;
      error_class: string | null;
      cost_micros: string;
      cost_source: string | null;
    }[]
  >`
    select step, iteration, attempt_number, outcome, error_class, cost_micros, cost_source from attempts
    where task_id = ${taskId} order by step, iteration, attempt_number`;
}

describe('the AI SDK under Holdfast', () => {
  it('retries a call that failed 429 then 503 when Holdfast says, after its delays, and prices the one that succeeded', async () => {
    const taskId = `sdk-retry-${randomUUID()}`;
    const model = scriptedModel([
      () => {
        throw httpFailure(429, { 'retry-after': '7' });
      },
      () => {
        throw httpFailure(503);
      },
      () => answer('The invoice is paid.'),
    ]);
    const { holdfast, waits } = delivery(taskId);
    const result = await generateText({
      model: wrapLanguageModel({ model, middleware: holdfast.model('answer') }),
      prompt: 'Is invoice 9 paid?',
      maxRetries: 0,
    });
    expect(result.text).toBe('The invoice is paid.');
    expect(model.doGenerateCalls).toHaveLength(3);
    // Two waits, as Holdfast answered them: the first at least the provider's Retry-After.
    expect(waits).toHaveLength(2);
    expect(waits[0]).toBeGreaterThanOrEqual(7_000);
    expect(waits[1]).toBeGreaterThan(0);
    expect(await attemptsOf(taskId)).toEqual([
      {
        step: 'answer',
        iteration: 0,
        attempt_number: 1,
        outcome: 'failed',
        error_class: 'rate_limited',
        cost_micros: '0',
        cost_source: 'reported',
      },
      {
        step: 'answer',
        iteration: 0,
        attempt_number: 2,
        outcome: 'failed',
        error_class: 'transient',
        cost_micros: '0',
        cost_source: 'reported',
      },
      {
        step: 'answer',
        iteration: 0,
        attempt_number: 3,
        outcome: 'succeeded',
        error_class: null,
        cost_micros: String(PRICED_CALL),
        cost_source: 'priced',
      },
    ]);

    // The task delivered again: the stored answer, and the model is never asked.
    const again = scriptedModel([]);
    const redelivered = delivery(taskId);
    const replayed = await generateText({
      model: wrapLanguageModel({ model: again, middleware: redelivered.holdfast.model('answer') }),
      prompt: 'Is invoice 9 paid?',
      maxRetries: 0,
    });
    expect(replayed.text).toBe('The invoice is paid.');
    expect(replayed.usage.inputTokens).toBe(USAGE.input);
    expect(again.doGenerateCalls).toHaveLength(0);
    expect(await attemptsOf(taskId)).toHaveLength(3);
  });

  it('stops at an unclassified error: one attempt, no retry, the stop raised to the caller', async () => {
    const taskId = `sdk-unknown-${randomUUID()}`;
    const model = scriptedModel([
      () => {
        throw new TypeError('cannot read properties of undefined');
      },
    ]);
    const { holdfast, waits } = delivery(taskId);
    const failure = await generateText({
      model: wrapLanguageModel({ model, middleware: holdfast.model('answer') }),
      prompt: 'Summarise the ticket',
      maxRetries: 0,
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(HoldfastStepStopped);
    expect((failure as HoldfastStepStopped).message).toMatch(/^do not retry: /);
    expect(model.doGenerateCalls).toHaveLength(1);
    expect(waits).toEqual([]);
    expect((await attemptsOf(taskId)).map((row) => [row.attempt_number, row.outcome, row.error_class])).toEqual([
      [1, 'failed', 'unknown'],
    ]);
  });

  it('raises a wait to the caller, naming the budget, when a spent fleet budget has its period to run out', async () => {
    const budget = await aSpentQueueBudget(database, 'wait');
    const taskId = `sdk-budget-${randomUUID()}`;
    const model = scriptedModel([() => answer('never asked')]);
    const { holdfast, waits } = delivery(taskId, { queue: budget.queue }, 1_000);
    const failure = await generateText({
      model: wrapLanguageModel({ model, middleware: holdfast.model('answer') }),
      prompt: 'Summarise the ticket',
      maxRetries: 0,
    }).catch((error: unknown) => error);
    // The day turns later than the caller sits out (a second here, 5 minutes by default): the caller decides.
    expect(failure).toBeInstanceOf(HoldfastStepWaiting);
    expect(failure).toMatchObject({ code: 'BUDGET_EXHAUSTED', budget: { name: budget.name, period: 'day' } });
    expect((failure as HoldfastStepWaiting).retryAfterMs).toBeGreaterThan(0);
    expect(model.doGenerateCalls).toHaveLength(0);
    expect(waits).toEqual([]);
    expect(await attemptsOf(taskId)).toEqual([]);
  });

  it('declares the model at the begin, so that a spent budget of that model refuses the call before it is asked', async () => {
    const modelId = `budgeted-model-${randomUUID().slice(0, 8)}`;
    const budget = await aSpentModelBudget(database, modelId);
    const taskId = `sdk-model-budget-${randomUUID()}`;
    const model = scriptedModel([() => answer('never asked')], modelId);
    const { holdfast } = delivery(taskId, {}, 1_000);
    const failure = await generateText({
      model: wrapLanguageModel({ model, middleware: holdfast.model('answer') }),
      prompt: 'Summarise the ticket',
      maxRetries: 0,
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(HoldfastStepWaiting);
    expect(failure).toMatchObject({ code: 'BUDGET_EXHAUSTED', budget: { name: budget.name, scope: 'model' } });
    expect(model.doGenerateCalls).toHaveLength(0);

    // Streamed, the same wait names the same budget, and the model is not asked either.
    let streamFailure: unknown;
    const streamed = streamText({
      model: wrapLanguageModel({ model, middleware: holdfast.model('answer') }),
      prompt: 'Summarise the ticket',
      maxRetries: 0,
      onError: ({ error }) => {
        streamFailure = error;
      },
    });
    await streamed.consumeStream();
    expect(streamFailure).toBeInstanceOf(HoldfastStepWaiting);
    expect(streamFailure).toMatchObject({ code: 'BUDGET_EXHAUSTED', budget: { name: budget.name, scope: 'model' } });
    expect(model.doStreamCalls).toHaveLength(0);
  });

  it('runs a side-effecting tool once per task: a redelivered run replays the model and the tool', async () => {
    const taskId = `sdk-tool-${randomUUID()}`;
    const sent: string[] = [];
    const sendEmail = tool({
      description: 'Send an email',
      inputSchema: z.object({ to: z.string() }),
      execute: async ({ to }) => {
        sent.push(to);
        return { sent: true, to };
      },
    });
    const run = async (model: MockLanguageModelV4) => {
      const { holdfast } = delivery(taskId);
      return generateText({
        model: wrapLanguageModel({ model, middleware: holdfast.model('plan') }),
        tools: { send_email: holdfast.tool('send_email', sendEmail) },
        stopWhen: stepCountIs(5),
        prompt: 'Tell Ada her order shipped',
        maxRetries: 0,
      });
    };
    const first = scriptedModel([
      () => toolCall('call_1', 'send_email', { to: 'ada@example.com' }),
      () => answer('Ada has been told.'),
    ]);
    expect((await run(first)).text).toBe('Ada has been told.');
    const second = scriptedModel([]);
    expect((await run(second)).text).toBe('Ada has been told.');
    expect(sent).toEqual(['ada@example.com']);
    expect(second.doGenerateCalls).toHaveLength(0);
    expect((await attemptsOf(taskId)).map((row) => [row.step, row.iteration, row.attempt_number, row.outcome])).toEqual(
      [
        ['plan', 0, 1, 'succeeded'],
        ['plan', 1, 1, 'succeeded'],
        ['send_email', 0, 1, 'succeeded'],
      ],
    );
  });

  it('stops a loop of calls at the task’s spend ceiling, within one call’s cost of it', async () => {
    const taskId = `sdk-ceiling-${randomUUID()}`;
    const lookups: number[] = [];
    const lookUp = tool({
      description: 'Look a page up',
      inputSchema: z.object({ page: z.number() }),
      execute: async ({ page }) => {
        lookups.push(page);
        return { page, text: 'more to read' };
      },
    });
    // The model never stops asking for another page.
    const model: MockLanguageModelV4 = new MockLanguageModelV4({
      provider: 'openai.responses',
      modelId: MODEL,
      doGenerate: async () => {
        const page = model.doGenerateCalls.length;
        return toolCall(`call_${page}`, 'look_up', { page });
      },
    });
    const ceiling = 4 * PRICED_CALL;
    const { holdfast } = delivery(taskId, { spendCeilingMicros: ceiling });
    const failure = await generateText({
      // Each call reserves what it will cost (a look-up nothing): the ceiling then stops the loop before it is passed.
      model: wrapLanguageModel({ model, middleware: holdfast.model('research', { estimatedCostMicros: PRICED_CALL }) }),
      tools: { look_up: holdfast.tool('look_up', lookUp, { downstreamIdempotent: true, estimatedCostMicros: 0 }) },
      stopWhen: stepCountIs(50),
      prompt: 'Read everything',
      maxRetries: 0,
    }).catch((error: unknown) => error);
    // The stop may first meet a tool call (the SDK hands a tool's error to the model as its result, and the
    // model's next call then finds the task dead-lettered) or a model call: either way the run ends there.
    expect(failure).toBeInstanceOf(HoldfastStepStopped);
    expect(['budget_exhausted', 'task_dead_lettered']).toContain((failure as HoldfastStepStopped).reason);
    const deadLetters = await database.sql<{ reason: string }[]>`
      select reason from dead_letters where task_id = ${taskId}`;
    expect(deadLetters).toEqual([{ reason: 'budget_exhausted' }]);
    const rows = await attemptsOf(taskId);
    const spent = rows.reduce((sum, row) => sum + Number(row.cost_micros), 0);
    expect(spent).toBeLessThanOrEqual(ceiling);
    expect(spent).toBeGreaterThan(ceiling - PRICED_CALL);
    expect(model.doGenerateCalls.length).toBe(rows.filter((row) => row.step === 'research').length);
    const [budget] = await database.sql<{ spend_micros: string }[]>`
      select spend_micros from task_budgets where task_id = ${taskId}`;
    expect(Number(budget!.spend_micros)).toBe(spent);
  });

  it('records a stream when it ends, and replays it whole to a redelivery', async () => {
    const taskId = `sdk-stream-${randomUUID()}`;
    const parts: LanguageModelV4StreamPart[] = [
      { type: 'stream-start', warnings: [] },
      { type: 'response-metadata', id: 'resp_1', modelId: MODEL, timestamp: new Date('2026-12-01T10:00:00Z') },
      { type: 'text-start', id: 't1' },
      { type: 'text-delta', id: 't1', delta: 'Shipped ' },
      { type: 'text-delta', id: 't1', delta: 'today.' },
      { type: 'text-end', id: 't1' },
      { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: usage(USAGE.input, USAGE.output) },
    ];
    const streamingModel = () => {
      const model: MockLanguageModelV4 = new MockLanguageModelV4({
        provider: 'openai.responses',
        modelId: MODEL,
        doStream: async () => ({
          stream: new ReadableStream({
            start(controller) {
              for (const part of parts) controller.enqueue(part);
              controller.close();
            },
          }),
        }),
      });
      return model;
    };
    const read = async (model: MockLanguageModelV4) => {
      const { holdfast } = delivery(taskId);
      const result = streamText({
        model: wrapLanguageModel({ model, middleware: holdfast.model('reply') }),
        prompt: 'When does it ship?',
        maxRetries: 0,
      });
      return result.text;
    };
    const live = streamingModel();
    expect(await read(live)).toBe('Shipped today.');
    expect(live.doStreamCalls).toHaveLength(1);
    // The attempt is finished once the stream has ended: poll, as the finish is sent after the reader's last part.
    await expect
      .poll(async () => (await attemptsOf(taskId)).map((row) => [row.outcome, row.cost_micros, row.cost_source]))
      .toEqual([['succeeded', String(PRICED_CALL), 'priced']]);

    const again = streamingModel();
    expect(await read(again)).toBe('Shipped today.');
    expect(again.doStreamCalls).toHaveLength(0);
    expect(await attemptsOf(taskId)).toHaveLength(1);
  });
});
