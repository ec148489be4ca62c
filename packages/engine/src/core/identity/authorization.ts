import type { Actor, CoreContext } from '../kernel/context';
import { requireActor } from '../kernel/context';
import { ForbiddenError } from '@holdfast/protocol/errors';

import { actions, type Action } from '@holdfast/protocol/actions';

export { actions, type Action };

/**
 * What an action is about: its owner where ownership matters (holds), and the
 * agent and queue it acts for, which a token's limits may exclude.
 */
export interface ActionTarget {
  owner?: string;
  agent?: string | null;
  queue?: string | null;
}

export type Decision = { allowed: true } | { allowed: false; reason: string };

const allow: Decision = { allowed: true };
const deny = (reason: string): Decision => ({ allowed: false, reason });

/** The owners a person answers for: themselves and each of their teams. */
export function ownersOf(actor: Extract<Actor, { type: 'person' }>): string[] {
  return [`person:${actor.id}`, ...actor.teams.map((team) => `team:${team}`)];
}

/**
 * The one place that decides who may do what.
 * - viewer: reads everything; clears or reassigns only holds owned by them or their teams.
 * - responder (on-call): also any hold, dead letters (redrive, discard), forced lock releases, pauses, acknowledging and silencing alerts.
 * - admin: also kill switches, retry pools, breaker settings, step retry policies, MCP tool controls, spend budgets, people, API tokens, alert rules and channels, overriding the redrive brakes, and releasing a stale lock its guards refuse.
 * Agents act through their token's scopes (ingest: report attempts and open holds; read; metrics: scrape;
 * traces: export OpenTelemetry spans).
 * The system (sweeps) may do what its jobs need.
 */
export function decide(actor: Actor, action: Action, target: ActionTarget = {}): Decision {
  if (actor.type === 'system') return allow;
  if (actor.type === 'agent') {
    // A scraper's token needs only the metrics scope; a token that may read the console may scrape too.
    if (action === 'metrics.read') {
      return actor.scopes.includes('metrics') || actor.scopes.includes('read')
        ? allow
        : deny('this token lacks the metrics scope');
    }
    // An exporter's token needs only the traces scope; one that may record attempts may export them as spans.
    if (action === 'traces.write') {
      return actor.scopes.includes('traces') || actor.scopes.includes('ingest')
        ? decideTokenLimits(actor, target)
        : deny('this token lacks the traces scope');
    }
    const scope =
      action === 'console.read'
        ? 'read'
        : action === 'attempt.record' || action === 'hold.open' || action === 'agent.coordinate'
          ? 'ingest'
          : undefined;
    if (!scope) return deny('agents may not do this');
    if (!actor.scopes.includes(scope)) return deny(`this token lacks the ${scope} scope`);
    return decideTokenLimits(actor, target);
  }
  switch (action) {
    case 'console.read':
    case 'metrics.read':
      return allow;
    case 'attempt.record':
    case 'traces.write':
      return deny('attempts are reported by agents, with an API token');
    case 'agent.coordinate':
      return deny('agents coordinate their work with an API token');
    case 'hold.clear':
    case 'hold.reassign':
      if (actor.role !== 'viewer') return allow;
      if (target.owner && ownersOf(actor).includes(target.owner)) return allow;
      return deny('viewers may act only on holds owned by them or their teams');
    case 'hold.open':
    case 'dead_letter.redrive':
    case 'dead_letter.discard':
    case 'key.resolve':
    case 'slot.force_release':
    case 'step.pause':
    case 'alert.acknowledge':
    case 'alert.silence':
    case 'alert.silence.end':
      return actor.role === 'viewer' ? deny('this needs the responder or admin role') : allow;
    case 'dead_letter.redrive_override':
    case 'slot.override_release':
    case 'kill_switch.set':
    case 'retry_pool.manage':
    case 'breaker.manage':
    case 'retry_policy.manage':
    case 'owner.manage':
    case 'pricing.manage':
    case 'mcp_tools.manage':
    case 'spend_budget.manage':
    case 'people.manage':
    case 'api_token.manage':
    case 'alerts.manage':
      return actor.role === 'admin' ? allow : deny('this needs the admin role');
  }
}

/**
 * A token's limits: when it names agents or queues, it acts only for those.
 * A target that names no agent (or no queue) is not excluded by that limit:
 * the operation names none (a raw key with no task), so there is nothing to compare.
 */
export function decideTokenLimits(actor: Actor, target: ActionTarget): Decision {
  if (actor.type !== 'agent') return allow;
  if (actor.allowedAgents && target.agent != null && !actor.allowedAgents.includes(target.agent)) {
    return deny(`this token may act only for agents ${actor.allowedAgents.join(', ')}, not "${target.agent}"`);
  }
  if (actor.allowedQueues && target.queue != null && !actor.allowedQueues.includes(target.queue)) {
    return deny(`this token may act only on queues ${actor.allowedQueues.join(', ')}, not "${target.queue}"`);
  }
  return allow;
}

/** True when the actor is a token limited to some agents or queues: only then is a target worth looking up. */
export function hasTokenLimits(actor: Actor | undefined): actor is Extract<Actor, { type: 'agent' }> {
  return actor?.type === 'agent' && (actor.allowedAgents !== undefined || actor.allowedQueues !== undefined);
}

/**
 * The check every agent operation makes for the agent and queue it acts for,
 * in-process and over HTTP alike. `target` may be a lookup (the agent of a
 * task, a run or a key): it runs only for a limited token, so unlimited
 * callers and workers without an actor pay no extra query. Refuses with
 * FORBIDDEN. A target the request named is refused naming the limit; a stored
 * one (a lookup, or `stored`) only as "not yours": naming its agent or queue
 * would tell a limited token whose an id is.
 */
export async function enforceTokenLimits(
  ctx: CoreContext,
  target: ActionTarget | (() => Promise<ActionTarget>),
  options: { stored?: boolean } = {},
): Promise<void> {
  const actor = ctx.actor;
  if (!hasTokenLimits(actor)) return;
  const lookedUp = typeof target === 'function';
  const resolved = lookedUp ? await target() : target;
  const decision = decideTokenLimits(actor, resolved);
  if (decision.allowed) return;
  if (lookedUp || options.stored) throw new ForbiddenError(NOT_YOURS);
  throw new ForbiddenError(`${actor.type}:${actor.id} may not act here: ${decision.reason}`);
}

/** The refusal of a stored task, run or key outside a token's limits: whose it is stays unsaid. */
export const NOT_YOURS = "Not yours: this task, run or key belongs to an agent or queue outside this token's limits";

export function can(actor: Actor, action: Action, target?: ActionTarget): boolean {
  return decide(actor, action, target).allowed;
}

/** Refuses with FORBIDDEN unless ctx.actor may do the action; library operations call it first. */
export function authorize(ctx: CoreContext, action: Action, target?: ActionTarget): Actor {
  const actor = requireActor(ctx);
  const decision = decide(actor, action, target);
  if (!decision.allowed) throw new ForbiddenError(`${actor.type}:${actor.id} may not ${action}: ${decision.reason}`);
  return actor;
}
