import { z } from 'zod';
import {
  attemptOutcomes,
  attemptSources,
  costSources,
  deadLetterReasons,
  deadLetterStatuses,
  errorClasses,
  finishedTaskStatuses,
  holdClosings,
  holdItemTypes,
  holdReasons,
  runStatuses,
} from '../enums';
import {
  breakerInfo,
  completedAnswer,
  pauseInfo,
  replayAnswer,
  retryAnswer,
  runAnswer,
  stopReasons,
} from '../steps/step-protocol';
import { timeWindowName } from '../time-window';
import { mcpToolControlJson } from '../inputs/mcp-tool-control-input';
import { budgetExhaustions, budgetInfo, budgetPeriods, budgetScopes } from '../inputs/spend-budget-input';
import type { EndpointName } from './endpoints';

/**
 * What the API answers, as zod schemas: the OpenAPI document's response
 * schemas are generated from them, the typed client's return types are
 * inferred from them, and tests/integration/api/responses.test.ts parses every
 * endpoint's real answer with them. Bodies as they travel: dates are ISO 8601
 * strings and 64-bit columns are numbers. Objects are strict, so a field the
 * API adds, drops or renames fails the contract test until it is described here.
 */

/**
 * The enum lists the responses use, imported from packages/protocol/src/enums.ts: the
 * very lists the tables are built from, kept apart from the drizzle table
 * definitions so that response schemas (and the client that bundles them)
 * carry no database code.
 */
export const restatedEnums = {
  attemptOutcomes,
  attemptSources,
  costSources,
  errorClasses,
  holdItemTypes,
  holdReasons,
  holdClosings,
  deadLetterReasons,
  deadLetterStatuses,
  runStatuses,
  finishedTaskStatuses,
} as const;

const moment = z.iso.datetime();
const rowId = z.number().int().min(1);
const count = z.number().int().min(0);
const micros = z.number().int().min(0).describe('Micro-dollars: 1 USD = 1,000,000');
/** A JSON value the caller stored (a payload, a result). The key is always present, null included. */
const storedJson = z.unknown();
const errorClass = z.enum(restatedEnums.errorClasses);

export const attemptJson = z.strictObject({
  id: rowId,
  taskId: z.string(),
  agent: z.string(),
  step: z.string(),
  iteration: count.describe(
    'The pass of a step run in a loop (0 when it is not looped); each pass numbers its attempts from 1',
  ),
  attemptNumber: z.number().int().min(1),
  startedAt: moment,
  finishedAt: moment.nullable(),
  latencyMs: count.nullable(),
  outcome: z.enum(restatedEnums.attemptOutcomes),
  errorClass: errorClass.nullable(),
  errorText: z.string().nullable(),
  costMicros: micros,
  retryCostMicros: micros.describe(
    "What this attempt added to its execution's retry spend (the spend beyond one try): a failed retry its own cost, a succeeded retry its first attempt's, a first attempt nothing",
  ),
  costSource: z
    .enum(restatedEnums.costSources)
    .nullable()
    .describe(
      'Where the cost came from: reported, priced (tokens x price table), rule (a failed-call rule), none; null: not recorded',
    ),
  model: z
    .string()
    .nullable()
    .describe(
      'The model it called, as spend budgets count it (lower-cased, no dated suffix); null when nothing named one',
    ),
  idempotencyKey: z.string().nullable(),
  source: z
    .enum(restatedEnums.attemptSources)
    .nullable()
    .describe(
      'How the attempt reached Holdfast: library (in-process), http (the HTTP API with an agent token), traces (an OpenTelemetry span); null: recorded before it was kept',
    ),
  runKey: z.string().nullable(),
  recordedAt: moment,
  changedXid: z.string().describe('Internal: the transaction that last wrote the row (the rollup sweep reads it)'),
});

