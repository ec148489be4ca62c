import { asc, eq, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Executor } from '../../db/client';
import { deadLetters, idempotencyKeys, taskBudgets, type DeadLetter } from '../../db/schema';
import { authorize } from '../identity/authorization';
import { nowOf, policyOf, type CoreContext } from '../kernel/context';
import { InvalidInputError, redriveBrakeRules, type RedriveBrakeRule } from '@holdfast/protocol/errors';
import { hashContent } from '@holdfast/protocol/keys/derive-key';
import { parseInput } from '@holdfast/protocol/validation';
import { deadLetterFilter, pendingMatching } from './dead-letter-filter';
import { redriveBrakesRefusing } from './redrive-brakes';

/** A bulk redrive takes on at most this many dead letters; narrow the filter for more. */
export const BULK_REDRIVE_LIMIT = 10_000;

/** What redriving a dead letter will do to its failed step, judged from the step's key now. */
export const redriveOutcomes = [
  'runs_again',
  'replays_result',
  'conflicts_in_progress',
  'payload_mismatch',
  'held_uncertain',
] as const;
export type RedriveOutcome = (typeof redriveOutcomes)[number];

type KeyFacts = Pick<
  typeof idempotencyKeys.$inferSelect,
  'status' | 'requestHash' | 'lockedUntil' | 'downstreamIdempotent'
>;

/** Mirrors what runStep's claim will decide when the redriven task reaches the step again. */
export function judgeRedrive(payload: unknown, key: KeyFacts | undefined, now: Date): RedriveOutcome {
  if (!key) return 'runs_again';
  if (key.requestHash !== hashContent(payload ?? null)) return 'payload_mismatch';
  if (key.status === 'completed') return 'replays_result';
  if (key.status === 'failed') return 'runs_again';
  if (key.lockedUntil && key.lockedUntil > now) return 'conflicts_in_progress';
  return key.downstreamIdempotent ? 'runs_again' : 'held_uncertain';
}

export interface BulkRedrivePreview {
  total: number;
  /** What will happen to the failed steps of the items the brakes let through. */
  outcomes: Record<RedriveOutcome, number>;
  /** Items the redrive brakes will skip, per brake; an item refused by two brakes counts under both. */
  braked: Record<RedriveBrakeRule, number>;
  /** Items the redrive brakes will skip, each counted once: total = this + the outcomes' sum. */
  brakedTotal: number;
  /**
   * Of the items the brakes let through, those whose last failure was `permanent` (a 4xx, a refusal): redriven
   * unchanged they will most likely fail the same way, so the preview warns with this count.
   */
  lastFailedPermanently: number;
  /** Dead letters whose step runs again, times that step's average cost per attempt over the last 7 days; null without history. */
  expectedSpendMicros: number | null;
  /** The first items, each with what will happen to it: the brakes that skip it (if any), else its step's outcome. */
  sample: { deadLetter: DeadLetter; outcome: RedriveOutcome; brakes: RedriveBrakeRule[] }[];
}

/**
 * Dead letters with what a redrive of each is judged by: its failed step's key (by the key's derived name) and its
 * task's redrive history. The caller adds which dead letters.
 */
export function selectRedriveCandidates(db: Executor) {
  return db
    .select({
      deadLetter: deadLetters,
      key: idempotencyKeys,
      history: {
        redrivesUsed: taskBudgets.redrivesUsed,
        lastRedriveAt: taskBudgets.lastRedriveAt,
        createdAt: taskBudgets.createdAt,
      },
    })
    .from(deadLetters)
    .leftJoin(idempotencyKeys, eq(idempotencyKeys.key, sql`${deadLetters.taskId} || '/' || ${deadLetters.step}`))
    .leftJoin(taskBudgets, eq(taskBudgets.taskId, deadLetters.taskId));
}

/** What a bulk redrive of this filter would do, item by item, without doing it. */
export async function previewBulkRedrive(
  ctx: CoreContext,
  input: z.input<typeof deadLetterFilter>,
): Promise<BulkRedrivePreview> {
  authorize(ctx, 'dead_letter.redrive');
  const filter = parseInput(deadLetterFilter, input);
  const rows = await selectRedriveCandidates(ctx.db)
    .where(pendingMatching(filter))
    .orderBy(asc(deadLetters.id))
    .limit(BULK_REDRIVE_LIMIT + 1);
  refuseOversized(rows.length);

  const now = nowOf(ctx);
  const brakes = policyOf(ctx).redriveBrakes;
  const outcomes = Object.fromEntries(redriveOutcomes.map((outcome) => [outcome, 0])) as Record<RedriveOutcome, number>;
  const braked = Object.fromEntries(redriveBrakeRules.map((rule) => [rule, 0])) as Record<RedriveBrakeRule, number>;
  let brakedTotal = 0;
  const judged = rows.map(({ deadLetter, key, history }) => {
    const outcome = judgeRedrive(deadLetter.payload, key ?? undefined, now);
    // As in redriveInTransaction: a task without a budget row has no history to brake on.
    const rules = history ? redriveBrakesRefusing(history, brakes, now).map((refusal) => refusal.rule) : [];
    for (const rule of rules) braked[rule] += 1;
    if (rules.length > 0) brakedTotal += 1;
    else outcomes[outcome] += 1;
    return { deadLetter, outcome, brakes: rules };
  });

  const rerun = judged.filter((item) => item.brakes.length === 0 && item.outcome === 'runs_again');
  const costs = await averageCostPerAttempt(
    ctx.db,
    rerun.map((item) => item.deadLetter),
  );
  const priced = rerun.filter((item) => costs.has(`${item.deadLetter.agent}/${item.deadLetter.step}`));
  const expectedSpendMicros =
    rerun.length > 0 && priced.length === 0
      ? null
      : Math.round(
          priced.reduce((sum, item) => sum + costs.get(`${item.deadLetter.agent}/${item.deadLetter.step}`)!, 0),
        );

  const lastFailedPermanently = judged.filter(
    (item) => item.brakes.length === 0 && item.deadLetter.errorClass === 'permanent',
  ).length;
  return {
    total: rows.length,
    outcomes,
    braked,
    brakedTotal,
    lastFailedPermanently,
    expectedSpendMicros,
    sample: judged.slice(0, 50),
  };
}

export function refuseOversized(count: number): void {
  if (count > BULK_REDRIVE_LIMIT) {
    throw new InvalidInputError(
      `More than ${BULK_REDRIVE_LIMIT.toLocaleString('en-US')} dead letters match: narrow the filter`,
      {
        filter: [`matches more than ${BULK_REDRIVE_LIMIT} dead letters`],
      },
    );
  }
}

/** Average cost of one attempt per (agent, step), over the last 7 days of hourly rollups. */
async function averageCostPerAttempt(db: Executor, letters: DeadLetter[]): Promise<Map<string, number>> {
  const agents = [...new Set(letters.map((letter) => letter.agent))];
  if (agents.length === 0) return new Map();
  const rows = await db.execute<{ key: string; average: string | null }>(sql`
    select agent || '/' || step as key, sum(cost_micros)::float8 / nullif(sum(attempts), 0) as average
    from attempt_rollups
    where grain = 'hour' and bucket_start >= now() - interval '7 days' and agent in ${agents}
    group by agent, step`);
  return new Map(rows.filter((row) => row.average !== null).map((row) => [row.key, Number(row.average)]));
}
