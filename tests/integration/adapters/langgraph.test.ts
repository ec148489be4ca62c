import { randomUUID } from 'node:crypto';
import { AIMessage, type BaseMessage, isAIMessage } from '@langchain/core/messages';
import { Annotation, entrypoint, MemorySaver, MessagesAnnotation, START, StateGraph, task } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import {
  HoldfastStepStopped,
  type HoldfastTask,
  holdfastNode,
  holdfastRetryPolicy,
  holdfastTask,
  StepError,
} from '@holdfast/client/langgraph';
import { useAdapterServer } from '../../support/adapter-server';
import { aSpentModelBudget, aSpentQueueBudget } from '../../support/spent-budget';
import { useTestDatabase } from '../../support/test-database';

/**
 * LangGraph.js (a real StateGraph and a real entrypoint with its checkpointer, no model, nothing off this
 * machine) under a live production Holdfast. A node that fails transiently twice is run again by
 * LangGraph's retry loop only because Holdfast granted each retry, after the delay Holdfast named (the
 * test's sleep records the delays instead of waiting): three attempts, two retries, in the attempts
 * table as in the task's budget. A permanent failure is not retried: one attempt and a typed stop. A
 * re-run of the graph on a new thread for the same task does not repeat a completed side effect, where
 * LangGraph's checkpointer alone (its guarantee is per thread) would.
 */

// No LangSmith tracing: both of its switches off before any LangChain code runs.
process.env.LANGCHAIN_TRACING_V2 = 'false';
process.env.LANGSMITH_TRACING = 'false';

const database = useTestDatabase();
const OWNER = 'team:payments';
const adapter = useAdapterServer(database, { owner: OWNER, tokenName: 'langgraph adapter' });

const aTask = (): HoldfastTask => ({
  taskId: `order-${randomUUID()}`,
  agent: 'checkout',
  owner: OWNER,
  retryAllowance: 3,
});

interface AttemptRow {
  step: string;
  attempt_number: number;
  outcome: string;
  error_class: string | null;
  idempotency_key: string;
}

const attemptsOf = (taskId: string) =>
  database.sql<AttemptRow[]>`
    select step, attempt_number, outcome, error_class, idempotency_key from attempts
    where task_id = ${taskId} order by id`;

const retriesUsed = async (taskId: string) => {
  const [budget] = await database.sql<{ retries_used: number }[]>`
    select retries_used from task_budgets where task_id = ${taskId}`;
  return budget?.retries_used;
};

/**
 * A checkout graph: `charge_card` charges (a counted side effect) after failing as told, and answers
 * with a message; under Holdfast with holdfastRetryPolicy, its retry decided by Holdfast alone.
 */
function checkoutGraph(failures: StepError[], model?: string) {
  const charges: string[] = [];
  const slept: number[] = [];
  let nodeRuns = 0;
  const State = Annotation.Root({
    ...MessagesAnnotation.spec,
    order: Annotation<string>(),
    chargeId: Annotation<string | undefined>(),
  });
  const chargeCard = holdfastNode<typeof State.State, typeof State.Update>(
    async (state) => {
      nodeRuns += 1;
      const failure = failures.shift();
      if (failure) throw failure;
      charges.push(state.order);
      return { chargeId: `ch_${state.order}`, messages: [new AIMessage(`Charged ${state.order}.`)] };
    },
    {
      client: adapter.client,
      sleep: async (ms) => {
        slept.push(ms);
      },
      content: (state) => ({ order: state.order }),
      model,
    },
  );
  const graph = new StateGraph(State)
    .addNode('charge_card', chargeCard, { retryPolicy: holdfastRetryPolicy })
    .addEdge(START, 'charge_card')
    .compile({ checkpointer: new MemorySaver() });
  const invoke = (task: HoldfastTask, threadId = randomUUID()) =>
    graph.invoke(
      { order: 'A-1001', messages: [{ role: 'user', content: 'Charge order A-1001.' }] },
      { configurable: { thread_id: threadId, holdfastTask: task } },
    );
  return { charges, slept, invoke, nodeRuns: () => nodeRuns };
}

