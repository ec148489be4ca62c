import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import { contentHash, iterationOfHash } from '../content-key';
import { runOneAttempt } from './one-attempt';
import { revivedOf, storableOf } from './stored-result';
import { type HoldfastConnection, taskOf } from './task-source';
import { stepNameOf } from '../step-name';

export interface HoldfastNodeOptions<State> extends HoldfastConnection {
  /** The step's name (default: the node's name in the graph). */
  step?: string;
  /**
   * What the node works on, hashed into the key's guard: a redelivery that works on something else under
   * the same key is a KEY_PAYLOAD_MISMATCH hold. Pick stable fields (an order id), not the whole state:
   * LangGraph gives new messages new random ids, so a re-run's state is never byte-for-byte the first's.
   */
  content?: (state: State, config: LangGraphRunnableConfig) => unknown;
  /**
   * `step` (the default): the node runs once per task, `<task>/<step>`. `content`: once per distinct
   * content (`<task>/<step>#<n>`, `n` from its hash), for a node a loop visits again with other work.
   */
  keyBy?: 'step' | 'content';
  /** False for a downstream that cannot deduplicate: an interrupted attempt is then held, never repeated. */
  downstreamIdempotent?: boolean;
  inProgressTtlMs?: number;
  estimatedCostMicros?: number;
  /** The model the node calls (`gpt-4o-mini`), if one: that model's spend budgets reserve its estimate too. */
  model?: string;
  /** The task's last step: when it succeeds the Holdfast task is completed. */
  final?: boolean;
}

type Node<State, Update> = (state: State, config: LangGraphRunnableConfig) => Promise<Update> | Update;

/**
 * A graph node run as one Holdfast step attempt per invocation. Add it with `holdfastRetryPolicy` as its
 * retry policy: each failure is reported to Holdfast, which decides whether the node runs again and
 * after how long; a completed node's update is stored, so a re-run for the same task (another thread,
 * another process, a redelivered message) gets it back without running the node. A node fails by
 * throwing StepError with its class; anything else is `unknown`, which Holdfast never retries.
 */
export function holdfastNode<State, Update>(
  node: Node<State, Update>,
  options: HoldfastNodeOptions<State>,
): (state: State, config: LangGraphRunnableConfig) => Promise<Update> {
  return async (state, config) => {
    const nodeName = (config.metadata as { langgraph_node?: string } | undefined)?.langgraph_node;
    const content = options.content?.(state, config);
    const byContent = options.keyBy === 'content';
    if (byContent && content === undefined) {
      throw new Error('holdfastNode: keyBy "content" needs a `content` function naming what the node works on');
    }
    const { result } = await runOneAttempt(
      options,
      {
        ...taskOf(options.task, config),
        step: options.step ?? stepNameOf(nodeName),
        ...(byContent ? { iteration: iterationOfHash(await contentHash(content)) } : {}),
        content,
        downstreamIdempotent: options.downstreamIdempotent,
        inProgressTtlMs: options.inProgressTtlMs,
        estimatedCostMicros: options.estimatedCostMicros,
        model: options.model,
        final: options.final,
      },
      async () => ({ result: storableOf(await node(state, config)) }),
      config.signal,
    );
    // The stored form either way, revived: the first run and every replay hand LangGraph the same update.
    return revivedOf<Update>(result);
  };
}
