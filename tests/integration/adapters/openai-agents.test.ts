import { randomUUID } from 'node:crypto';
import {
  Agent,
  type Model,
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
  Runner,
  type StreamEvent,
  setTracingDisabled,
  Usage,
} from '@openai/agents-core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  HoldfastStepStopped,
  HoldfastStepWaiting,
  type HoldfastTask,
  holdfastAttemptOf,
  holdfastModelProvider,
  holdfastTool,
} from '@holdfast/client/openai-agents';
import { useAdapterServer } from '../../support/adapter-server';
import { aSpentModelBudget, aSpentQueueBudget } from '../../support/spent-budget';
import { useTestDatabase } from '../../support/test-database';

/**
 * The OpenAI Agents SDK (its core package, with a fake model: nothing leaves this machine) under a live
 * production Holdfast. An agent whose model asks for a side-effecting tool and then answers is run, and
 * run again for the same task as a redelivery would: the side effect happens once, the model is not
 * asked again for a call already answered, and the attempts table holds exactly the calls made. Model
 * failures are retried when Holdfast says so and after the delay it names (the test's sleep records the
 * delays instead of waiting); a failure Holdfast never retries stops the run with a typed error.
 */

// The SDK's tracing is off in three ways: its variable, its switch, and each runner's setting. The core
// package's default exporter writes to the console, and the OpenAI package's would post to
// api.openai.com; the adapter needs neither.
process.env.OPENAI_AGENTS_DISABLE_TRACING = '1';
setTracingDisabled(true);

const database = useTestDatabase();
const OWNER = 'team:billing';
const MODEL = 'gpt-4o-mini';
const PRICE = { input: 0.15, output: 0.6 };
const adapter = useAdapterServer(database, { owner: OWNER, tokenName: 'agents sdk adapter' });

/** An HTTP failure as the OpenAI client raises it: a status and the response's headers. */
class ProviderError extends Error {
  constructor(
    readonly status: number,
    readonly headers: Record<string, string> = {},
  ) {
    super(`${status} from the provider`);
    this.name = 'APIError';
  }
}

/**
 * A fake model with the SDK's Model interface: asked without a tool result in the conversation it asks
 * for `send_invoice`; asked with one, it answers. It counts every call and can be told to fail first.
 */
class FakeBillingModel implements Model {
  calls = 0;
  streamedCalls = 0;
  failures: Error[] = [];

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.calls += 1;
    const failure = this.failures.shift();
    if (failure) throw failure;
    return this.answer(request);
  }

  async *getStreamedResponse(request: ModelRequest): AsyncIterable<StreamEvent> {
    this.streamedCalls += 1;
    const response = this.answer(request);
    yield { type: 'response_started' };
    const text = response.output.find((item) => item.type === 'message');
    if (text) yield { type: 'output_text_delta', delta: 'Sent' };
    yield {
      type: 'response_done',
      response: {
        id: `resp_${this.streamedCalls}`,
        usage: response.usage,
        output: response.output as Extract<StreamEvent, { type: 'response_done' }>['response']['output'],
      },
    };
  }

  private answer(request: ModelRequest): ModelResponse {
    const input = Array.isArray(request.input) ? request.input : [];
    const toolResult = input.find((item) => item.type === 'function_call_result');
    const usage = new Usage({ requests: 1, inputTokens: 1_000, outputTokens: 200, totalTokens: 1_200 });
    if (!toolResult) {
      return {
        usage,
        // Each call gets a new call id, as a real model's would: a re-asked model names its call anew.
        output: [
          {
            type: 'function_call',
            callId: `call_${this.calls + this.streamedCalls}`,
            name: 'send_invoice',
            arguments: JSON.stringify({ invoice: 'INV-7' }),
            status: 'completed',
          },
        ],
        responseId: `resp_tool_${this.calls + this.streamedCalls}`,
      };
    }
    return {
      usage,
      output: [
        {
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'Sent INV-7.' }],
        },
      ],
      responseId: `resp_answer_${this.calls + this.streamedCalls}`,
    };
  }
}

interface RunState {
  task: HoldfastTask;
}

