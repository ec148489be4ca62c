import { describe, expect, it } from 'vitest';
import { breakerTargetLabel, breakerTargetsOf } from '../../../packages/engine/src/core/breakers/breaker-targets';

describe('breaker targets', () => {
  it("an attempt naming a downstream answers to its step's breaker and its own agent's breaker for the downstream", () => {
    expect(breakerTargetsOf({ agent: 'payments', step: 'charge_card', downstream: 'stripe' })).toEqual([
      { target: 'step:payments/charge_card', scope: 'step', agent: 'payments', step: 'charge_card', downstream: null },
      {
        target: 'downstream:payments/stripe',
        scope: 'downstream',
        agent: 'payments',
        step: null,
        downstream: 'stripe',
      },
    ]);
    expect(breakerTargetsOf({ agent: 'research', step: 'fetch', downstream: 'stripe' })[1]?.target).toBe(
      'downstream:research/stripe',
    );
    expect(breakerTargetsOf({ agent: 'payments', step: 'charge_card' })).toHaveLength(1);
  });

  it('reads as agent/step, or as the downstream the waiting agent named', () => {
    expect(breakerTargetLabel('step:payments/charge_card')).toBe('payments/charge_card');
    expect(breakerTargetLabel('downstream:payments/stripe')).toBe('stripe');
    // A key of the previous release (shared by every agent), should one be read during a rolling upgrade.
    expect(breakerTargetLabel('downstream:stripe')).toBe('stripe');
  });
});
