import { runStep, type HoldfastClient } from '@holdfast/client';
import type { AgentContext, FleetTask, StepVerdict } from './agents';
import { failBeforeActing, failOnOutput, faultFor } from './faults';
import { callModel } from './model';
import { verdictOf } from './verdict';

/**
 * The research agent works through the HTTP API only, as an agent written in
 * another language would: each step is begun and finished through the step
 * protocol (the typed client's runStep), so Holdfast decides every retry and
 * every stop for it exactly as it does for the in-process agents.
 */
export type RemoteStep = 'plan' | 'dispatch' | 'summarize';

/** A research task plans, then dispatches two sub-agents; each sub-agent summarizes one part. */
export function remoteStepsOf(task: FleetTask): RemoteStep[] {
  return task.parentTaskId ? ['summarize'] : ['plan', 'dispatch'];
}

/** The sub-agents' tasks: their ids derive from the parent's, so dispatching twice asks for the same work. */
export function subAgentTasks(task: FleetTask): FleetTask[] {
  return [1, 2].map((part) => ({
    taskId: `${task.taskId}.part-${part}`,
    agent: task.agent,
    parentTaskId: task.taskId,
  }));
}

export interface RemoteContext extends AgentContext {
  client: HoldfastClient;
  /** Puts sub-agent tasks on the queue. */
  dispatch: (tasks: FleetTask[]) => Promise<void>;
}

export async function runRemoteStep(
  context: RemoteContext,
  task: FleetTask,
  step: RemoteStep,
  final = false,
): Promise<StepVerdict> {
  const outcome = await runStep<unknown>(
    context.client,
    {
      taskId: task.taskId,
      agent: task.agent,
      owner: 'team:platform',
      // A sub-agent's task names its parent, so each task's page links the other.
      ...(task.parentTaskId ? { parentTaskId: task.parentTaskId } : {}),
      step,
      queue: task.agent,
      content: { taskId: task.taskId, agent: task.agent, step },
      inProgressTtlMs: context.timing.keyTtlMs,
      retryAllowance: 4,
      final,
    },
    async (attempt) => {
      context.tally.attempts += 1;
      const fault = faultFor(context.seed, task.taskId, step, attempt.attemptNumber, 'model');
      failBeforeActing(fault);
      if (step === 'dispatch') {
        // Guarded by this step's key, and the sub-tasks' ids are derived: a repeat dispatch asks for the same work.
        const subTasks = subAgentTasks(task);
        await context.dispatch(subTasks);
        return { result: { dispatched: subTasks.map((sub) => sub.taskId) }, costMicros: 0 };
      }
      const call = callModel(context.seed, task.taskId, step, attempt.attemptNumber, `Research step ${step}`);
      failOnOutput(fault, call.costMicros);
      return { result: { text: call.text }, costMicros: call.costMicros };
    },
  );
  return verdictOf(outcome, context.tally);
}