/** One world per test: the fake model, the counted side effect, the slept delays, the wrapped tool. */
function billingWorld(taskFields: Partial<HoldfastTask> = {}, modelName = MODEL) {
  const model = new FakeBillingModel();
  const provider: ModelProvider = { getModel: () => model };
  const sent: { invoice: string; key: string | undefined }[] = [];
  const slept: number[] = [];
  const sleep = async (ms: number) => {
    slept.push(ms);
  };
  const sendInvoice = holdfastTool(
    {
      name: 'send_invoice',
      description: 'Sends an invoice to the customer.',
      parameters: z.object({ invoice: z.string() }),
      execute: async ({ invoice }, _runContext, details) => {
        // The side effect, with Holdfast's key for a downstream that deduplicates by one.
        sent.push({ invoice, key: holdfastAttemptOf(details)?.key });
        return `sent ${invoice}`;
      },
    },
    {
      client: adapter.client,
      task: (runContext) => (runContext.context as RunState).task,
      agentName: 'Billing agent',
      sleep,
    },
  );
  const agent = new Agent<RunState>({
    name: 'Billing agent',
    instructions: 'Send the invoice the customer asks for, then say so.',
    model: modelName,
    tools: [sendInvoice],
  });
  const task: HoldfastTask = {
    taskId: `invoice-${randomUUID()}`,
    agent: 'billing',
    owner: OWNER,
    retryAllowance: 3,
    ...taskFields,
  };
  const runnerFor = (guardModel: boolean) =>
    new Runner({
      modelProvider: guardModel ? holdfastModelProvider(provider, { client: adapter.client, task, sleep }) : provider,
      tracingDisabled: true,
    });
  /** A run of the agent for the task, as a worker runs it for each delivery of the message. */
  const runOnce = (options: { guardModel?: boolean } = {}) =>
    runnerFor(options.guardModel ?? true).run(agent, 'Please send invoice INV-7.', { context: { task } });
  const runStreamed = () =>
    runnerFor(true).run(agent, 'Please send invoice INV-7.', { context: { task }, stream: true });
  return { model, sent, slept, task, runOnce, runStreamed };
}

interface AttemptRow {
  step: string;
  attempt_number: number;
  outcome: string;
  error_class: string | null;
  cost_micros: string;
  cost_source: string | null;
  idempotency_key: string;
}

const attemptsOf = (taskId: string) =>
  database.sql<AttemptRow[]>`
    select step, attempt_number, outcome, error_class, cost_micros, cost_source, idempotency_key from attempts
    where task_id = ${taskId} order by id`;

const modelCost = String(Math.round(1_000 * PRICE.input + 200 * PRICE.output));

