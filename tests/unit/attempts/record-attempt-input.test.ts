import { describe, expect, it } from 'vitest';
import { InvalidInputError, recordAttemptInput } from '../../../packages/engine/src/core';
import { parseInput } from '@holdfast/protocol/validation';
import { aFailedAttempt, anAttempt } from '../../support/attempt-factory';

function fieldErrorsOf(input: unknown) {
  try {
    parseInput(recordAttemptInput, input);
  } catch (error) {
    if (error instanceof InvalidInputError) return error.fieldErrors;
    throw error;
  }
  throw new Error('expected the input to be rejected');
}

describe('recordAttempt input', () => {
  it('accepts a succeeded attempt and ISO date strings', () => {
    const parsed = parseInput(recordAttemptInput, {
      ...anAttempt(),
      startedAt: '2026-11-20T10:00:00Z',
      finishedAt: '2026-11-20T10:00:02Z',
    });
    expect(parsed.finishedAt.getTime() - parsed.startedAt.getTime()).toBe(2_000);
  });

  it.each([[''], ['   '], ['\n\t']])('rejects a failed attempt whose error text is %j', (errorText) => {
    expect(fieldErrorsOf(aFailedAttempt({ errorText }))).toHaveProperty('errorText');
  });

  it('rejects a failed attempt with no error text or class', () => {
    const errors = fieldErrorsOf(anAttempt({ outcome: 'failed' }));
    expect(Object.keys(errors).sort()).toEqual(['errorClass', 'errorText']);
  });

  it('rejects an error class on a succeeded attempt', () => {
    expect(fieldErrorsOf(anAttempt({ errorClass: 'timeout' }))).toHaveProperty('errorClass');
  });

  it('lists every bad field at once', () => {
    const errors = fieldErrorsOf({
      ...anAttempt(),
      agent: 'has spaces',
      attemptNumber: 0,
      costMicros: -5,
      finishedAt: new Date('2026-11-20T09:00:00Z'),
    });
    expect(Object.keys(errors).sort()).toEqual(['agent', 'attemptNumber', 'costMicros', 'finishedAt']);
  });

  it('refuses unknown fields rather than dropping them silently', () => {
    expect(fieldErrorsOf({ ...anAttempt(), retries: 3 })).toHaveProperty(['(input)']);
  });

  it('rejects a fractional cost: money is integer micro-dollars', () => {
    expect(fieldErrorsOf(anAttempt({ costMicros: 1.5 }))).toHaveProperty('costMicros');
  });
});
