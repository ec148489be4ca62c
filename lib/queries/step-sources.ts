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

const stepKey = (agent: string, step: string) => `${agent}/${step}`;
const byListedOrder = (a: StepSource, b: StepSource) =>
  attemptSources.indexOf(a.source) - attemptSources.indexOf(b.source);

/**
 * The ways each of these steps' attempts reached Holdfast (step_sources, kept by the rollup pass), keyed
 * `agent/step`, in the order library, http, traces. A step recorded before sources were kept has none.
 */
export async function getStepSources(db: Executor, steps: StepName[]): Promise<Map<string, StepSource[]>> {
  const sources = new Map<string, StepSource[]>();
  if (steps.length === 0) return sources;
  // A VALUES list semi-join, as packages/engine/src/rollups/figures.ts matches a page of steps.
  const pairs = steps.map(({ agent, step }) => sql`(${agent}::text, ${step}::text)`);
  const rows = await db.execute<{
    agent: string;
    step: string;
    source: AttemptSource;
    last_seen_at: Date | string;
  }>(sql`
    select agent, step, source, last_seen_at from step_sources
    where (agent, step) in (select wanted.agent, wanted.step from (values ${sql.join(pairs, sql`, `)}) as wanted(agent, step))`);
  for (const row of rows) {
    const key = stepKey(row.agent, row.step);
    const list = sources.get(key) ?? [];
    list.push({ source: row.source, lastSeenAt: new Date(row.last_seen_at) });
    sources.set(key, list);
  }
  for (const list of sources.values()) list.sort(byListedOrder);
  return sources;
}

/** The steps, keyed `agent/step`, whose attempts have reached Holdfast this way (the Steps page's source filter). */
export async function getStepsWithSource(db: Executor, source: AttemptSource): Promise<Set<string>> {
  const rows = await db.execute<{ agent: string; step: string }>(
    sql`select agent, step from step_sources where source = ${source}`,
  );
  return new Set(rows.map((row) => stepKey(row.agent, row.step)));
}

/** One way a step's attempts were costed, and the latest start of an attempt costed that way. */
export interface StepCostSource {
  costSource: StepCostSourceName;
  lastSeenAt: Date;
}

/**
 * How each of these steps' kept attempts were costed (step_cost_sources, kept by the rollup pass), keyed
 * `agent/step`, in the order reported, priced, rule, none, unrecorded.
 */
export async function getStepCostSources(db: Executor, steps: StepName[]): Promise<Map<string, StepCostSource[]>> {
  const costed = new Map<string, StepCostSource[]>();
  if (steps.length === 0) return costed;
  const pairs = steps.map(({ agent, step }) => sql`(${agent}::text, ${step}::text)`);
  const rows = await db.execute<{
    agent: string;
    step: string;
    cost_source: StepCostSourceName;
    last_seen_at: Date | string;
  }>(sql`
    select agent, step, cost_source, last_seen_at from step_cost_sources
    where (agent, step) in (select wanted.agent, wanted.step from (values ${sql.join(pairs, sql`, `)}) as wanted(agent, step))`);
  for (const row of rows) {
    const key = stepKey(row.agent, row.step);
    costed.set(key, [
      ...(costed.get(key) ?? []),
      { costSource: row.cost_source, lastSeenAt: new Date(row.last_seen_at) },
    ]);
  }
  const place = (source: StepCostSource) => stepCostSourceNames.indexOf(source.costSource);
  for (const list of costed.values()) list.sort((a, b) => place(a) - place(b));
  return costed;
}

/** The steps, keyed `agent/step`, some of whose kept attempts were costed this way (the Steps page's filter). */
export async function getStepsWithCostSource(db: Executor, source: StepCostSourceName): Promise<Set<string>> {
  const rows = await db.execute<{ agent: string; step: string }>(
    sql`select agent, step from step_cost_sources where cost_source = ${source}`,
  );
  return new Set(rows.map((row) => stepKey(row.agent, row.step)));
}