export const holdJson = z.strictObject({
  id: rowId,
  itemType: z.enum(restatedEnums.holdItemTypes),
  itemId: z.string(),
  reason: z.enum(restatedEnums.holdReasons),
  detail: z.string(),
  owner: z.string().describe('person:<email> or team:<name>'),
  status: z.enum(['open', 'cleared']),
  resolution: z.enum(restatedEnums.holdClosings).nullable(),
  resolutionNote: z.string().nullable(),
  openedAt: moment,
  openedBy: z.string(),
  updatedAt: moment,
  clearedAt: moment.nullable(),
  clearedBy: z.string().nullable(),
});

export const deadLetterJson = z.strictObject({
  id: rowId,
  taskId: z.string(),
  agent: z.string(),
  step: z.string(),
  queue: z.string(),
  payload: storedJson,
  reason: z.enum(restatedEnums.deadLetterReasons),
  errorClass: errorClass.nullable(),
  lastError: z.string().nullable(),
  attempts: count,
  spendMicros: micros,
  status: z.enum(restatedEnums.deadLetterStatuses),
  errorFingerprint: z
    .string()
    .nullable()
    .describe('Its error group: failures of one step and class whose errors differ only in numbers, ids and addresses'),
  redriveCount: count,
  createdAt: moment,
  updatedAt: moment,
});

export const redriveJson = z.strictObject({
  id: rowId,
  outboxKey: z.string().describe('Deduplicate on it: a redrive may be handed out more than once'),
  deadLetterId: rowId,
  queue: z.string(),
  taskId: z
    .string()
    .describe(
      "The task to run the work as: the dead letter's own, or a new one when the payload was edited (new content runs as a new task, so none of its steps replays the old task's results)",
    ),
  payload: storedJson,
  payloadEdited: z.boolean().describe('The payload was edited before this redrive'),
  requestedBy: z.string(),
  requestedAt: moment,
  deliveredAt: moment.nullable(),
  deliveryAttempts: count,
  nextAttemptAt: moment,
  lastError: z.string().nullable(),
});

export const runJson = z.strictObject({
  runKey: z.string(),
  taskId: z.string(),
  agent: z.string(),
  status: z.enum(restatedEnums.runStatuses),
  startedAt: moment,
  heartbeatAt: moment,
  finishedAt: moment.nullable(),
});

/** The answer of calls that only change state. */
export const okResponse = z.strictObject({ ok: z.literal(true) });

const fencingToken = z
  .number()
  .int()
  .min(1)
  .describe('Send it with every later call for this claim; a newer claim makes it stale');

/*
 * The step endpoints' 200 bodies, from the step protocol's answers (made
 * strict here, so the contract test catches an undescribed field). Their wait
 * and stop answers travel as problem documents.
 */
export const beginStepResponse = z.discriminatedUnion('decision', [
  z.strictObject(runAnswer.shape),
  z.strictObject(replayAnswer.shape),
]);
export const finishStepResponse = z.discriminatedUnion('decision', [
  z.strictObject(completedAnswer.shape),
  z.strictObject(retryAnswer.shape),
]);
export const finishTaskResponse = z.strictObject({
  taskId: z.string(),
  status: z.enum(restatedEnums.finishedTaskStatuses),
  changed: z.boolean().describe('False when the task had already ended this way: nothing changed'),
});

