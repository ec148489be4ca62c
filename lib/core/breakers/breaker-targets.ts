import type { BreakerScope } from '../../db/schema';

export interface BreakerTarget {
  /** `step:<agent>/<step>` or `downstream:<name>`: the breaker's key. */
  target: string;
  scope: BreakerScope;
  agent: string | null;
  step: string | null;
  downstream: string | null;
}

/** The breakers an attempt answers to: its step's, and its downstream's when its begin named one. */
export function breakerTargetsOf(attempt: {
  agent: string;
  step: string;
  downstream?: string | null;
}): BreakerTarget[] {
  const targets: BreakerTarget[] = [
    {
      target: `step:${attempt.agent}/${attempt.step}`,
      scope: 'step',
      agent: attempt.agent,
      step: attempt.step,
      downstream: null,
    },
  ];
  if (attempt.downstream) {
    targets.push({
      target: `downstream:${attempt.downstream}`,
      scope: 'downstream',
      agent: null,
      step: null,
      downstream: attempt.downstream,
    });
  }
  return targets;
}

/** What people read for a target: `agent/step`, or the downstream's name. */
export function breakerTargetLabel(target: string): string {
  return target.replace(/^(step|downstream):/, '');
}
