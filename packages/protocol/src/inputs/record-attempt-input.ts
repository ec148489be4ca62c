import { z } from 'zod';
import { errorClasses } from '../enums';
import { agentName, stepName } from '../names';
import { attemptCostMicros } from '../money-limits';
import { modelUsageFields } from './model-usage-input';

/**
 * A moment: a Date in-process, or an ISO 8601 date-time with its offset over
 * the API. Numbers and null are refused rather than read as 1970.
 */
const moment = z
  .union([
    z.date(),
    z.iso.datetime({
      offset: true,
      message: 'must be an ISO 8601 date-time with its offset, e.g. 2026-11-30T10:00:00Z',
    }),
  ])
  .transform((value) => new Date(value));

/** latency_ms is a 32-bit integer: about 24.8 days. */
const LONGEST_ATTEMPT_MS = 2 ** 31 - 1;

export const recordAttemptInput = z
  .strictObject({
    taskId: z.string().trim().min(1, 'must not be blank').max(200, 'must be at most 200 characters'),
    agent: agentName,
    step: stepName,
    attemptNumber: z.number().int().min(1, 'must be 1 or more (1 is the primary attempt)').max(10_000),
    startedAt: moment,
    finishedAt: moment,
    outcome: z.enum(['succeeded', 'failed']),
    errorClass: z.enum(errorClasses).optional(),
    errorText: z.string().max(10_000, 'must be at most 10,000 characters').optional(),
    /** Micro-dollars: 1 USD = 1,000,000. Absent: priced from `usage` and `model` if given, else 0. */
    costMicros: attemptCostMicros.optional(),
    ...modelUsageFields,
    idempotencyKey: z.string().min(1).max(500).optional(),
    runKey: z.string().min(1).max(200).optional(),
  })
  .superRefine((attempt, context) => {
    // zod runs this even when a field already failed; compare only two real moments.
    if (!(attempt.startedAt instanceof Date) || !(attempt.finishedAt instanceof Date)) return;
    if (attempt.finishedAt.getTime() < attempt.startedAt.getTime()) {
      context.addIssue({ code: 'custom', path: ['finishedAt'], message: 'must not be before startedAt' });
    }
    if (attempt.finishedAt.getTime() - attempt.startedAt.getTime() > LONGEST_ATTEMPT_MS) {
      context.addIssue({ code: 'custom', path: ['finishedAt'], message: 'must be within 24 days of startedAt' });
    }
    if (attempt.outcome === 'failed') {
      if (!attempt.errorClass) {
        context.addIssue({ code: 'custom', path: ['errorClass'], message: 'is required for a failed attempt' });
      }
      if (!attempt.errorText || attempt.errorText.trim() === '') {
        context.addIssue({
          code: 'custom',
          path: ['errorText'],
          message: 'is required for a failed attempt: a failure with a blank error text cannot be triaged',
        });
      }
    } else if (attempt.errorClass) {
      context.addIssue({ code: 'custom', path: ['errorClass'], message: 'must be absent for a succeeded attempt' });
    }
  });

export type RecordAttemptInput = z.input<typeof recordAttemptInput>;