/** The per-endpoint success bodies; every 2xx status of an endpoint answers this shape. */
export const endpointResponses = {
  recordAttempt: z.strictObject({ attempt: attemptJson, duplicate: z.boolean() }),
  recordAttempts: z.strictObject({ recorded: count, duplicates: count }),
  claimKey: z.discriminatedUnion('outcome', [
    z.strictObject({
      outcome: z.literal('acquired'),
      key: z.string(),
      fencingToken,
      attemptNumber: z.number().int().min(1),
    }),
    z.strictObject({ outcome: z.literal('replay'), key: z.string(), result: storedJson }),
  ]),
  completeKey: okResponse,
  failKey: okResponse,
  startRun: z.strictObject({ run: runJson }),
  heartbeatRun: okResponse,
  finishRun: okResponse,
  acquireSlot: z.strictObject({
    outcome: z.literal('acquired'),
    slot: z.string(),
    fencingToken,
    expiresAt: moment,
    evidence: z
      .array(z.string())
      .describe("Refs earlier holders recorded: the slot's side effect may already have happened"),
  }),
  heartbeatSlot: z.strictObject({ expiresAt: moment }),
  releaseSlot: okResponse,
  recordEvidence: okResponse,
  openHold: z.strictObject({ hold: holdJson, created: z.boolean() }),
  reportMcpGateway: z.strictObject({
    counted: z.number().int().min(0),
    /** The controls set in the console for the reporting gateway's server, which it takes in place of its own. */
    controls: z.array(mcpToolControlJson),
  }),
  deadLetter: z.strictObject({ deadLetter: deadLetterJson, hold: holdJson }),
  claimRedrives: z.strictObject({ redrives: z.array(redriveJson) }),
  acknowledgeRedrive: z.strictObject({ redrive: redriveJson, changed: z.boolean() }),
  beginStep: beginStepResponse,
  finishStep: finishStepResponse,
  finishTask: finishTaskResponse,
  // A new endpoint adds its line here: the type-check fails until it does.
} satisfies { [Name in EndpointName]: z.ZodType };

export type EndpointResponse<Name extends EndpointName> = z.output<(typeof endpointResponses)[Name]>;

const share = z.number().min(0).max(1);

export const stepStatsJson = z.strictObject({
  agent: z.string(),
  step: z.string(),
  attempts: count,
  retries: count.describe('Attempts with attempt number > 1'),
  retryRate: share,
  failures: count,
  totalSpendMicros: micros,
  retrySpendMicros: micros.describe(
    'Retry-attributable spend: what the step spent beyond what one try would have cost (the succeeded attempt, else the first)',
  ),
  retryShareOfSpend: share,
  firstTrySuccess: share
    .nullable()
    .describe('Executions that succeeded on attempt 1, over executions; null without executions'),
  latencyP50Ms: z.number().min(0).nullable(),
  latencyP95Ms: z.number().min(0).nullable(),
  failuresByClass: z.partialRecord(errorClass, count),
});

/** GET /api/v1/step-stats (not in `endpoints`: a GET with a read-scope token). */
export const stepStatsResponse = z.strictObject({
  window: timeWindowName,
  from: moment,
  to: moment,
  steps: z.array(stepStatsJson).describe('Most retry spend first'),
  anomalies: z
    .record(z.string(), z.strictObject({ recentShare: share, baseline: share, threshold: z.number().min(0) }))
    .describe(
      "Steps whose retry share of spend in the last 24 hours is well above their previous 7 days, keyed 'agent/step'",
    ),
});

/** GET /api/v1/spend-budgets (not in `endpoints`: a GET with a read-scope token). */
export const spendBudgetsResponse = z.strictObject({
  at: moment.describe('When the figures were read'),
  budgets: z
    .array(
      z.strictObject({
        name: z.string(),
        scope: z.enum(budgetScopes),
        scopeValue: z.string().describe('What the scope names; blank for the whole fleet'),
        period: z
          .enum(budgetPeriods)
          .describe('A UTC hour, day or month; the last hour, rolling in five-minute steps; or a custom period'),
        resetEveryHours: z
          .number()
          .int()
          .min(1)
          .nullable()
          .describe("A custom period's length in hours; null for the others"),
        resetFrom: moment.nullable().describe("When a custom period's first one began; null for the others"),
        limitMicros: micros,
        warnPercents: z.array(z.number().int().min(1).max(100)),
        onExhausted: z.enum(budgetExhaustions),
        firstAttemptPercent: z.number().int().min(0).max(100).nullable(),
        keptIn: z.string().nullable().describe('The budgets file that keeps it, or null when the console does'),
        periodStart: moment.describe("The period's start; for a rolling hour, its oldest five minutes' start"),
        periodEnd: moment.describe('When the period turns; for a rolling hour, when its oldest five minutes leave it'),
        spentMicros: micros.describe('What finished attempts of the period cost, seen spend included'),
        seenMicros: micros.describe('The part of the spend Holdfast only saw (reported attempts, spans)'),
        retrySpentMicros: micros,
        reservedMicros: micros.describe('What running attempts reserved'),
        refusals: count.describe('Begins the budget refused this period'),
        exhaustedAt: moment
          .nullable()
          .describe("When the limit is reached at the period's rate so far; null if not this period"),
      }),
    )
    .describe('By name'),
});

