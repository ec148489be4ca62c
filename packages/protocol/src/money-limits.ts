import { z } from 'zod';

/**
 * The largest sums of money an agent may send, in micro-dollars (1 USD =
 * 1,000,000). Every cost and spend field of the agent API is checked against
 * these, and the OpenAPI document shows them as the fields' maxima.
 *
 * Why limits at all: the read models and the rollup pass add costs up, and an
 * agent allowed 2^53 - 1 per attempt overflowed a bigint sum (2^63) with 1,200
 * attempts, failing every page and every pass for everyone. The sums are now
 * `numeric` and cannot overflow, and the limits keep every figure an honest
 * one: no attempt costs a million dollars, and sums below 2^53 (9 billion
 * dollars, 9,007 attempts at the limit) stay exact as JS numbers.
 */

/** One attempt's cost (or estimate): 10^12 micro-dollars, one million dollars. */
export const MAX_ATTEMPT_COST_MICROS = 1_000_000_000_000;

/** One task's spend ceiling: 10^15 micro-dollars, one billion dollars. */
export const MAX_TASK_SPEND_MICROS = 1_000_000_000_000_000;

const dollars = (micros: number) => (micros / 1_000_000).toLocaleString('en-US');

/** An attempt's cost or estimated cost, in micro-dollars. */
export const attemptCostMicros = z
  .number()
  .int()
  .min(0)
  .max(
    MAX_ATTEMPT_COST_MICROS,
    `must be at most ${MAX_ATTEMPT_COST_MICROS.toLocaleString('en-US')} micro-dollars (${dollars(MAX_ATTEMPT_COST_MICROS)} $) per attempt`,
  );

/** A task's spend ceiling, in micro-dollars. */
export const taskSpendMicros = z
  .number()
  .int()
  .min(0)
  .max(
    MAX_TASK_SPEND_MICROS,
    `must be at most ${MAX_TASK_SPEND_MICROS.toLocaleString('en-US')} micro-dollars (${dollars(MAX_TASK_SPEND_MICROS)} $) per task`,
  );
