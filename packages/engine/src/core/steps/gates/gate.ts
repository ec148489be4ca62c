import type { Transaction } from '../../../db/client';
import type { BeginAnswer, BeginStepRequest } from '@holdfast/protocol/steps/step-protocol';
import type { Actor, CoreContext } from '../../kernel/context';
import type { BeginFacts } from '../begin-reads';
import type { BudgetRow } from '../budget-row';
import type { BudgetReservation } from '../../budgets/budget-reservations';
import type { StripeTaken } from '../../budgets/budget-stripes';
import type { TaskNames } from '../new-task';

/** One begin as its gates see it: the request with the task's stored names, and what the begin read. */
export interface Begin {
  ctx: CoreContext;
  request: BeginStepRequest & { queue: string };
  key: string;
  now: Date;
  /** The spend this attempt reserves against the task's ceiling. */
  estimate: number;
  /** Who acts for the task's agent and queue (holds and dead letters are written as them). */
  actor: Actor;
  /** The begin's one read (begin-reads.ts): the pauses and breakers covering the step among it. */
  facts: BeginFacts;
  /**
   * Set when the claim runs again because its write took a spend budget's free stripe out of budget order: every
   * budget is then reserved by the spend budget gate, one after another.
   */
  budgetsInOrder?: boolean;
  /** The task's row, made now if no transaction of this begin committed it: every begin leaves its task seen. */
  taskSeen(): Promise<TaskNames>;
}

/**
 * A gate's "no": the answer the agent gets, built after the claim's transaction (if any) was rolled back, so
 * what the answer writes (a count, a hold, a dead letter) stays.
 */
export interface Refusal {
  gate: string;
  answer(begin: Begin): Promise<BeginAnswer>;
}

/**
 * A gate decided on the begin's one read, before the key is claimed (a pause, an open breaker). It turns the
 * begin away unless the step already completed: a repeat's stored result touches nothing downstream.
 */
export interface GateBeforeClaim {
  name: string;
  check(begin: Begin): Refusal | undefined;
}

/** The attempt the claim's transaction has taken so far, for the gates in it. */
export interface ClaimedAttempt {
  tx: Transaction;
  /** The request with the names of the task as this transaction sees it (it may have made the task). */
  request: BeginStepRequest & { agent: string; queue: string };
  attemptNumber: number;
  /** The token or person beginning the step (its key's settler), and how the attempt reaches Holdfast. */
  by: { begunBy: string | null; source: 'http' | 'library' };
  /** The task's row once its gate reserved this attempt's share, with whether it took a retry. */
  budget?: BudgetRow & { charged_retry: boolean };
  /** The fleet spend budgets the begin's write reserved under (on a free stripe), and the stripe it tried first. */
  budgetsTaken?: StripeTaken[];
  preferredStripe?: number;
  /** What the key's previous attempt, which never finished, left reserved under the fleet's spend budgets. */
  budgetLeftover?: { micros: number; reservations: BudgetReservation[] };
}

/**
 * A gate in the claim's transaction, after the key is claimed: it takes its share (a ramp's minute, a probe, the
 * task's allowance and spend, a retry from the pools) or refuses, and the refusal rolls the claim back.
 */
export interface GateInClaim {
  name: string;
  take(attempt: ClaimedAttempt, begin: Begin): Promise<Refusal | undefined>;
}
