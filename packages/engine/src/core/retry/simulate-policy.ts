import { sql } from 'drizzle-orm';
import type { ErrorClass } from '../../db/schema';
import { authorize } from '../identity/authorization';
import { nowOf, type CoreContext } from '../kernel/context';
import { InvalidInputError, StateConflictError } from '@holdfast/protocol/errors';
import { parseInput } from '@holdfast/protocol/validation';
import { retrySpendOf } from '../attempts/retry-spend';
import { simulatePolicyInput, type SimulatePolicyInput } from './simulate-policy-input';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** What a policy would have changed, for the executions it would have stopped, per error class of the stopping failure. */
export interface SimulatedChange {
  /** Executions (a task's pass of the step) the policy would have stopped before they ended. */
  stoppedEarlier: number;
  /** Attempts that would not have been made (all of them retries). */
  attemptsSaved: number;
  /** Retry spend (retry-spend.ts) the executions would not have had: the cut executions' against the real ones. */
  retrySpendSavedMicros: number;
  /** Executions that succeeded only at an attempt the policy would not have made: they would have ended failed. */
  successesLost: number;
  /** From the stopping failure's end to the execution's real end, summed: how much sooner they would have ended. */
  timeSavedMs: number;
}

export interface PolicySimulation extends SimulatedChange {
  /** The executions replayed: those whose first attempt started in these whole hours (the last may be open). */
  window: { from: Date; to: Date };
  /** Executions of the step begun in the window (their first attempts). */
  executions: number;
  byErrorClass: (SimulatedChange & { errorClass: ErrorClass })[];
}

/** One attempt position of one shape, summed over the window's hours (execution_shape_hours). */
type ShapePosition = {
  shape: string;
  attempt_number: number;
  executions: number;
  cost_micros: string;
  to_end_ms: string;
};

/**
 * Replays a step's executions over a window under another policy (at most N
 * attempts per execution, only some classes retried): an execution stops at
 * its first failed attempt numbered N or more, or whose class the policy does
 * not retry; every later attempt of it is one the policy would not have made.
 *
 * It reads the executions summed by shape per hour (execution_shape_hours,
 * kept by the rollup pass), so 30 days of a busy step are a few thousand rows:
 * exact as of the last pass (within a minute), in whole hours (the hour
 * holding `from` to the one holding `to`), counting each execution begun in
 * them with all its attempts. The window must lie within the raw retention:
 * shapes are kept as long as the raw log they come from.
 */
export async function simulateRetryPolicy(
  ctx: CoreContext,
  input: SimulatePolicyInput,
  options: { rawRetentionDays: number },
): Promise<PolicySimulation> {
  const request = parseInput(simulatePolicyInput, input);
  // A token limited to some agents replays only theirs.
  authorize(ctx, 'console.read', { agent: request.agent });
  const now = nowOf(ctx);
  const floor = new Date(now.getTime() - options.rawRetentionDays * DAY_MS);
  if (request.from < floor) {
    throw new InvalidInputError(
      `The window starts before the raw attempts kept (${options.rawRetentionDays} days, from ${floor.toISOString()})`,
      { from: [`must be within the raw retention of ${options.rawRetentionDays} days (from ${floor.toISOString()})`] },
    );
  }
  const [state] = await ctx.db.execute<{ filled: boolean }>(
    // The execution shapes' own row (rollup_family_state): whether they hold every hour kept raw.
    sql`select coalesce((state->>'filled')::boolean, false) as filled from rollup_family_state where family = 'execution shapes'`,
  );
  if (!state?.filled) {
    // Just after the upgrade that added the shapes, until the first rollup pass fills them: zeros would mislead.
    throw new StateConflictError(
      'The rollup pass has not yet filled the execution shapes the simulator reads (it does on its first run after an upgrade); try again in a few minutes',
    );
  }
  const from = new Date(Math.floor(request.from.getTime() / HOUR_MS) * HOUR_MS);
  const to = new Date(
    Math.min(Math.ceil(request.to.getTime() / HOUR_MS) * HOUR_MS, Math.max(now.getTime(), from.getTime())),
  );
  const positions = await ctx.db.execute<ShapePosition>(sql`
    select shape, attempt_number, sum(executions)::int as executions, sum(cost_micros)::text as cost_micros,
      sum(to_end_ms)::text as to_end_ms
    from execution_shape_hours
    where agent = ${request.agent}::text and step = ${request.step}::text
      and hour >= ${from.toISOString()}::timestamptz and hour < ${request.to.toISOString()}::timestamptz
    group by shape, attempt_number`);

  const policy = { maxAttempts: request.maxAttempts, retried: new Set<string>(request.retriedClasses) };
  const byClass = new Map<ErrorClass, SimulatedChange>();
  let executions = 0;
  for (const [shape, byAttempt] of groupByShape(positions)) {
    executions += byAttempt.get(1)?.executions ?? 0;
    const replayed = replayShape(shape, byAttempt, policy);
    if (!replayed) continue;
    const sums = byClass.get(replayed.errorClass) ?? emptyChange();
    byClass.set(replayed.errorClass, addChanges(sums, replayed.change));
  }
  const byErrorClass = [...byClass]
    .map(([errorClass, change]) => ({ errorClass, ...change }))
    .sort((a, b) => b.retrySpendSavedMicros - a.retrySpendSavedMicros || a.errorClass.localeCompare(b.errorClass));
  const total = byErrorClass.reduce<SimulatedChange>(addChanges, emptyChange());
  return { window: { from, to }, executions, ...total, byErrorClass };
}

