import type { BreakerScope } from '../../db/schema';

export interface BreakerTarget {
  /** `step:<agent>/<step>` or `downstream:<agent>/<name>`: the breaker's key. */
  target: string;
  scope: BreakerScope;
  agent: string;
  step: string | null;
  downstream: string | null;
}

/** The key of an agent's step breaker. */
export function stepBreakerKey(agent: string, step: string): string {
  return `step:${agent}/${step}`;
}

/**
 * The key of an agent's breaker for a downstream. Downstream names are free text any agent may state, so each
 * agent has its own breaker per downstream: only its own failures open it and only its own probes close it, and no
 * tenant can stall another's work by naming the same downstream (docs/operations/security.md, Circuit breakers).
 * Names hold no slash (packages/protocol/src/names.ts), so the key reads back one way.
 */
export function downstreamBreakerKey(agent: string, downstream: string): string {
  return `downstream:${agent}/${downstream}`;
}

/** The breakers an attempt answers to: its step's, and its agent's for its downstream when its begin named one. */
export function breakerTargetsOf(attempt: {
  agent: string;
  step: string;
  downstream?: string | null;
}): BreakerTarget[] {
  const targets: BreakerTarget[] = [
    {
      target: stepBreakerKey(attempt.agent, attempt.step),
      scope: 'step',
      agent: attempt.agent,
      step: attempt.step,
      downstream: null,
    },
  ];
  if (attempt.downstream) {
    targets.push({
      target: downstreamBreakerKey(attempt.agent, attempt.downstream),
      scope: 'downstream',
      agent: attempt.agent,
      step: null,
      downstream: attempt.downstream,
    });
  }
  return targets;
}

/**
 * What people read for a target: `agent/step`, or the downstream's name. A downstream breaker only ever holds its
 * own agent's begins, so the agent that waits on it knows whose it is; the console and alerts show the agent too.
 */
export function breakerTargetLabel(target: string): string {
  return target.startsWith('step:') ? target.slice('step:'.length) : target.replace(/^downstream:(?:[^/]*\/)?/, '');
}
