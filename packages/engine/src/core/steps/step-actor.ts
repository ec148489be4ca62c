import { authorize, can } from '../identity/authorization';
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

/**
 * Whether the caller may coordinate agents' work at all, before knowing which agent: for a statement that applies
 * a token's agent and queue limits itself (finish-writes.ts). A worker in-process (no actor) may.
 */
export function mayCoordinate(ctx: CoreContext): boolean {
  return ctx.actor === undefined || can(ctx.actor, 'agent.coordinate', {});
}
