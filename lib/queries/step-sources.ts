import 'server-only';
import { sql } from 'drizzle-orm';
import type { Executor } from '@holdfast/engine/db';
import {
  attemptSources,
  type AttemptSource,
  type StepCostSourceName,
  stepCostSourceNames,
} from '@holdfast/engine/db/schema';
import type { StepName } from '@holdfast/engine/rollups';

/** One way a step's attempts reached Holdfast, and the latest start of an attempt that came that way. */
export interface StepSource {
  source: AttemptSource;
  lastSeenAt: Date;
}

/** One way a step's attempts were costed, and the latest start of an attempt costed that way. */
export interface StepCostSource {
  costSource: StepCostSourceName;
  lastSeenAt: Date;
}

const stepKey = (agent: string, step: string) => `${agent}/${step}`;

/**
 * What the rollup pass notes of each step (step_sources: how its attempts arrived; step_cost_sources: how they were
 * costed), as (way, latest start) per step, keyed `agent/step`, each list in the order `ways` gives.
 */
const noted = {
  arrival: { table: sql.raw('step_sources'), column: sql.raw('source') },
  costing: { table: sql.raw('step_cost_sources'), column: sql.raw('cost_source') },
} as const;

async function readNotedWays<Way extends string>(
  db: Executor,
  kind: keyof typeof noted,
  ways: readonly Way[],
  steps: StepName[],
): Promise<Map<string, { way: Way; lastSeenAt: Date }[]>> {
  const byStep = new Map<string, { way: Way; lastSeenAt: Date }[]>();
  if (steps.length === 0) return byStep;
  const { table, column } = noted[kind];
  // A VALUES list semi-join, as packages/engine/src/rollups/figures.ts matches a page of steps.
  const pairs = steps.map(({ agent, step }) => sql`(${agent}::text, ${step}::text)`);
  const rows = await db.execute<{ agent: string; step: string; way: Way; last_seen_at: Date | string }>(sql`
    select agent, step, ${column} as way, last_seen_at from ${table}
    where (agent, step) in (select wanted.agent, wanted.step from (values ${sql.join(pairs, sql`, `)}) as wanted(agent, step))`);
  for (const row of rows) {
    const key = stepKey(row.agent, row.step);
    byStep.set(key, [...(byStep.get(key) ?? []), { way: row.way, lastSeenAt: new Date(row.last_seen_at) }]);
  }
  for (const list of byStep.values()) list.sort((a, b) => ways.indexOf(a.way) - ways.indexOf(b.way));
  return byStep;
}

/** The steps, keyed `agent/step`, some of whose kept attempts came or were costed this way (the Steps filters). */
async function readStepsNoted(db: Executor, kind: keyof typeof noted, way: string): Promise<Set<string>> {
  const { table, column } = noted[kind];
  const rows = await db.execute<{ agent: string; step: string }>(
    sql`select agent, step from ${table} where ${column} = ${way}`,
  );
  return new Set(rows.map((row) => stepKey(row.agent, row.step)));
}

/**
 * The ways each of these steps' attempts reached Holdfast (step_sources, kept by the rollup pass), keyed
 * `agent/step`, in the order library, http, traces. A step recorded before sources were kept has none.
 */
export async function getStepSources(db: Executor, steps: StepName[]): Promise<Map<string, StepSource[]>> {
  const ways = await readNotedWays(db, 'arrival', attemptSources, steps);
  return new Map(
    [...ways].map(([key, list]) => [key, list.map(({ way, lastSeenAt }) => ({ source: way, lastSeenAt }))]),
  );
}

/** The steps, keyed `agent/step`, whose attempts have reached Holdfast this way (the Steps page's source filter). */
export function getStepsWithSource(db: Executor, source: AttemptSource): Promise<Set<string>> {
  return readStepsNoted(db, 'arrival', source);
}

/**
 * How each of these steps' kept attempts were costed (step_cost_sources, kept by the rollup pass), keyed
 * `agent/step`, in the order reported, priced, rule, none, unrecorded.
 */
export async function getStepCostSources(db: Executor, steps: StepName[]): Promise<Map<string, StepCostSource[]>> {
  const ways = await readNotedWays(db, 'costing', stepCostSourceNames, steps);
  return new Map(
    [...ways].map(([key, list]) => [key, list.map(({ way, lastSeenAt }) => ({ costSource: way, lastSeenAt }))]),
  );
}

/** The steps, keyed `agent/step`, some of whose kept attempts were costed this way (the Steps page's filter). */
export function getStepsWithCostSource(db: Executor, source: StepCostSourceName): Promise<Set<string>> {
  return readStepsNoted(db, 'costing', source);
}
