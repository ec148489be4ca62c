import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { InvalidInputError } from '../../../packages/engine/src/core';
import { taskBudgetInput } from '@holdfast/protocol/inputs/task-budget-input';
import { claimRedrivesInput } from '@holdfast/protocol/inputs/drain-redrives-input';
import { deadLetterInput } from '@holdfast/protocol/inputs/dead-letter-task-input';
import { createApiTokenInput } from '../../../packages/engine/src/core/identity/api-tokens-input';
import { claimKeyInput } from '@holdfast/protocol/inputs/claim-key-input';
import { agentName, poolStepName, queueName, stepName } from '@holdfast/protocol/names';
import { recordAttemptInput } from '@holdfast/protocol/inputs/record-attempt-input';
import { saveRetryPoolInput } from '../../../packages/engine/src/core/retry-pools/manage-pools-input';
import { startRunInput } from '@holdfast/protocol/inputs/runs-input';
import { beginStepInput } from '@holdfast/protocol/steps/step-protocol';
import { parseInput } from '@holdfast/protocol/validation';
import { generateDemoAttempts } from '../../../lib/demo/seed-attempts';
import { agents as fleetAgents } from '../../../lib/fleet/agents';
import { anAttempt } from '../../support/attempt-factory';

/** Each library entry point's schema with a valid input, and the name fields it takes. */
const schemas: { name: string; schema: z.ZodType; input: () => Record<string, unknown>; fields: string[] }[] = [
  { name: 'recordAttempt', schema: recordAttemptInput, input: () => ({ ...anAttempt() }), fields: ['agent', 'step'] },
  {
    name: 'beginStep',
    schema: beginStepInput,
    input: () => ({
      taskId: 't',
      agent: 'research',
      queue: 'research',
      owner: 'team:platform',
      step: 'plan',
      content: { q: 1 },
    }),
    fields: ['agent', 'step', 'queue'],
  },
  {
    name: 'ensureTaskBudget',
    schema: taskBudgetInput,
    input: () => ({ taskId: 't', agent: 'research', queue: 'research', owner: 'team:platform' }),
    fields: ['agent', 'queue'],
  },
  {
    name: 'deadLetterTask',
    schema: deadLetterInput,
    input: () => ({
      taskId: 't',
      agent: 'payments',
      step: 'charge_card',
      queue: 'payments',
      payload: {},
      reason: 'permanent_error',
      errorClass: 'permanent',
      lastError: 'declined',
      attempts: 1,
      spendMicros: 0,
      owner: 'team:platform',
    }),
    fields: ['agent', 'step', 'queue'],
  },
  {
    name: 'startRun',
    schema: startRunInput,
    input: () => ({ runKey: 'r', taskId: 't', agent: 'publishing' }),
    fields: ['agent'],
  },
  {
    name: 'claimKey',
    schema: claimKeyInput,
    input: () => ({ key: 'k', requestHash: 'h', taskId: 't', step: 'publish' }),
    fields: ['step'],
  },
  { name: 'claimRedrives', schema: claimRedrivesInput, input: () => ({ queues: ['payments'] }), fields: ['queues.0'] },
  {
    name: 'saveRetryPool',
    schema: saveRetryPoolInput,
    input: () => ({
      agent: 'outreach',
      step: 'send_email',
      budgetPercent: 20,
      minRetriesPerSecond: 0.2,
      windowSeconds: 60,
      reason: 'r',
    }),
    fields: ['agent', 'step'],
  },
  {
    name: 'createApiToken',
    schema: createApiTokenInput,
    input: () => ({ name: 'a token', scopes: ['ingest'], allowedAgents: ['research'], allowedQueues: ['research'] }),
    fields: ['allowedAgents.0', 'allowedQueues.0'],
  },
];

function withField(input: Record<string, unknown>, path: string, value: string): Record<string, unknown> {
  const parts = path.split('.');
  let target: Record<string, unknown> = input;
  for (const part of parts.slice(0, -1)) target = target[part] as Record<string, unknown>;
  target[parts.at(-1)!] = value;
  return input;
}

function fieldErrorsOf(schema: z.ZodType, input: unknown): Record<string, string[]> {
  try {
    parseInput(schema, input);
  } catch (error) {
    if (error instanceof InvalidInputError) return error.fieldErrors;
    throw error;
  }
  throw new Error('expected the input to be refused');
}

const badNames = [
  'draft\nemail',
  'draft"email',
  "draft'email",
  'draft\u202Eemail',
  'two words',
  'a/b',
  '-lead',
  'x'.repeat(101),
];
const cases = schemas.flatMap(({ name, schema, input, fields }) =>
  fields.flatMap((field) => badNames.map((bad) => ({ name, schema, input, field, bad }))),
);

describe('the name rule of every library entry point', () => {
  it.each(schemas)('$name accepts its valid input', ({ schema, input }) => {
    expect(() => parseInput(schema, input())).not.toThrow();
  });

  it.each(cases)('$name refuses $field = $bad, naming that field alone', ({ schema, input, field, bad }) => {
    expect(Object.keys(fieldErrorsOf(schema, withField(input(), field, bad)))).toEqual([field]);
  });

  it('keeps every name the demo fleet and its history use valid', () => {
    const names = new Set<string>();
    for (const attempt of generateDemoAttempts(new Date('2026-11-20T12:00:00Z'))) {
      expect(agentName.safeParse(attempt.agent).success).toBe(true);
      expect(stepName.safeParse(attempt.step).success).toBe(true);
      names.add(`${attempt.agent}/${attempt.step}`);
    }
    expect(names.size).toBeGreaterThan(5);
    for (const [agent, { steps }] of Object.entries(fleetAgents)) {
      // The fleet's queue is its agent's name.
      expect(agentName.parse(agent)).toBe(agent);
      expect(queueName.parse(agent)).toBe(agent);
      for (const { step } of steps) expect(stepName.parse(step)).toBe(step);
    }
    expect(poolStepName.parse('*')).toBe('*');
    for (const name of ['draft_email', 'send-email.v2', 'ns:step', 'Step9', '7th'])
      expect(stepName.parse(name)).toBe(name);
  });
});