describe('LangGraph.js under Holdfast', () => {
  it("retries a node's transient failures only as Holdfast decides: 3 attempts, 2 retries, Holdfast's delays", async () => {
    const world = checkoutGraph([
      new StepError('transient', '503 from the payment processor'),
      new StepError('transient', 'connection reset by the payment processor'),
    ]);
    const task = aTask();
    adapter.finishAnswers.length = 0;
    const result = await world.invoke(task);
    expect(result.chargeId).toBe('ch_A-1001');
    expect(world.nodeRuns()).toBe(3);
    expect(world.charges).toEqual(['A-1001']);

    // The delays slept are exactly those Holdfast named, in order; LangGraph added none of its own.
    const retries = adapter.finishAnswers.filter((answer) => answer.decision === 'retry');
    expect(retries.map((answer) => answer.attemptNumber)).toEqual([1, 2]);
    expect(world.slept).toEqual(retries.map((answer) => answer.delayMs));

    const rows = await attemptsOf(task.taskId);
    expect(rows.map((row) => [row.step, row.attempt_number, row.outcome, row.error_class])).toEqual([
      ['charge_card', 1, 'failed', 'transient'],
      ['charge_card', 2, 'failed', 'transient'],
      ['charge_card', 3, 'succeeded', null],
    ]);
    expect(new Set(rows.map((row) => row.idempotency_key))).toEqual(new Set([`${task.taskId}/charge_card`]));
    expect(await retriesUsed(task.taskId)).toBe(2);

    // A re-run of the graph for the same task, on a new thread (another process, a redelivered message):
    // LangGraph's checkpointer knows nothing of it; Holdfast replays the stored update, messages included.
    const rerun = await world.invoke(task);
    expect(rerun.chargeId).toBe('ch_A-1001');
    const reply = rerun.messages.at(-1) as BaseMessage;
    expect(isAIMessage(reply)).toBe(true);
    expect(reply.content).toBe('Charged A-1001.');
    expect(world.nodeRuns()).toBe(3);
    expect(world.charges).toEqual(['A-1001']);
    expect(await attemptsOf(task.taskId)).toHaveLength(3);
    expect(await retriesUsed(task.taskId)).toBe(2);
  });

  it('does not retry a permanent failure: one attempt, and the graph stops with a typed error', async () => {
    const world = checkoutGraph([new StepError('permanent', 'card declined (402)')]);
    const task = aTask();
    const stopped = await world.invoke(task).catch((error: unknown) => error);
    expect(stopped).toBeInstanceOf(HoldfastStepStopped);
    expect(stopped).toMatchObject({ code: 'DO_NOT_RETRY', reason: 'permanent_error' });
    expect(world.nodeRuns()).toBe(1);
    expect(world.charges).toEqual([]);
    expect(world.slept).toEqual([]);
    const rows = await attemptsOf(task.taskId);
    expect(rows.map((row) => [row.step, row.attempt_number, row.outcome, row.error_class])).toEqual([
      ['charge_card', 1, 'failed', 'permanent'],
    ]);
    expect(await retriesUsed(task.taskId)).toBe(0);
    const holds = await database.sql<{ id: number; owner: string }[]>`
      select h.id, h.owner from holds h join dead_letters d on h.item_type = 'dead_letter' and h.item_id = d.id::text
      where d.task_id = ${task.taskId}`;
    expect(holds.map((hold) => [Number(hold.id), hold.owner])).toEqual([
      [(stopped as HoldfastStepStopped).holdId, OWNER],
    ]);
  });

  it('stops the graph before the node runs when a fleet spend budget over its queue is spent and says stop', async () => {
    const budget = await aSpentQueueBudget(database, 'stop');
    const world = checkoutGraph([]);
    const task = { ...aTask(), queue: budget.queue };
    const stopped = await world.invoke(task).catch((error: unknown) => error);
    expect(stopped).toBeInstanceOf(HoldfastStepStopped);
    expect(stopped).toMatchObject({
      code: 'DO_NOT_RETRY',
      reason: 'budget_exhausted',
      budget: { name: budget.name, scope: 'queue', scopeValue: budget.queue, period: 'day' },
    });
    expect(world.nodeRuns()).toBe(0);
    expect(world.charges).toEqual([]);
    expect(world.slept).toEqual([]);
    expect(await attemptsOf(task.taskId)).toEqual([]);
  });

  it("declares a node's model at the begin: a spent budget of that model holds the node before it runs", async () => {
    const model = `budgeted-${randomUUID().slice(0, 8)}`;
    const budget = await aSpentModelBudget(database, model);
    const world = checkoutGraph([], model);
    const waiting = await world.invoke(aTask()).catch((error: unknown) => error);
    expect(waiting).toMatchObject({ code: 'BUDGET_EXHAUSTED', budget: { name: budget.name, scope: 'model' } });
    expect(world.nodeRuns()).toBe(0);
    expect(world.charges).toEqual([]);
  });

  it("keeps a task's side effect single across threads, where the checkpointer keeps it single within one", async () => {
    const receipts: string[] = [];
    const plainReceipts: string[] = [];
    let flakyRuns = 0;
    const slept: number[] = [];
    const sendReceipt = holdfastTask(
      'send_receipt',
      async (order: string, email: string) => {
        receipts.push(`${order} to ${email}`);
        return { receiptId: `rc_${order}` };
      },
      {
        client: adapter.client,
        sleep: async (ms) => {
          slept.push(ms);
        },
      },
    );
    const sendPlainReceipt = task('send_plain_receipt', async (order: string) => {
      plainReceipts.push(order);
      return `plain_${order}`;
    });
    // Fails the first time it runs, after both receipts went out: the run dies midway.
    const fulfil = task('fulfil', async (order: string) => {
      flakyRuns += 1;
      if (flakyRuns === 1) throw new Error('the warehouse did not answer');
      return `shipped ${order}`;
    });
    const workflow = entrypoint({ name: 'checkout', checkpointer: new MemorySaver() }, async (order: string) => {
      const receipt = await sendReceipt(order, 'ada@example.com');
      const plain = await sendPlainReceipt(order);
      const shipped = await fulfil(order);
      return { ...receipt, plain, shipped };
    });
    const task1 = aTask();
    const config = (threadId: string) => ({ configurable: { thread_id: threadId, holdfastTask: task1 } });

    await expect(workflow.invoke('A-2002', config('thread-1'))).rejects.toThrow('the warehouse did not answer');
    expect({ receipts: receipts.length, plain: plainReceipts.length }).toEqual({ receipts: 1, plain: 1 });

    // Resumed on its own thread, LangGraph reruns only what did not finish: its checkpointer's guarantee.
    const resumed = await workflow.invoke(null, config('thread-1'));
    expect(resumed).toEqual({ receiptId: 'rc_A-2002', plain: 'plain_A-2002', shipped: 'shipped A-2002' });
    expect({ receipts: receipts.length, plain: plainReceipts.length }).toEqual({ receipts: 1, plain: 1 });

    // Run again on a new thread for the same work: the checkpointer has nothing, so the plain task sends
    // again; the Holdfast task's key is the database's, and its receipt is not sent twice.
    const again = await workflow.invoke('A-2002', config('thread-2'));
    expect(again).toEqual({ receiptId: 'rc_A-2002', plain: 'plain_A-2002', shipped: 'shipped A-2002' });
    expect({ receipts: receipts.length, plain: plainReceipts.length }).toEqual({ receipts: 1, plain: 2 });

    const rows = await attemptsOf(task1.taskId);
    expect(rows.map((row) => [row.step, row.attempt_number, row.outcome])).toEqual([['send_receipt', 1, 'succeeded']]);
    expect(rows[0]!.idempotency_key).toMatch(new RegExp(`^${task1.taskId}/send_receipt#\\d+$`));
    expect(slept).toEqual([]);
  });

  it('sent nothing off this machine', () => {
    expect(adapter.refused).toEqual([]);
  });
});
