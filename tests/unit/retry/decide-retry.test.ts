import { describe, expect, it } from 'vitest';
import { classifyFailure, StepError } from '../../../packages/engine/src/core';
import { decideRetry } from '../../../packages/engine/src/core/retry/decide-retry';

const policy = { baseDelayMs: 100, maxDelayMs: 1_000 };
const always = (value: number) => () => value;

describe('decideRetry', () => {
  it.each(['permanent', 'unknown'] as const)('never retries %s errors', (errorClass) => {
    expect(decideRetry({ errorClass, attemptNumber: 1, invalidOutputRetries: 0 }, policy)).toEqual({
      retry: false,
      reason: errorClass,
    });
  });

  it('gives invalid output one corrective retry, no more', () => {
    expect(decideRetry({ errorClass: 'invalid_output', attemptNumber: 1, invalidOutputRetries: 0 }, policy)).toEqual({
      retry: true,
      delayMs: 0,
    });
    expect(decideRetry({ errorClass: 'invalid_output', attemptNumber: 2, invalidOutputRetries: 1 }, policy)).toEqual({
      retry: false,
      reason: 'corrective_retry_used',
    });
  });

  it('draws the delay uniformly below a ceiling that doubles per attempt and is capped', () => {
    const delay = (attemptNumber: number, draw: number) =>
      decideRetry({ errorClass: 'transient', attemptNumber, invalidOutputRetries: 0 }, policy, always(draw));
    expect(delay(1, 0.999)).toEqual({ retry: true, delayMs: 99 });
    expect(delay(2, 0.999)).toEqual({ retry: true, delayMs: 199 });
    expect(delay(3, 0.5)).toEqual({ retry: true, delayMs: 200 });
    expect(delay(10, 0.999)).toEqual({ retry: true, delayMs: 999 });
    expect(delay(3, 0)).toEqual({ retry: true, delayMs: 0 });
  });

  it('never retries a rate limit sooner than its Retry-After', () => {
    expect(
      decideRetry(
        { errorClass: 'rate_limited', attemptNumber: 1, invalidOutputRetries: 0, retryAfterMs: 5_000 },
        policy,
        always(0.5),
      ),
    ).toEqual({ retry: true, delayMs: 5_000 });
  });

  it('spreads many workers over the window rather than retrying in step', () => {
    const delays = Array.from({ length: 1_000 }, () =>
      decideRetry({ errorClass: 'timeout', attemptNumber: 4, invalidOutputRetries: 0 }, policy),
    );
    const values = delays.map((decision) => (decision.retry ? decision.delayMs : -1));
    expect(Math.min(...values)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...values)).toBeLessThan(800);
    expect(new Set(values).size).toBeGreaterThan(300);
  });
});

describe('classifyFailure', () => {
  it('keeps the class a step declared, and calls anything else unknown', () => {
    expect(classifyFailure(new StepError('rate_limited', '429', { retryAfterMs: 2_000 }))).toMatchObject({
      errorClass: 'rate_limited',
      retryAfterMs: 2_000,
    });
    expect(classifyFailure(new TypeError('x is undefined'))).toMatchObject({
      errorClass: 'unknown',
      errorText: 'TypeError: x is undefined',
    });
    expect(classifyFailure(new StepError('transient', '   ')).errorText).not.toBe('');
  });
});
