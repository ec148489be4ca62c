/**
 * The library's face: what agents running in-process, the console's actions,
 * the server's glue and the operations scripts may call. Every name is listed
 * on purpose; anything else in packages/engine/src/core is a part of its domain, imported by
 * path where it is needed (the sweep passes by the scheduler in packages/engine/src/scheduler,
 * the request schemas by lib/api and the client, which must not load the
 * services), and tests may reach it the same way.
 */

// The context every call takes, and the errors every call may throw.
export { type Actor, type CoreContext, type CorePolicy, type RedriveBrakes, SWEEPER } from './kernel/context';
export {
  AttemptConflictError,
  type FieldErrors,
  ForbiddenError,
  GuardFailedError,
  HoldfastError,
  InvalidInputError,
  KeyPayloadMismatchError,
  NotFoundError,
  NotHolderError,
  type RedriveBrakeRule,
  RedriveRefusedError,
  StaleTokenError,
  StateConflictError,
  TaskAgentMismatchError,
} from '@holdfast/protocol/errors';
export { startDatabaseClock } from './kernel/database-clock';

// For agents: one step at a time (runStep), or the step protocol's two halves as the HTTP API serves them.
export { type RunStepInput, type RunStepOutcome, runStep, type StepAttempt } from './steps/run-step';
export { beginStep } from './steps/begin-step';
export { finishStep } from './steps/finish-step';
export { resumePause, setPause, type PauseOutcome, type ResumeOutcome } from './pauses/pauses';
export { endRamp, type EndRampOutcome } from './pauses/end-ramp';
export { PAUSED_POLL_MS } from './pauses/pause-gate';
export { readStepPolicy, removeStepPolicy, saveStepPolicy } from './retry/step-policy';
export { removeStepOwner, saveStepOwner } from './owners/step-owners';
export { type OwnerSource, type ResolvedOwner, readStepOwners } from './owners/read-owners';
export { type PolicySimulation, simulateRetryPolicy } from './retry/simulate-policy';
export {
  type BreakerSettings,
  DEFAULT_BREAKER_SETTINGS,
  readBreakerSettings,
  saveBreakerSettings,
} from './breakers/breaker-settings';
export type { BeginAnswer, BeginStepInput } from '@holdfast/protocol/steps/step-protocol';
export { classifyFailure, StepError } from '@holdfast/protocol/steps/step-error';
export { decideRetry } from './retry/decide-retry';

// For agents: the parts a step is made of, for agents that use them one by one.
export { type RecordAttemptInput, recordAttempt, recordAttemptInput } from './attempts/record-attempt';
export { type ClaimOutcome, claimKey } from './keys/claim-key';
export { completeKey, failKey } from './keys/settle-key';
export { deriveKey, hashContent } from '@holdfast/protocol/keys/derive-key';
export { ensureTaskBudget } from './budgets/task-budget';
export {
  deleteSpendBudget,
  readSpendBudgets,
  saveSpendBudget,
  type SpendBudget,
} from './budgets/spend-budgets';
export { periodEndOf, periodLengthOf, periodStartOf, windowStartOf } from './budgets/budget-periods';
export { BUDGET_STRIPES, currentBudgetSpend } from './budgets/budget-stripes';
export { applyBudgetsFile, type BudgetsFileOutcome, parseBudgetsFile } from './budgets/budgets-file';
export { attemptsCoveredSql } from './budgets/budget-coverage';
export { acquireSlot, heartbeatSlot, recordEvidence, releaseSlot } from './slots/slot-lock';
export { finishRun, heartbeatRun, startRun } from './slots/runs';
export { type OpenHoldInput, openHold } from './holds/open-hold';
export { finishTask } from './tasks/finish-task';
export { readTaskAgents } from './tasks/task-agent';
export { type DeadLetterTaskInput, deadLetterTask } from './dead-letters/dead-letter-task';
export { acknowledgeRedrive, claimRedrives, drainRedrives } from './dead-letters/drain-redrives';

