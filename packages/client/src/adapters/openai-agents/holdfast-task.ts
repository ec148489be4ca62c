import type { BeginStepInput, HoldfastClient } from '../..';
import type { Sleep } from '../step-loop';

/**
 * The Holdfast task an agent run works for: the caller's stable id for the unit of work (the queue
 * message, the order), never one made up per run, so a redelivered run derives the same keys. The
 * budget fields are read on the task's first begin only (the first given wins).
 */
export type HoldfastTask = Pick<
  BeginStepInput,
  'taskId' | 'agent' | 'owner' | 'queue' | 'retryAllowance' | 'spendCeilingMicros' | 'timeAllowanceMs' | 'runKey'
>;

/** What the model and tool wrappers share: where Holdfast is, and how they wait for it. */
export interface HoldfastConnection {
  client: HoldfastClient;
  /** How the wrapper sits out a retry's delay or a wait (default: a timer). Tests pass one that records. */
  sleep?: Sleep;
  /** The longest single wait sat out in-process; a longer one raises HoldfastStepWaiting (default 5 minutes). */
  maxWaitMs?: number;
}
