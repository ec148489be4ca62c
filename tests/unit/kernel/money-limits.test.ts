import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { buildOpenApiDocument } from '../../../lib/api/openapi';
import { InvalidInputError, recordAttemptInput } from '../../../packages/engine/src/core';
import { taskBudgetInput } from '@holdfast/protocol/inputs/task-budget-input';
import { MAX_ATTEMPT_COST_MICROS, MAX_TASK_SPEND_MICROS } from '@holdfast/protocol/money-limits';
import { beginStepInput, finishStepInput } from '@holdfast/protocol/steps/step-protocol';
import { parseInput } from '@holdfast/protocol/validation';
import { anAttempt } from '../../support/attempt-factory';

/** The field errors parseInput throws for the input, or null when it is accepted. */
function fieldErrorsOf(schema: z.ZodType, input: unknown) {
  try {
    parseInput(schema, input);
    return null;
  } catch (error) {
    if (error instanceof InvalidInputError) return error.fieldErrors;
    throw error;
  }
}

const begin = (overrides: Record<string, unknown>) => ({
  taskId: 'task-1',
  agent: 'payments',
  owner: 'team:payments',
  step: 'charge',
  content: { amount: 1 },
  ...overrides,
});
const finish = (overrides: Record<string, unknown>) => ({
  key: 'task-1/charge',
  fencingToken: 1,
  outcome: 'succeeded',
  ...overrides,
});

/** Each cost an agent sends for one attempt: the schema that reads it and an input carrying `micros` there. */
const attemptCosts: Record<string, { schema: z.ZodType; input: (micros: number) => unknown }> = {
  'an attempt report costMicros': { schema: recordAttemptInput, input: (costMicros) => anAttempt({ costMicros }) },
  'a step begin estimatedCostMicros': {
    schema: beginStepInput,
    input: (estimatedCostMicros) => begin({ estimatedCostMicros }),
  },
  'a step finish costMicros': { schema: finishStepInput, input: (costMicros) => finish({ costMicros }) },
};

/** Each place a task's spend ceiling is given. */
const spendCeilings: Record<string, { schema: z.ZodType; input: (micros: number) => unknown }> = {
  'a step begin': { schema: beginStepInput, input: (spendCeilingMicros) => begin({ spendCeilingMicros }) },
  'a task budget': {
    schema: taskBudgetInput,
    input: (spendCeilingMicros) => ({ taskId: 't', agent: 'a', owner: 'team:a', spendCeilingMicros }),
  },
};

describe('the cost limits', () => {
  it('are a million dollars an attempt and a billion a task, in micro-dollars', () => {
    expect(MAX_ATTEMPT_COST_MICROS).toBe(10 ** 12);
    expect(MAX_TASK_SPEND_MICROS).toBe(10 ** 15);
  });

  it.each(Object.keys(attemptCosts))('%s: 10^12 is accepted, 10^12 + 1 refused naming the field', (name) => {
    const { schema, input } = attemptCosts[name]!;
    const field = name.split(' ').at(-1)!;
    expect(fieldErrorsOf(schema, input(MAX_ATTEMPT_COST_MICROS))).toBeNull();
    expect(fieldErrorsOf(schema, input(MAX_ATTEMPT_COST_MICROS + 1))).toEqual({
      [field]: ['must be at most 1,000,000,000,000 micro-dollars (1,000,000 $) per attempt'],
    });
  });

  it.each(Object.keys(spendCeilings))('%s: a spend ceiling of 10^15 is accepted, 10^15 + 1 refused', (name) => {
    const { schema, input } = spendCeilings[name]!;
    expect(fieldErrorsOf(schema, input(MAX_TASK_SPEND_MICROS))).toBeNull();
    expect(fieldErrorsOf(schema, input(MAX_TASK_SPEND_MICROS + 1))).toEqual({
      spendCeilingMicros: ['must be at most 1,000,000,000,000,000 micro-dollars (1,000,000,000 $) per task'],
    });
  });

  it('are the maxima the OpenAPI document shows', () => {
    const document = JSON.stringify(buildOpenApiDocument());
    const maximaOf = (field: string) =>
      [...document.matchAll(new RegExp(`"${field}":\\{[^{}]*?"maximum":(\\d+)`, 'g'))].map((match) => Number(match[1]));
    expect(new Set(maximaOf('costMicros'))).toEqual(new Set([MAX_ATTEMPT_COST_MICROS]));
    expect(new Set(maximaOf('estimatedCostMicros'))).toEqual(new Set([MAX_ATTEMPT_COST_MICROS]));
    expect(new Set(maximaOf('spendCeilingMicros'))).toEqual(new Set([MAX_TASK_SPEND_MICROS]));
  });
});
