import { z } from 'zod';
import { acknowledgeRedriveInput, claimRedrivesInput } from '../inputs/drain-redrives-input';
import { deadLetterInput } from '../inputs/dead-letter-task-input';
import { openHoldInput } from '../inputs/hold-input';
import { mcpGatewayReportInput } from '../inputs/mcp-gateway-report-input';
import { claimKeyInput } from '../inputs/claim-key-input';
import { completeKeyInput, failKeyInput } from '../inputs/settle-key-input';
import { recordAttemptInput } from '../inputs/record-attempt-input';
import { finishRunInput, startRunInput } from '../inputs/runs-input';
import { acquireSlotInput, evidenceInput, heartbeatSlotInput, releaseSlotInput } from '../inputs/slot-lock-input';
import type { Action } from '../actions';
import type { ErrorCode } from '../error-codes';
import { beginStepInput, finishStepInput, stopCodes, waitCodes } from '../steps/step-protocol';
import { finishTaskInput } from '../inputs/finish-task-input';

/**
 * Every agent endpoint of the HTTP API, described once: the route handlers
 * take their input schema and authorization from here, the OpenAPI document
 * is generated from here, and the TypeScript client's methods are typed from
 * here. The schemas are the library's own, so the API validates exactly as
 * the library does; they come from the schema-only *-input files, never the
 * services, so the client bundles without database code
 * (tests/unit/project/client-bundle.test.ts).
 */
export interface Endpoint<Input extends z.ZodType = z.ZodType> {
  /** The client's method name. */
  name: string;
  method: 'POST';
  path: string;
  summary: string;
  action: Action;
  input: Input;
  /** Success statuses and what each means. */
  responses: Record<number, string>;
  /** Problem codes the endpoint can answer with, besides INVALID_INPUT, UNAUTHENTICATED, FORBIDDEN and PAYLOAD_TOO_LARGE. */
  problems: ErrorCode[];
  /** The largest body it accepts, when 64 KiB is too small for what it is for. */
  maxBodyBytes?: number;
  /**
   * How long the request may wait on the database before it is answered 503 (default 10 s,
   * lib/server/database-outage.ts). Longer for work that is large by design, so a busy database is not taken
   * for a hung one.
   */
  databaseDeadlineMs?: number;
}

/** The most attempts one batch may carry. */
export const MAX_BATCH_ATTEMPTS = 1_000;

/**
 * A batch's body limit: a realistic failed attempt (uuid-sized task id, run key
 * and idempotency key, a 200-character error text) is about 650 bytes of JSON,
 * so 1,000 of them come to about 650 KB; 1 MiB leaves room for longer texts.
 */
export const MAX_BATCH_BODY_BYTES = 1024 * 1024;

export const recordAttemptsBatchInput = z.strictObject({
  attempts: z
    .array(z.unknown())
    .min(1, 'must hold at least one attempt')
    .max(MAX_BATCH_ATTEMPTS, `must hold at most ${MAX_BATCH_ATTEMPTS} attempts`),
});

export const heartbeatRunInput = z.strictObject({ runKey: z.string().trim().min(1).max(200) });

const endpoint = <Input extends z.ZodType>(spec: Endpoint<Input>) => spec;