const simulatedChange = {
  stoppedEarlier: z.number().int().min(0).describe('Executions the policy would have stopped before they ended'),
  attemptsSaved: z.number().int().min(0).describe('Attempts it would not have made (all retries)'),
  retrySpendSavedMicros: z
    .number()
    .int()
    .min(0)
    .describe('Retry spend (the spend beyond one try) those executions would not have had'),
  successesLost: z
    .number()
    .int()
    .min(0)
    .describe('Executions that succeeded only at an attempt it would not have made'),
  timeSavedMs: z.number().int().min(0).describe('How much sooner the stopped executions would have ended, summed'),
};

/** GET /api/v1/steps/simulate (not in `endpoints`: a GET with a read-scope token). */
export const policySimulationResponse = z.strictObject({
  window: z
    .strictObject({ from: moment, to: moment })
    .describe('The whole hours replayed: executions whose first attempt started from `from` to `to`'),
  executions: z.number().int().min(0).describe("Executions (a task's pass of the step) begun in the window"),
  ...simulatedChange,
  byErrorClass: z
    .array(z.strictObject({ errorClass, ...simulatedChange }))
    .describe('By the class of the failure that stops each execution; most spend saved first'),
});

/**
 * Every non-2xx answer: an RFC 9457 problem document (lib/server/problem.ts)
 * with a stable code and the extension members the API uses. Loose, because
 * a problem type may carry members of its own.
 */
export const problemDocument = z.looseObject({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  code: z.string().describe('Stable, machine-readable'),
  detail: z.string(),
  retryable: z.boolean().optional().describe('false: stop; true: try again after retryAfterSeconds'),
  retryAfterSeconds: z.number().int().min(0).optional().describe('Also sent as the Retry-After header'),
  fieldErrors: z
    .record(z.string(), z.array(z.string()))
    .optional()
    .describe('For INVALID_INPUT: messages per field, e.g. `attempts.3.startedAt`'),
  key: z.string().optional().describe('KEY_IN_PROGRESS, UNCERTAIN_OUTCOME: the idempotency key'),
  holderRunKey: z.string().optional().describe('SLOT_HELD: the run that holds the slot'),
  decision: z.enum(['wait', 'stop']).optional().describe("A step's wait or stop answer"),
  reason: z.enum(stopReasons).optional().describe("A step's stop answer: why the step stopped"),
  holdId: z.number().int().optional().describe("A step's stop answer: the hold a person will look at"),
  deadLetterId: z.number().int().optional().describe("A step's stop answer: the task's dead letter"),
  retryAfterMs: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe("A step's wait answer: begin the step again after this long"),
  pause: pauseInfo.optional().describe('PAUSED: the pause that holds the step (what, why, who, until when)'),
  breaker: breakerInfo
    .optional()
    .describe('CIRCUIT_OPEN: the circuit breaker that holds the step (what, its state, why, the next probe)'),
  budget: budgetInfo
    .optional()
    .describe('BUDGET_EXHAUSTED, or a stop for budget_exhausted: the fleet spend budget (its limit, period, turn)'),
});