function groupByShape(positions: ShapePosition[]): Map<string, Map<number, ShapePosition>> {
  const shapes = new Map<string, Map<number, ShapePosition>>();
  for (const position of positions) {
    const byAttempt = shapes.get(position.shape) ?? new Map<number, ShapePosition>();
    byAttempt.set(position.attempt_number, position);
    shapes.set(position.shape, byAttempt);
  }
  return shapes;
}

/**
 * Where the policy stops one shape, and what every execution of that shape
 * would have been spared: undefined when the policy would have made every
 * attempt it made. A shape reads `1:transient 2:timeout 3:ok`.
 */
function replayShape(
  shape: string,
  byAttempt: Map<number, ShapePosition>,
  policy: { maxAttempts: number; retried: Set<string> },
): { errorClass: ErrorClass; change: SimulatedChange } | undefined {
  const tries = shape.split(' ').map((token) => {
    const [attemptNumber, ended] = token.split(':') as [string, string];
    return { attemptNumber: Number(attemptNumber), ended };
  });
  const stop = tries.findIndex(
    ({ attemptNumber, ended }) =>
      ended !== 'ok' && ended !== 'running' && (attemptNumber >= policy.maxAttempts || !policy.retried.has(ended)),
  );
  const spared = stop === -1 ? [] : tries.slice(stop + 1);
  if (spared.length === 0) return undefined;
  const stopped = byAttempt.get(tries[stop]!.attemptNumber)!;
  // Retry spend is linear in the costs once the outcomes are fixed, so the shape's summed costs give the sum of
  // its executions' retry spend, as they ran and as the policy would have cut them (all failed, up to the stop).
  const ended = tries.map(({ attemptNumber, ended }) => ({
    outcome: ended === 'ok' ? ('succeeded' as const) : ended === 'running' ? ('running' as const) : ('failed' as const),
    costMicros: Number(byAttempt.get(attemptNumber)?.cost_micros ?? 0),
  }));
  return {
    errorClass: tries[stop]!.ended as ErrorClass,
    change: {
      stoppedEarlier: stopped.executions,
      attemptsSaved: spared.length * stopped.executions,
      retrySpendSavedMicros: retrySpendOf(ended) - retrySpendOf(ended.slice(0, stop + 1)),
      successesLost: spared.some(({ ended }) => ended === 'ok') ? stopped.executions : 0,
      timeSavedMs: Math.round(Number(stopped.to_end_ms)),
    },
  };
}

const emptyChange = (): SimulatedChange => ({
  stoppedEarlier: 0,
  attemptsSaved: 0,
  retrySpendSavedMicros: 0,
  successesLost: 0,
  timeSavedMs: 0,
});

function addChanges(sum: SimulatedChange, each: SimulatedChange): SimulatedChange {
  return {
    stoppedEarlier: sum.stoppedEarlier + each.stoppedEarlier,
    attemptsSaved: sum.attemptsSaved + each.attemptsSaved,
    retrySpendSavedMicros: sum.retrySpendSavedMicros + each.retrySpendSavedMicros,
    successesLost: sum.successesLost + each.successesLost,
    timeSavedMs: sum.timeSavedMs + each.timeSavedMs,
  };
}
