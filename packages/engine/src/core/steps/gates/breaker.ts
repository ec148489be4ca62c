import type { BeginAnswer } from '@holdfast/protocol/steps/step-protocol';
import { takeProbes, type BreakerFacts } from '../../breakers/breaker-gate';
import type { GateBeforeClaim, GateInClaim, Refusal } from './gate';

/** An open circuit on the step's downstream (or on the step) turns the begin away until its next probe. */
export const circuitOpenGate: GateBeforeClaim = {
  name: 'breaker',
  check({ facts }) {
    const gate = facts.breakerGate;
    return gate.kind === 'open' ? circuitOpen(gate.breaker, gate.retryAfterMs) : undefined;
  },
};

/** A half-open circuit lets its probes through: this begin takes one, or waits while they run. */
export const probeGate: GateInClaim = {
  name: 'probe',
  async take({ tx }, { facts, now }) {
    if (facts.breakerGate.kind !== 'probing') return undefined;
    const refused = await takeProbes(tx, facts.breakerGate.breakers, now);
    return refused ? circuitOpen(refused.breaker, refused.retryAfterMs) : undefined;
  },
};

function circuitOpen(breaker: BreakerFacts, retryAfterMs: number): Refusal {
  return {
    gate: 'breaker',
    answer: async () => circuitOpenWait(breaker, retryAfterMs),
  };
}

/** The wait an open (or half-open, its probes taken) breaker answers, naming the breaker. */
function circuitOpenWait(breaker: BreakerFacts, retryAfterMs: number): BeginAnswer {
  const why =
    breaker.failureShare !== null && breaker.volume !== null
      ? ` (${Math.round(breaker.failureShare * 100)}% of ${breaker.volume} attempts failed as the downstream failing)`
      : '';
  return {
    decision: 'wait',
    code: 'CIRCUIT_OPEN',
    retryAfterMs,
    detail:
      breaker.state === 'open'
        ? `The circuit for ${breaker.target} is open${why}: begin again after the next probe, at ${breaker.probeAt}`
        : `The circuit for ${breaker.target} is half-open and its probes are running: begin again shortly`,
    breaker: {
      target: breaker.target,
      state: breaker.state,
      openedAt: breaker.openedAt,
      probeAt: breaker.probeAt,
      failureShare: breaker.failureShare,
      volume: breaker.volume,
    },
  };
}
