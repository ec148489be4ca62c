/**
 * The admission rules of a begin, in order. A new rule is one gate file and one line here.
 *
 * Before the claim, on the begin's one read (a repeat of a completed step passes them all):
 *   pause -> breaker
 * In the claim's transaction, each taking its share or rolling the claim back:
 *   ramp (a resume's minute) -> probe (a half-open circuit) -> task (state, deadline, allowance, spend)
 *   -> spend budgets (the fleet's, covering the step) -> retry pool
 */
import { circuitOpenGate, probeGate } from './breaker';
import type { GateBeforeClaim, GateInClaim } from './gate';
import { pausedGate, rampGate } from './pause';
import { retryPoolGate } from './retry-pool';
import { spendBudgetGate } from './spend-budget';
import { taskBudgetGate } from './task-budget';

export const gatesBeforeClaim: readonly GateBeforeClaim[] = [pausedGate, circuitOpenGate];

export const gatesInClaim: readonly GateInClaim[] = [
  rampGate,
  probeGate,
  taskBudgetGate,
  spendBudgetGate,
  retryPoolGate,
];

export type { Begin, ClaimedAttempt, GateBeforeClaim, GateInClaim, Refusal } from './gate';
