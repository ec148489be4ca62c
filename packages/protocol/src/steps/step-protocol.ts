import { z } from 'zod';
import { budgetInfo, MODEL_NAME_PATTERN } from '../inputs/spend-budget-input';
import { int4 } from '../validation';
import { errorClasses } from '../enums';
import { taskBudgetInput } from '../inputs/task-budget-input';
import { attemptCostMicros } from '../money-limits';
import { modelUsageFields } from '../inputs/model-usage-input';
import { downstreamName, queueName, stepName } from '../names';

/**
 * The step protocol, shared by the in-process runStep, the HTTP API
 * (POST /api/v1/steps/begin and /finish), the OpenAPI document and the
 * clients: one step attempt is *begun* (the engine decides whether it may run)
 * and then *finished* (the engine settles it and decides what comes next).
 * Schemas only: no database code, so clients can import them.
 */

const MAX_CONTENT_BYTES = 256 * 1024;
const HOUR_MS = 3_600_000;

const jsonSize = (value: unknown) => (JSON.stringify(value ?? null) ?? '').length;

export const beginStepInput = z.strictObject({
  ...taskBudgetInput.shape,
  step: stepName,
  /** For steps repeated in a loop: each iteration is its own operation with its own key. */
  iteration: int4(0).optional(),
  /** The step's input. Its hash guards the key; it is kept with a dead letter for redrive. */
  content: z
    .unknown()
    .refine(
      (value) => jsonSize(value) <= MAX_CONTENT_BYTES,
      `must serialise to at most ${MAX_CONTENT_BYTES / 1024} KiB`,
    ),
  /** The queue a redrive puts the task back on; the agent's name when absent. */
  queue: queueName.optional(),
  /** What the step calls (`openai`, `stripe`): a pause of that downstream then holds this step too. */
  downstream: downstreamName.optional(),
  /**
   * The model this step calls, as its provider names it (`gpt-4o-mini`): its budgets reserve the estimate too. A
   * model named only at the finish is counted under them, not reserved.
   */
  model: z
    .string()
    .trim()
    .regex(MODEL_NAME_PATTERN, 'must name a model as its provider does (letters, digits and _ . : / @ + - only)')
    .optional(),
  runKey: z.string().trim().min(1).max(200).optional(),
  /** False for downstreams that cannot deduplicate: an interrupted attempt is then held as uncertain, never repeated. */
  downstreamIdempotent: z.boolean().default(true),
  /** After this a silent attempt is presumed dead and a redelivery may take over (or, downstream not idempotent, it is uncertain). */
  inProgressTtlMs: z
    .number()
    .int()
    .min(10)
    .max(24 * HOUR_MS)
    .default(60_000),
  /** What this attempt is expected to cost, reserved against the task's spend ceiling until it finishes. */
  estimatedCostMicros: attemptCostMicros.optional(),
  /** The task's last step: when it succeeds the task is completed. */
  final: z.boolean().default(false),
});
export type BeginStepInput = z.input<typeof beginStepInput>;
export type BeginStepRequest = z.output<typeof beginStepInput>;

export const finishStepInput = z
  .strictObject({
    key: z.string().trim().min(1).max(500),
    fencingToken: z.number().int().min(1),
    /**
     * The attempt number begin answered. Optional, but send it: when the attempt was
     * superseded (STALE_TOKEN), its end and cost are still recorded by it.
     */
    attemptNumber: int4(1).optional(),
    outcome: z.enum(['succeeded', 'failed']),
    /** The step's result, stored and replayed to every duplicate (succeeded only). */
    result: z
      .unknown()
      .refine(
        (value) => jsonSize(value) <= MAX_CONTENT_BYTES,
        `must serialise to at most ${MAX_CONTENT_BYTES / 1024} KiB`,
      )
      .optional(),
    /**
     * What the attempt really cost, in micro-dollars; it replaces the reservation. Absent: priced
     * from `usage` and `model` if given (packages/engine/src/core/pricing), else 0.
     */
    costMicros: attemptCostMicros.optional(),
    ...modelUsageFields,
    errorClass: z.enum(errorClasses).optional(),
    errorText: z.string().max(10_000).optional(),
    /** A rate limiter's Retry-After: the retry waits at least this long. */
    retryAfterMs: z
      .number()
      .int()
      .min(0)
      .max(24 * HOUR_MS)
      .optional(),
  })
  .superRefine((finish, context) => {
    if (finish.outcome === 'failed') {
      if (!finish.errorClass)
        context.addIssue({ code: 'custom', path: ['errorClass'], message: 'is required for a failed attempt' });
      if (!finish.errorText || finish.errorText.trim() === '') {
        context.addIssue({
          code: 'custom',
          path: ['errorText'],
          message: 'is required for a failed attempt: a failure with a blank error text cannot be triaged',
        });
      }
      if (finish.result !== undefined)
        context.addIssue({ code: 'custom', path: ['result'], message: 'must be absent for a failed attempt' });
    } else {
      if (finish.errorClass)
        context.addIssue({ code: 'custom', path: ['errorClass'], message: 'must be absent for a succeeded attempt' });
      if (finish.errorText)
        context.addIssue({ code: 'custom', path: ['errorText'], message: 'must be absent for a succeeded attempt' });
      if (finish.retryAfterMs !== undefined)
        context.addIssue({ code: 'custom', path: ['retryAfterMs'], message: 'must be absent for a succeeded attempt' });
    }
  });