// For the console: the actions on holds, dead letters, locks, pools, prices and kill switches.
export { clearHold, clearHolds } from './hold-clearing/clear-hold';
export { reassignHold } from './holds/reassign-hold';
export { decideHoldClear } from './hold-clearing/held-items';
export { discardDeadLetter, editedTaskIdOf, redriveDeadLetter } from './dead-letters/redrive';
export { discardErrorGroup, GROUP_DISCARD_LIMIT } from './dead-letters/group-discard';
export { cancelBulkRedrive, runBulkRedrive, startBulkRedrive } from './dead-letters/bulk-redrive';
export { type BulkRedrivePreview, previewBulkRedrive, type RedriveOutcome } from './dead-letters/bulk-redrive-preview';
export type { DeadLetterFilter } from './dead-letters/dead-letter-filter-input';
export { describeBrakeRefusals } from './dead-letters/redrive-brakes';
export { previewRedrive, type RedrivePreview } from './dead-letters/redrive-preview';
export {
  forceReleaseSlot,
  type ReleaseGuard,
  type ReleaseGuardFacts,
  readReleaseGuards,
} from './slots/force-release';
export { overrideReleaseSlot } from './slots/override-release';
export { deleteRetryPool, saveRetryPool } from './retry-pools/manage-pools';
export { setKillSwitch } from './kill-switches/kill-switches';

// For the console and the server: who may do what, people and their sessions, API tokens.
export { type Action, authorize, type Decision, decide, ownersOf } from './identity/authorization';
export {
  endOwnSessions,
  endPersonSessions,
  ensureProxyPerson,
  listPeople,
  loadPersonActor,
  loadSessionPerson,
  loadSessionVersion,
  savePerson,
} from './identity/people';
export {
  type AuthenticatedToken,
  authenticateApiToken,
  authenticateApiTokenWithLimits,
  createApiToken,
  listApiTokens,
  revokeApiToken,
} from './identity/api-tokens';
export {
  type BucketDecision,
  rateLimitOf,
  setApiTokenRateLimit,
} from './identity/api-tokens-rate-limit';
export { takeRequestToken, takeRequestTokens } from './identity/api-tokens-rate-batch';
export { ApiTokenCache, TOKEN_CACHE_TTL_MS } from './identity/api-token-cache';
export { batchCap, GRANT_LEASE_MS, RequestGrants } from './identity/request-grants';

// For long-running processes: the instance's name and a lease it keeps while it works.
export { INSTANCE_NAME } from './leases/instance-name';
export { keepRenewableLease } from './leases/renewable-lease';
export { timeBucket } from './leases/leases';

// For the console's pages and read models, the server's glue and the scripts.
export { formatDuration, redriveBrakesRefusing } from './dead-letters/redrive-brakes';
export { deletePriceOverride, savePriceOverride, saveRefusedStatuses } from './pricing/manage-pricing';
export { decodeRouteParam, unusableTextProblem, withoutNul } from './kernel/console-text-input';
export { aliasAgentOf } from './tasks/task-alias';
export { parsePersonEmail } from './identity/email';
export { deadLetterFilter } from './dead-letters/dead-letter-filter-input';
export { DEFAULT_CORE_POLICY } from './kernel/context';
export { arrayLiteral, arrayParam } from './kernel/sql-arrays';
export { stepBreakerKey } from './breakers/breaker-targets';
export { pendingMatching } from './dead-letters/dead-letter-filter';
export type { KillSwitchName } from './kill-switches/kill-switches-input';
export { DEFAULT_FROZEN_AFTER_DAYS } from './holds/freeze-idle-tasks';
export { readPricingRules } from './pricing/pricing-rules';
export { readPoolLevels } from './retry-pools/pool-level';
export { stepExists } from './kernel/known-step';
export type { DatabaseClock } from './kernel/database-clock';
export { priceCall } from './pricing/price-call';
export type { LeaseOutcome } from './leases/leases';
export { flushReplayTallies } from './keys/replay-tally';
export { recordMcpGatewayReport } from './mcp/gateway-report';
export {
  deleteMcpToolControl,
  readMcpToolControls,
  saveMcpToolControl,
  type StoredMcpToolControl,
} from './mcp/tool-controls';
