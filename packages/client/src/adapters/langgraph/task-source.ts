import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import type { BeginStepInput, HoldfastClient } from '../..';
import type { Sleep, StepError } from '../step-loop';

/**
 * The Holdfast task a graph run works for: the caller's stable id for the unit of work (the queue
 * message, the order), not the LangGraph thread. A new thread for the same work (a redelivery, a
 * person's re-run) names the same task and so derives the same keys.
 */
export type HoldfastTask = Pick<
  BeginStepInput,
  'taskId' | 'agent' | 'owner' | 'queue' | 'retryAllowance' | 'spendCeilingMicros' | 'timeAllowanceMs' | 'runKey'
>;

/** Where a wrapper finds its task: fixed, from the run's config, or (by default) `configurable.holdfastTask`. */
export type TaskSource = HoldfastTask | ((config: LangGraphRunnableConfig) => HoldfastTask);

export interface HoldfastConnection {
  client: HoldfastClient;
  /** The task, if not `configurable.holdfastTask` of the run's config. */
  task?: TaskSource;
  /** How a Holdfast delay is sat out (default: a timer). Tests pass one that records and returns. */
  sleep?: Sleep;
  /** The longest single delay sat out in-process; a longer one raises HoldfastStepWaiting (default 5 minutes). */
  maxWaitMs?: number;
  /**
   * How a failure is classed. By default a StepError keeps its class and anything else is `unknown`, which
   * Holdfast never retries; return a StepError to say more (step-loop's stepErrorOfHttpFailure reads an
   * HTTP status), or undefined to keep the default.
   */
  classifyError?: (error: unknown) => StepError | undefined;
}

export function taskOf(source: TaskSource | undefined, config: LangGraphRunnableConfig): HoldfastTask {
  if (typeof source === 'function') return source(config);
  if (source) return source;
  const configured = (config.configurable as { holdfastTask?: HoldfastTask } | undefined)?.holdfastTask;
  if (!configured?.taskId) {
    throw new Error(
      'no Holdfast task: pass `task` to the wrapper, or invoke the graph with configurable.holdfastTask ({ taskId, agent, owner })',
    );
  }
  return configured;
}