export const endpoints = {
  beginStep: endpoint({
    name: 'beginStep',
    method: 'POST',
    path: '/api/v1/steps/begin',
    action: 'agent.coordinate',
    input: beginStepInput,
    summary:
      'Begin one attempt of a step. 200 `run`: act now, then finish with the key and fencing token; 200 `replay`: the step completed, use its result. ' +
      'Wait (409, retryable, Retry-After): KEY_IN_PROGRESS, RETRY_BUDGET_EXHAUSTED, PAUSED (with `pause`: what, why, who, until when), CIRCUIT_OPEN (with `breaker`), BUDGET_EXHAUSTED (with `budget`: the fleet spend budget, until its period turns). Stop (409, not retryable, with `reason`, `holdId`, `deadLetterId`, and `budget` when a spend budget stopped it): ' +
      'DO_NOT_RETRY, KEY_PAYLOAD_MISMATCH, UNCERTAIN_OUTCOME, TASK_FROZEN, TASK_FINISHED.',
    responses: {
      200: '`{ decision: "run", key, attemptNumber, fencingToken, reservedMicros, retriesLeft, spendLeftMicros, msLeft }` or `{ decision: "replay", key, result }`',
    },
    problems: [...waitCodes, ...stopCodes, 'TASK_AGENT_MISMATCH'],
  }),
  finishStep: endpoint({
    name: 'finishStep',
    method: 'POST',
    path: '/api/v1/steps/finish',
    action: 'agent.coordinate',
    input: finishStepInput,
    summary:
      'Finish a begun attempt with its outcome and cost. 200 `completed`; 200 `retry`: begin the step again after `delayMs`; ' +
      'stop (409, not retryable): DO_NOT_RETRY (dead-lettered, with `deadLetterId` and `holdId`) or UNCERTAIN_OUTCOME. A second finish of the same attempt gets the same answer.',
    responses: {
      200: '`{ decision: "completed", key, attemptNumber, taskStatus }` or `{ decision: "retry", key, attemptNumber, errorClass, delayMs, retriesLeft, spendLeftMicros, msLeft }`',
    },
    problems: ['DO_NOT_RETRY', 'UNCERTAIN_OUTCOME', 'NOT_FOUND', 'STALE_TOKEN', 'STATE_CONFLICT'],
  }),
  finishTask: endpoint({
    name: 'finishTask',
    method: 'POST',
    path: '/api/v1/tasks/finish',
    action: 'agent.coordinate',
    input: finishTaskInput,
    summary:
      'End a task as completed, failed or discarded: it starts no new step and is never frozen. Finishing again the same way changes nothing.',
    responses: { 200: '`{ taskId, status, changed }`' },
    problems: ['NOT_FOUND', 'STATE_CONFLICT'],
  }),
  recordAttempt: endpoint({
    name: 'recordAttempt',
    method: 'POST',
    path: '/api/v1/attempts',
    action: 'attempt.record',
    input: recordAttemptInput,
    summary:
      'Record one finished attempt of a step. A repeated report of the same attempt answers 200 with the stored one.',
    responses: {
      201: 'Recorded: `{ attempt, duplicate: false }`',
      200: 'Already recorded with the same content: `{ attempt, duplicate: true }`',
    },
    problems: ['ATTEMPT_CONFLICT', 'TASK_AGENT_MISMATCH'],
  }),
  recordAttempts: endpoint({
    name: 'recordAttempts',
    method: 'POST',
    path: '/api/v1/attempts/batch',
    action: 'attempt.record',
    input: recordAttemptsBatchInput,
    maxBodyBytes: MAX_BATCH_BODY_BYTES,
    // A thousand attempts in one transaction: three times the deadline of a single one.
    databaseDeadlineMs: 30_000,
    summary: `Record up to ${MAX_BATCH_ATTEMPTS} attempts (at most ${MAX_BATCH_BODY_BYTES / 1024 / 1024} MiB of JSON), all or nothing. Invalid items are named by index (\`attempts.3.startedAt\`); a conflict names its index too, and nothing is written.`,
    responses: { 200: '`{ recorded, duplicates }`: how many were new and how many were repeats' },
    problems: ['ATTEMPT_CONFLICT', 'TASK_AGENT_MISMATCH'],
  }),
  claimKey: endpoint({
    name: 'claimKey',
    method: 'POST',
    path: '/api/v1/keys/claim',
    action: 'agent.coordinate',
    input: claimKeyInput,
    summary:
      'Claim a derived idempotency key before acting. `acquired`: act, then complete or fail it with the fencing token. `replay`: the operation already completed; use its result.',
    responses: {
      200: '`{ outcome: "acquired", key, fencingToken, attemptNumber }` or `{ outcome: "replay", key, result }`',
    },
    problems: ['KEY_IN_PROGRESS', 'UNCERTAIN_OUTCOME', 'KEY_PAYLOAD_MISMATCH'],
  }),
  completeKey: endpoint({
    name: 'completeKey',
    method: 'POST',
    path: '/api/v1/keys/complete',
    action: 'agent.coordinate',
    input: completeKeyInput,
    summary: 'Complete a claimed key with its result, which later claims replay.',
    responses: { 200: '`{ ok: true }`' },
    problems: ['STALE_TOKEN', 'NOT_FOUND'],
  }),
  failKey: endpoint({
    name: 'failKey',
    method: 'POST',
    path: '/api/v1/keys/fail',
    action: 'agent.coordinate',
    input: failKeyInput,
    summary: 'Fail a claimed key with its error class, so a retry may claim it again.',
    responses: { 200: '`{ ok: true }`' },
    problems: ['STALE_TOKEN', 'NOT_FOUND'],
  }),
  startRun: endpoint({
    name: 'startRun',
    method: 'POST',
    path: '/api/v1/runs/start',
    action: 'agent.coordinate',
    input: startRunInput,
    summary: 'Start a run (one worker execution), once per run key.',
    responses: { 200: '`{ run }`' },
    problems: ['STATE_CONFLICT'],
  }),
  heartbeatRun: endpoint({
    name: 'heartbeatRun',
    method: 'POST',
    path: '/api/v1/runs/heartbeat',
    action: 'agent.coordinate',
    input: heartbeatRunInput,
    summary: 'Say a run is alive; a silent run is presumed dead after the grace period.',
    responses: { 200: '`{ ok: true }`' },
    problems: ['NOT_FOUND'],
  }),
  finishRun: endpoint({
    name: 'finishRun',
    method: 'POST',
    path: '/api/v1/runs/finish',
    action: 'agent.coordinate',
    input: finishRunInput,
    summary: 'Finish a run as finished or failed.',
    responses: { 200: '`{ ok: true }`' },
    problems: ['NOT_FOUND'],
  }),
  acquireSlot: endpoint({
    name: 'acquireSlot',
    method: 'POST',
    path: '/api/v1/slots/acquire',
    action: 'agent.coordinate',
    input: acquireSlotInput,
    summary:
      'Take a slot lock for a run. Free: a fencing token and the evidence left by earlier holders. Held: 409 SLOT_HELD with Retry-After.',
    responses: { 200: '`{ outcome: "acquired", slot, fencingToken, expiresAt, evidence }`' },
    problems: ['SLOT_HELD'],
  }),
  heartbeatSlot: endpoint({
    name: 'heartbeatSlot',
    method: 'POST',
    path: '/api/v1/slots/heartbeat',
    action: 'agent.coordinate',
    input: heartbeatSlotInput,
    summary: 'Extend a held slot lock.',
    responses: { 200: '`{ expiresAt }`' },
    problems: ['STALE_TOKEN', 'NOT_HOLDER'],
  }),
  releaseSlot: endpoint({
    name: 'releaseSlot',
    method: 'POST',
    path: '/api/v1/slots/release',
    action: 'agent.coordinate',
    input: releaseSlotInput,
    summary: 'Release a slot lock held by the run.',
    responses: { 200: '`{ ok: true }`' },
    problems: ['NOT_HOLDER'],
  }),
  recordEvidence: endpoint({
    name: 'recordEvidence',
    method: 'POST',
    path: '/api/v1/slots/evidence',
    action: 'agent.coordinate',
    input: evidenceInput,
    summary:
      "Record evidence that the slot's side effect happened (e.g. the published page's id), before acting on it further.",
    responses: { 200: '`{ ok: true }`' },
    problems: ['STALE_TOKEN', 'NOT_HOLDER'],
  }),
  reportMcpGateway: endpoint({
    name: 'reportMcpGateway',
    method: 'POST',
    path: '/api/v1/mcp-gateways/report',
    action: 'agent.coordinate',
    input: mcpGatewayReportInput,
    summary:
      "An MCP gateway's report: the instance (server, version, options) and how many calls of each tool ended each way since its last report.",
    responses: { 200: '`{ counted }`: the calls counted' },
    problems: [],
  }),
  openHold: endpoint({
    name: 'openHold',
    method: 'POST',
    path: '/api/v1/holds',
    action: 'hold.open',
    input: openHoldInput,
    summary: 'Park an item for a person, with a machine-readable reason and an owner. One open hold per item.',
    responses: {
      201: '`{ hold, created: true }`',
      200: 'The item already had an open hold: `{ hold, created: false }`',
    },
    problems: ['NOT_FOUND'],
  }),
  deadLetter: endpoint({
    name: 'deadLetter',
    method: 'POST',
    path: '/api/v1/dead-letters',
    action: 'agent.coordinate',
    input: deadLetterInput,
    summary: 'Dead-letter a task whose retries ran out, with its payload for a later redrive; its owner gets a hold.',
    responses: { 201: '`{ deadLetter, hold }`' },
    problems: ['TASK_AGENT_MISMATCH'],
  }),
  claimRedrives: endpoint({
    name: 'claimRedrives',
    method: 'POST',
    path: '/api/v1/redrives/claim',
    action: 'agent.coordinate',
    input: claimRedrivesInput,
    summary:
      'Take due redrives to put back on your queue (deduplicate on `outboxKey`), then acknowledge each. Unacknowledged ones come back after the lease.',
    responses: { 200: '`{ redrives: [{ outboxKey, deadLetterId, queue, payload, ... }] }`' },
    problems: [],
  }),
  acknowledgeRedrive: endpoint({
    name: 'acknowledgeRedrive',
    method: 'POST',
    path: '/api/v1/redrives/ack',
    action: 'agent.coordinate',
    input: acknowledgeRedriveInput,
    summary: 'Acknowledge a claimed redrive as enqueued. Acknowledging twice changes nothing.',
    responses: { 200: '`{ redrive, changed }`' },
    problems: ['NOT_FOUND'],
  }),
} as const;

