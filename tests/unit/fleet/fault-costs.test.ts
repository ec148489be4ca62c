import { describe, expect, it } from 'vitest';
import { failBeforeActing, failOnOutput } from '../../../lib/fleet/faults';
import { classifyFailure } from '../../../packages/protocol/src/steps/step-error';

/** What the demo fleet's failures report as their cost: a refused call nothing, a model answer that failed its tokens. */
const failureOf = (fail: () => void) => {
  try {
    fail();
  } catch (error) {
    return classifyFailure(error);
  }
  throw new Error('expected the fault to throw');
};

describe("the demo fleet's failures", () => {
  it('report a refused call (429, 503, 400) at no cost', () => {
    for (const fault of ['rate_limited', 'transient', 'permanent'] as const)
      expect(failureOf(() => failBeforeActing(fault))).toMatchObject({ errorClass: fault, costMicros: 0 });
  });

  it('report an invalid output with the tokens the model call consumed', () => {
    expect(failureOf(() => failOnOutput('invalid_output', 4_321))).toMatchObject({
      errorClass: 'invalid_output',
      costMicros: 4_321,
    });
    // Any other fault lets the answer through.
    expect(() => failOnOutput('none', 4_321)).not.toThrow();
    expect(() => failBeforeActing('invalid_output')).not.toThrow();
  });
});
