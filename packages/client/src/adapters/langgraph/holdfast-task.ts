import { getConfig, type LangGraphRunnableConfig, task, type TaskOptions } from '@langchain/langgraph';
import { contentHash, iterationOfHash } from '../content-key';
import { runOneAttempt } from './one-attempt';
import { holdfastRetryPolicy } from './retry-policy';
import { revivedOf, storableOf } from './stored-result';
import { stepNameOf } from '../step-name';
import { type HoldfastConnection, taskOf } from './task-source';

export interface HoldfastTaskOptions<Args extends unknown[]> extends HoldfastConnection {
  /** The step's name (default: the task's name). */
  step?: string;
  /**
   * What a call works on (default: its arguments). It names the call's key (`<task>/<step>#<n>`, `n`
   * from its hash), so the same call in a re-run is the same key and different calls in one run are
   * not; and it guards the key.
   */
  content?: (...args: Args) => unknown;
  /** `content` (the default), or `step`: the task runs once per Holdfast task whatever its arguments. */
  keyBy?: 'content' | 'step';
  /** False for a downstream that cannot deduplicate: an interrupted attempt is then held, never repeated. */
  downstreamIdempotent?: boolean;
  inProgressTtlMs?: number;
  estimatedCostMicros?: number;
  /** The model the node calls (`gpt-4o-mini`), if one: that model's spend budgets reserve its estimate too. */
  model?: string;
  /** LangGraph's other task options (cache, timeout); its retry is always holdfastRetryPolicy. */
  taskOptions?: Omit<TaskOptions, 'name' | 'retry'>;
}

/**
 * A LangGraph `task` whose every call is a Holdfast step: called in an entrypoint or a graph node, it
 * begins the step (gated by the task's allowance, spend ceiling and deadline), runs the function only
 * when Holdfast says run, stores its result, and hands that result to any later call with the same key
 * in any thread or process. Failures go through holdfastRetryPolicy: Holdfast decides the retry and its
 * delay; a stop raises HoldfastStepStopped. The function fails by throwing StepError with its class;
 * anything else is `unknown`, which Holdfast never retries.
 */
export function holdfastTask<Args extends unknown[], Output>(
  name: string,
  fn: (...args: Args) => Promise<Output> | Output,
  options: HoldfastTaskOptions<Args>,
): (...args: Args) => Promise<Output> {
  const guarded = async (...args: Args): Promise<Output> => {
    // Tasks get no config argument; LangGraph keeps the running one for getConfig().
    const config: LangGraphRunnableConfig = getConfig();
    const content = options.content ? options.content(...args) : args;
    const { result } = await runOneAttempt(
      options,
      {
        ...taskOf(options.task, config),
        step: options.step ?? stepNameOf(name),
        ...(options.keyBy === 'step' ? {} : { iteration: iterationOfHash(await contentHash(content)) }),
        content,
        downstreamIdempotent: options.downstreamIdempotent,
        inProgressTtlMs: options.inProgressTtlMs,
        estimatedCostMicros: options.estimatedCostMicros,
        model: options.model,
      },
      async () => ({ result: storableOf(await fn(...args)) }),
      config.signal,
    );
    return revivedOf<Output>(result);
  };
  // LangGraph's TaskFunc type is conditional on the output type, which a generic wrapper cannot settle.
  return task({ ...options.taskOptions, name, retry: holdfastRetryPolicy }, guarded as never) as (
    ...args: Args
  ) => Promise<Output>;
}