export type FinishStepInput = z.input<typeof finishStepInput>;
export type FinishStepRequest = z.output<typeof finishStepInput>;

/** Answers that mean "wait and begin again": the same request will be let through later. */
export const waitCodes = [
  'KEY_IN_PROGRESS',
  'RETRY_BUDGET_EXHAUSTED',
  'PAUSED',
  'CIRCUIT_OPEN',
  /** A fleet spend budget covering the step is spent for its period: begin again when it turns. */
  'BUDGET_EXHAUSTED',
] as const;
export type WaitCode = (typeof waitCodes)[number];

/** Answers that mean "stop": beginning again will not help; a person (or a redrive) must act. */
export const stopCodes = [
  'DO_NOT_RETRY',
  'KEY_PAYLOAD_MISMATCH',
  'UNCERTAIN_OUTCOME',
  'TASK_FROZEN',
  'TASK_FINISHED',
] as const;
export type StopCode = (typeof stopCodes)[number];

/** Why a step stopped, machine-readable. */
export const stopReasons = [
  'retry_ceiling',
  'budget_exhausted',
  'deadline_passed',
  'permanent_error',
  'corrective_retry_used',
  'task_dead_lettered',
  'task_frozen',
  'task_finished',
  'payload_mismatch',
  'uncertain_outcome',
] as const;
export type StopReason = (typeof stopReasons)[number];

const allowance = {
  /** Retries the task has left (shared by all its steps). */
  retriesLeft: z.number().int(),
  /** What the task may still reserve or spend, in micro-dollars. */
  spendLeftMicros: z.number().int(),
  /** Milliseconds to the task's deadline. */
  msLeft: z.number().int(),
};

export const stopAnswer = z.object({
  decision: z.literal('stop'),
  code: z.enum(stopCodes),
  reason: z.enum(stopReasons),
  detail: z.string(),
  holdId: z.number().int().optional(),
  deadLetterId: z.number().int().optional(),
  /** The fleet spend budget that stopped the step (reason budget_exhausted), when one did. */
  budget: budgetInfo.optional(),
});
export type StopAnswer = z.infer<typeof stopAnswer>;

/** The pause behind a PAUSED wait: what is paused, why, by whom, and until when (null: until resumed). */
export const pauseInfo = z.object({
  id: z.number().int(),
  target: z.string(),
  reason: z.string(),
  pausedBy: z.string(),
  until: z.string().nullable(),
  /** True while a resume's ramp limits begins per minute (this begin found the minute's share taken). */
  ramping: z.boolean(),
});
export type PauseInfo = z.infer<typeof pauseInfo>;

/** The breaker behind a CIRCUIT_OPEN wait: what it watches, its state, since when, why, and the next probe. */
export const breakerInfo = z.object({
  target: z.string(),
  state: z.enum(['open', 'half_open']),
  openedAt: z.string().nullable(),
  /** Open: when the first probe may run. Half-open: when a silent probe round is given up. */
  probeAt: z.string(),
  /** The share of failing attempts (0 to 1) and the attempts in the window when it opened. */
  failureShare: z.number().nullable(),
  volume: z.number().int().nullable(),
});
export type BreakerInfo = z.infer<typeof breakerInfo>;

export const waitAnswer = z.object({
  decision: z.literal('wait'),
  code: z.enum(waitCodes),
  retryAfterMs: z.number().int().min(0),
  detail: z.string(),
  pause: pauseInfo.optional(),
  breaker: breakerInfo.optional(),
  /** The fleet spend budget behind a BUDGET_EXHAUSTED wait. */
  budget: budgetInfo.optional(),
});
export type WaitAnswer = z.infer<typeof waitAnswer>;

export const runAnswer = z.object({
  decision: z.literal('run'),
  key: z.string(),
  attemptNumber: z.number().int().min(1),
  fencingToken: z.number().int().min(1),
  /** Spend set aside for this attempt until it finishes. */
  reservedMicros: z.number().int().min(0),
  ...allowance,
});
export type RunAnswer = z.infer<typeof runAnswer>;

export const replayAnswer = z.object({
  decision: z.literal('replay'),
  key: z.string(),
  /** The stored result of the completed step: use it instead of acting again. */
  result: z.unknown(),
});
export type ReplayAnswer = z.infer<typeof replayAnswer>;

export const beginAnswer = z.discriminatedUnion('decision', [runAnswer, replayAnswer, waitAnswer, stopAnswer]);
export type BeginAnswer = z.infer<typeof beginAnswer>;

export const completedAnswer = z.object({
  decision: z.literal('completed'),
  key: z.string(),
  attemptNumber: z.number().int().min(1),
  /** `completed` when this was the task's final step. */
  taskStatus: z.enum(['active', 'completed']),
});
export type CompletedAnswer = z.infer<typeof completedAnswer>;

export const retryAnswer = z.object({
  decision: z.literal('retry'),
  key: z.string(),
  attemptNumber: z.number().int().min(1),
  errorClass: z.enum(errorClasses),
  /** Wait this long, then begin the step again (it will be the next attempt). */
  delayMs: z.number().int().min(0),
  ...allowance,
});
export type RetryAnswer = z.infer<typeof retryAnswer>;

export const finishAnswer = z.discriminatedUnion('decision', [completedAnswer, retryAnswer, stopAnswer]);
export type FinishAnswer = z.infer<typeof finishAnswer>;