/**
 * POST /v1/traces, the OTLP/HTTP traces receiver (lib/server/traces-endpoint.ts). Not in the registry above:
 * its bodies are OpenTelemetry's own messages (ExportTraceServiceRequest, protobuf or JSON) rather than a
 * zod-checked JSON input, and its client is an OpenTelemetry exporter, not the typed client. Described here
 * for the OpenAPI document (lib/api/openapi-traces.ts).
 */
export const tracesEndpoint = {
  name: 'exportTraces',
  method: 'POST',
  path: '/v1/traces',
  action: 'traces.write' satisfies Action,
  /** Either scope may export spans (packages/engine/src/core/identity/authorization.ts). */
  scopes: ['traces', 'ingest'],
  contentTypes: ['application/x-protobuf', 'application/json'],
  contentEncodings: ['gzip', 'identity'],
  /** A batch as sent, compressed or not, and once inflated. */
  maxBodyBytes: 4 * 1024 * 1024,
  maxInflatedBodyBytes: 16 * 1024 * 1024,
  summary:
    "Export OpenTelemetry spans (OTLP/HTTP): GenAI-convention spans become attempts. Point an exporter's traces endpoint here. " +
    'Token scope: traces or ingest; a token limited to agents has the spans of other agents rejected.',
} as const;

export type Endpoints = typeof endpoints;
export type EndpointName = keyof Endpoints;
export type EndpointInput<Name extends EndpointName> = z.input<Endpoints[Name]['input']>;

/** Codes that mean "stop: retrying the same request will not help" (the client must change something or ask a person). */
export const STOP_CODES = [
  ...stopCodes,
  'ATTEMPT_CONFLICT',
  'INVALID_INPUT',
  'FORBIDDEN',
  'TASK_AGENT_MISMATCH',
  'IDEMPOTENCY_KEY_REUSED',
] as const satisfies readonly ErrorCode[];
/** Codes that mean "try the same request later", with a Retry-After header. */
export const TRY_LATER_CODES = [
  ...waitCodes,
  'SLOT_HELD',
  'REQUEST_IN_PROGRESS',
  'RATE_LIMITED',
] as const satisfies readonly ErrorCode[];
