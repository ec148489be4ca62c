/**
 * The fixed value lists of the schema's enums and checked text columns, apart
 * from the drizzle table definitions: input and response schemas (and the
 * typed client that bundles them) import them from here without pulling in
 * drizzle-orm. Each table file re-exports its own lists.
 */

/** running: recorded before the step runs (so a crash can only over-count); then succeeded or failed. */
export const attemptOutcomes = ['running', 'succeeded', 'failed'] as const;
export type AttemptOutcome = (typeof attemptOutcomes)[number];

/** Why an attempt failed; decides whether it may be retried (see DOMAIN.md, invariant 8). */
export const errorClasses = ['transient', 'timeout', 'rate_limited', 'invalid_output', 'permanent', 'unknown'] as const;
export type ErrorClass = (typeof errorClasses)[number];

export const actorTypes = ['person', 'agent', 'system'] as const;
export type ActorType = (typeof actorTypes)[number];

/** Why work was dead-lettered; also the reason of the hold opened for it. */
export const deadLetterReasons = ['retry_ceiling', 'budget_exhausted', 'permanent_error'] as const;
export type DeadLetterReason = (typeof deadLetterReasons)[number];

export const deadLetterStatuses = ['pending', 'redriven', 'discarded'] as const;
export type DeadLetterStatus = (typeof deadLetterStatuses)[number];

export const bulkRedriveStatuses = ['running', 'completed', 'cancelled'] as const;
export type BulkRedriveStatus = (typeof bulkRedriveStatuses)[number];

export const bulkRedriveOutcomes = ['redriven', 'skipped'] as const;
export type BulkRedriveOutcome = (typeof bulkRedriveOutcomes)[number];

/** The fixed, documented set of reasons work is parked for a person (docs/agents/task-lifecycle.md). */
export const holdReasons = [
  'retry_ceiling',
  'budget_exhausted',
  'permanent_error',
  'payload_mismatch',
  'uncertain_outcome',
  'needs_approval',
  'needs_secret',
  'policy_blocked',
  'frozen',
  'stale_lock',
  'manual',
] as const;
export type HoldReason = (typeof holdReasons)[number];

export const holdItemTypes = ['task', 'dead_letter', 'key', 'slot'] as const;
export type HoldItemType = (typeof holdItemTypes)[number];

/** How a person clears a hold. */
export const holdResolutions = ['resume', 'discard'] as const;
export type HoldResolution = (typeof holdResolutions)[number];
/** How a hold may end: by a person, or `resolved` by the sweep once its condition cleared by itself. */
export const holdClosings = [...holdResolutions, 'resolved'] as const;
export type HoldClosing = (typeof holdClosings)[number];

export const keyStatuses = ['in_progress', 'completed', 'failed'] as const;
export type KeyStatus = (typeof keyStatuses)[number];

export const roles = ['viewer', 'responder', 'admin'] as const;
export type Role = (typeof roles)[number];

export const tokenScopes = ['ingest', 'read', 'metrics', 'traces'] as const;
export type TokenScope = (typeof tokenScopes)[number];

export const runStatuses = ['running', 'finished', 'failed'] as const;
export type RunStatus = (typeof runStatuses)[number];

/**
 * active: steps may run. frozen: no state change for days; parked for its owner
 * instead of being retried. dead_lettered: stopped until a person redrives it.
 * completed, failed, discarded: finished for good; nothing runs, nothing freezes.
 */
export const taskStatuses = ['active', 'frozen', 'dead_lettered', 'completed', 'failed', 'discarded'] as const;
export type TaskStatus = (typeof taskStatuses)[number];
export const finishedTaskStatuses = ['completed', 'failed', 'discarded'] as const;
export type FinishedTaskStatus = (typeof finishedTaskStatuses)[number];

/** What an in-app alert rule watches; one rule per kind (see packages/engine/src/alerts). */
export const alertKinds = [
  'retry_share_anomaly',
  'hold_opened',
  'dead_letters_waiting',
  'stale_lock',
  'uncertain_key',
  'budget_refusals',
  'sweep_failing',
  'circuit_open',
  'spend_budget',
] as const;
export type AlertKind = (typeof alertKinds)[number];

/** Where an alert is delivered: a signed JSON webhook or a Slack incoming webhook. */
export const alertChannelKinds = ['webhook', 'slack'] as const;
export type AlertChannelKind = (typeof alertChannelKinds)[number];

/** What one delivery carries: an alert firing, its resolution, or a test sent from the console. */
export const alertEvents = ['fired', 'resolved', 'test'] as const;
export type AlertEvent = (typeof alertEvents)[number];

/** Where an attempt's cost came from (packages/engine/src/core/pricing/price-call.ts). */
export const costSources = ['reported', 'priced', 'rule', 'none'] as const;
export type CostSource = (typeof costSources)[number];
/** A step's ways of costing its attempts, with `unrecorded` for attempts that name none (recorded before costs were). */
export const stepCostSourceNames = [...costSources, 'unrecorded'] as const;
export type StepCostSourceName = (typeof stepCostSourceNames)[number];

/**
 * How an attempt reached Holdfast: `library` (packages/engine/src/core in the agent's process), `http` (the HTTP API or
 * step protocol, with an agent token), `traces` (an OpenTelemetry span, packages/engine/src/traces).
 */
export const attemptSources = ['library', 'http', 'traces'] as const;
export type AttemptSource = (typeof attemptSources)[number];
