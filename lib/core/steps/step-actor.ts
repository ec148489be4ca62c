import { authorize } from '../identity/authorization';
import type { Actor, CoreContext } from '../kernel/context';

/**
 * Who runs a step: the caller's actor (an API token's agent), or, for a
 * worker calling the library in-process, the agent itself with the ingest
 * scope. Either way it must be allowed to coordinate an agent's work, for
 * this agent and queue (a token's limits).
 */
export function stepActor(ctx: CoreContext, agent: string, queue: string | null): Actor {
  const actor: Actor = ctx.actor ?? { type: 'agent', id: agent, scopes: ['ingest'] };
  return authorize({ ...ctx, actor }, 'agent.coordinate', { agent, queue });
}