describe('the OpenAI Agents SDK under Holdfast', () => {
  it('runs a re-run of the agent for the same task without a second side effect or a second inference', async () => {
    const world = billingWorld();
    const first = await world.runOnce();
    expect(first.finalOutput).toBe('Sent INV-7.');
    expect(world.model.calls).toBe(2); // the tool call, then the answer
    expect(world.sent).toHaveLength(1);

    const redelivered = await world.runOnce();
    expect(redelivered.finalOutput).toBe('Sent INV-7.');
    // Both model calls replayed from Holdfast, the tool's stored output too.
    expect(world.model.calls).toBe(2);
    expect(world.sent).toHaveLength(1);

    const rows = await attemptsOf(world.task.taskId);
    expect(rows.map(({ idempotency_key: _key, ...row }) => row)).toEqual([
      {
        step: 'model',
        attempt_number: 1,
        outcome: 'succeeded',
        error_class: null,
        cost_micros: modelCost,
        cost_source: 'priced',
      },
      {
        step: 'Billing_agent.send_invoice',
        attempt_number: 1,
        outcome: 'succeeded',
        error_class: null,
        cost_micros: '0',
        cost_source: 'none',
      },
      {
        step: 'model',
        attempt_number: 1,
        outcome: 'succeeded',
        error_class: null,
        cost_micros: modelCost,
        cost_source: 'priced',
      },
    ]);
    // Keys from the task, the step and the content's hash; the tool got its key for the downstream.
    const [firstCall, toolCall, secondCall] = rows.map((row) => row.idempotency_key);
    expect(firstCall).toMatch(new RegExp(`^${world.task.taskId}/model#\\d+$`));
    expect(secondCall).toMatch(new RegExp(`^${world.task.taskId}/model#\\d+$`));
    expect(secondCall).not.toBe(firstCall);
    expect(toolCall).toMatch(new RegExp(`^${world.task.taskId}/Billing_agent\\.send_invoice#\\d+$`));
    expect(world.sent).toEqual([{ invoice: 'INV-7', key: toolCall }]);
    expect(world.slept).toEqual([]);
  });

  it('keeps the side effect single when the model is asked again and names the call anew', async () => {
    const world = billingWorld();
    await world.runOnce({ guardModel: false });
    // The model is not under Holdfast here: a re-run asks it again and it gives the call a new id.
    await world.runOnce({ guardModel: false });
    expect(world.model.calls).toBe(4);
    expect(world.sent).toHaveLength(1);
    const rows = await attemptsOf(world.task.taskId);
    expect(rows.map((row) => [row.step, row.attempt_number, row.outcome])).toEqual([
      ['Billing_agent.send_invoice', 1, 'succeeded'],
    ]);
  });

  it('retries a failing model call when Holdfast says so, after the delays Holdfast names, and records each try', async () => {
    const world = billingWorld();
    world.model.failures.push(new ProviderError(503), new ProviderError(429, { 'retry-after-ms': '1500' }));
    adapter.finishAnswers.length = 0;
    const result = await world.runOnce();
    expect(result.finalOutput).toBe('Sent INV-7.');
    expect(world.model.calls).toBe(4); // 503, 429, the tool call, the answer
    expect(world.sent).toHaveLength(1);

    const retries = adapter.finishAnswers.filter((answer) => answer.decision === 'retry');
    expect(retries.map((answer) => answer.attemptNumber)).toEqual([1, 2]);
    // Slept exactly what Holdfast asked for, in order; the 429's wait no shorter than its Retry-After.
    expect(world.slept).toEqual(retries.map((answer) => answer.delayMs));
    expect(world.slept[1]).toBeGreaterThanOrEqual(1_500);

    const rows = await attemptsOf(world.task.taskId);
    expect(rows.map((row) => [row.step, row.attempt_number, row.outcome, row.error_class, row.cost_micros])).toEqual([
      ['model', 1, 'failed', 'transient', '0'],
      ['model', 2, 'failed', 'rate_limited', '0'],
      ['model', 3, 'succeeded', null, modelCost],
      ['Billing_agent.send_invoice', 1, 'succeeded', null, '0'],
      ['model', 1, 'succeeded', null, modelCost],
    ]);
    const [budget] = await database.sql<{ retries_used: number }[]>`
      select retries_used from task_budgets where task_id = ${world.task.taskId}`;
    expect(budget?.retries_used).toBe(2);
  });

  it('stops the run with a typed error on a failure Holdfast never retries, with one hold and one dead letter', async () => {
    const world = billingWorld();
    world.model.failures.push(new ProviderError(400));
    const stopped = await world.runOnce().catch((error: unknown) => error);
    expect(stopped).toBeInstanceOf(HoldfastStepStopped);
    expect(stopped).toMatchObject({ code: 'DO_NOT_RETRY', reason: 'permanent_error' });
    expect((stopped as HoldfastStepStopped).holdId).toEqual(expect.any(Number));
    expect(world.model.calls).toBe(1);
    expect(world.sent).toHaveLength(0);
    expect(world.slept).toEqual([]);
    const rows = await attemptsOf(world.task.taskId);
    expect(rows.map((row) => [row.step, row.attempt_number, row.outcome, row.error_class])).toEqual([
      ['model', 1, 'failed', 'permanent'],
    ]);
    // The hold is on the dead letter, for the task's owner.
    const letters = await database.sql<
      { id: number }[]
    >`select id from dead_letters where task_id = ${world.task.taskId}`;
    expect(letters.map((letter) => Number(letter.id))).toEqual([(stopped as HoldfastStepStopped).deadLetterId]);
    const holds = await database.sql<{ id: number; owner: string }[]>`
      select id, owner from holds where item_type = 'dead_letter' and item_id = ${String(letters[0]!.id)}`;
    expect(holds.map((hold) => [Number(hold.id), hold.owner])).toEqual([
      [(stopped as HoldfastStepStopped).holdId, OWNER],
    ]);

    // A redelivery of the stopped task does not ask the model again: the task waits for a person.
    const again = await world.runOnce().catch((error: unknown) => error);
    expect(again).toMatchObject({ name: 'HoldfastStepStopped', code: 'DO_NOT_RETRY', reason: 'task_dead_lettered' });
    expect(world.model.calls).toBe(1);
  });

  it('stops the run before the model is asked when a fleet spend budget over its queue is spent and says stop', async () => {
    const budget = await aSpentQueueBudget(database, 'stop');
    const world = billingWorld({ queue: budget.queue });
    const stopped = await world.runOnce().catch((error: unknown) => error);
    expect(stopped).toBeInstanceOf(HoldfastStepStopped);
    expect(stopped).toMatchObject({
      code: 'DO_NOT_RETRY',
      reason: 'budget_exhausted',
      budget: { name: budget.name, scope: 'queue', limitMicros: 1_000_000 },
    });
    expect(world.model.calls).toBe(0);
    expect(world.sent).toHaveLength(0);
    expect(await attemptsOf(world.task.taskId)).toEqual([]);
  });

  it("declares the agent's model at the begin: a spent budget of that model refuses the call before it is asked", async () => {
    const modelName = `budgeted-${randomUUID().slice(0, 8)}`;
    const budget = await aSpentModelBudget(database, modelName);
    const world = billingWorld({}, modelName);
    const waiting = await world.runOnce().catch((error: unknown) => error);
    expect(waiting).toBeInstanceOf(HoldfastStepWaiting);
    expect(waiting).toMatchObject({ code: 'BUDGET_EXHAUSTED', budget: { name: budget.name, scope: 'model' } });
    expect(world.model.calls).toBe(0);
    expect(world.sent).toHaveLength(0);

    // Streamed, the same wait names the same budget.
    const streamed = await world.runStreamed();
    const events = (async () => {
      for await (const _event of streamed) {
        // drained: the wait ends the stream
      }
      await streamed.completed;
    })();
    const streamedWait = await events.catch((error: unknown) => error);
    expect(streamedWait).toBeInstanceOf(HoldfastStepWaiting);
    expect(streamedWait).toMatchObject({ code: 'BUDGET_EXHAUSTED', budget: { name: budget.name, scope: 'model' } });
    expect(world.model.calls).toBe(0);
  });

  it('records a streamed call when its stream ends, and replays it to a streamed re-run', async () => {
    const world = billingWorld();
    const first = await world.runStreamed();
    const deltas: string[] = [];
    for await (const event of first) {
      if (event.type === 'raw_model_stream_event' && event.data.type === 'output_text_delta') {
        deltas.push(event.data.delta);
      }
    }
    await first.completed;
    expect(first.finalOutput).toBe('Sent INV-7.');
    expect(deltas).toEqual(['Sent']); // passed on live, as the model streamed it
    expect(world.model.streamedCalls).toBe(2);

    const again = await world.runStreamed();
    for await (const _event of again) {
      // drained: the replay streams the stored response
    }
    await again.completed;
    expect(again.finalOutput).toBe('Sent INV-7.');
    expect(world.model.streamedCalls).toBe(2);
    expect(world.sent).toHaveLength(1);
    const rows = await attemptsOf(world.task.taskId);
    expect(rows.map((row) => [row.step, row.outcome, row.cost_micros])).toEqual([
      ['model', 'succeeded', modelCost],
      ['Billing_agent.send_invoice', 'succeeded', '0'],
      ['model', 'succeeded', modelCost],
    ]);
  });

  it('sent nothing off this machine', () => {
    expect(adapter.refused).toEqual([]);
  });
});
