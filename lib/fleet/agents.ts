import {
  acquireSlot,
  finishRun,
  recordEvidence,
  releaseSlot,
  runStep,
  startRun,
  type RunStepOutcome,
  type StepAttempt,
} from '@holdfast/engine/core';
import type { Executor } from '@holdfast/engine/db';
import { chargeCard, publishPage, sendEmail } from './downstreams';
import { afterActing, failBeforeActing, failOnOutput, faultFor, type FleetTiming } from './faults';
import { callModel } from './model';
import type { FleetTally } from './tally';
import { verdictOf, type StepVerdict } from './verdict';

/** A task as it travels on the queue. */
export interface FleetTask {
  taskId: string;
  agent: string;
  /** Set on a sub-agent's task: the task that dispatched it. */
  parentTaskId?: string;
}

export interface AgentContext {
  db: Executor;
  seed: number;
  timing: FleetTiming;
  tally: FleetTally;
  /** Aborted when the fleet stops: simulated hangs end at once. */
  stopping: AbortSignal;
}

/** What the worker does with a task after a step: go on, try the whole job later, or stop (held or dead-lettered). */
export type { StepVerdict } from './verdict';

interface StepSpec {
  step: string;
  /** False for a downstream that cannot deduplicate: an interrupted attempt is held, never repeated. */
  downstreamIdempotent: boolean;
  kind: 'model' | 'effect';
  act: (
    context: AgentContext,
    task: FleetTask,
    attempt: StepAttempt,
  ) => Promise<{ result: unknown; costMicros: number }>;
}

const modelStep = (step: string, prompt: string): StepSpec => ({
  step,
  downstreamIdempotent: true,
  kind: 'model',
  act: async ({ seed }, task, attempt) => {
    const { text, costMicros } = callModel(seed, task.taskId, step, attempt.attemptNumber, prompt);
    return { result: { text }, costMicros };
  },
});

/**
 * The demo's in-process agents. Owners are the demo teams, so their holds
 * land with the demo people. Each step's effect is what a real agent would do
 * once Holdfast has let it act.
 */
export const agents: Record<string, { owner: string; steps: StepSpec[] }> = {
  outreach: {
    owner: 'team:growth',
    steps: [
      modelStep('draft_email', 'Draft a follow-up email'),
      {
        step: 'send_email',
        downstreamIdempotent: false, // the outbox sends whatever it is given
        kind: 'effect',
        act: async ({ db }, task) => {
          await sendEmail(db, {
            taskId: task.taskId,
            recipient: `${task.taskId}@customers.example`,
            subject: 'Following up',
          });
          return { result: { sent: true }, costMicros: 100 };
        },
      },
    ],
  },
  payments: {
    owner: 'team:payments',
    steps: [
      modelStep('check_invoice', 'Check the invoice against the order'),
      {
        step: 'charge_card',
        downstreamIdempotent: true, // the provider deduplicates on the key we pass
        kind: 'effect',
        act: async ({ db }, task, attempt) => {
          const { charged } = await chargeCard(db, {
            idempotencyKey: attempt.key,
            taskId: task.taskId,
            amountMicros: 42_000_000,
          });
          return { result: { charged }, costMicros: 300 };
        },
      },
    ],
  },
  publishing: {
    owner: 'team:platform',
    steps: [
      modelStep('render_page', 'Render the weekly page'),
      {
        step: 'publish',
        // The publisher cannot deduplicate, but the step can: it publishes under a slot lock and
        // records evidence first thing after, so whoever holds the slot next sees it was done.
        downstreamIdempotent: true,
        kind: 'effect',
        act: async ({ db, timing }, task, attempt) => {
          const runKey = `${task.taskId}:publish:${attempt.attemptNumber}`;
          const slot = `site:${task.taskId}`;
          await startRun({ db }, { runKey, taskId: task.taskId, agent: task.agent });
          const lock = await acquireSlot({ db }, { slot, runKey, ttlMs: timing.keyTtlMs });
          if (lock.outcome !== 'acquired') throw new Error(`slot ${slot} is held by ${lock.holderRunKey}`);
          if (lock.evidence.length > 0) {
            // An earlier holder published and died before reporting: do not publish again.
            await releaseSlot({ db }, { slot, runKey });
            await finishRun({ db }, { runKey, status: 'finished' });
            return { result: { publication: lock.evidence[0], reused: true }, costMicros: 0 };
          }
          const publication = await publishPage(db, { taskId: task.taskId, page: `weekly-${task.taskId}` });
          await recordEvidence({ db }, { slot, runKey, fencingToken: lock.fencingToken, ref: publication });
          await releaseSlot({ db }, { slot, runKey });
          await finishRun({ db }, { runKey, status: 'finished' });
          return { result: { publication }, costMicros: 200 };
        },
      },
    ],
  },
};

/** Runs one step of a task through runStep, with the seed's fault for this attempt; the last step (`final`) completes the task. */
export async function runAgentStep(
  context: AgentContext,
  task: FleetTask,
  spec: StepSpec,
  final = false,
): Promise<StepVerdict> {
  const owner = agents[task.agent]!.owner;
  const outcome: RunStepOutcome<unknown> = await runStep(
    { db: context.db },
    {
      taskId: task.taskId,
      agent: task.agent,
      owner,
      step: spec.step,
      queue: task.agent,
      content: { taskId: task.taskId, agent: task.agent, step: spec.step },
      downstreamIdempotent: spec.downstreamIdempotent,
      inProgressTtlMs: context.timing.keyTtlMs,
      retryAllowance: 4,
      final,
    },
    async (attempt) => {
      context.tally.attempts += 1;
      const fault = faultFor(context.seed, task.taskId, spec.step, attempt.attemptNumber, spec.kind);
      failBeforeActing(fault);
      const output = await spec.act(context, task, attempt);
      failOnOutput(fault, output.costMicros);
      await afterActing(fault, context.timing, context.stopping);
      return output;
    },
  );
  return verdictOf(outcome, context.tally);
}
