import 'server-only';
import type { Executor } from '@holdfast/engine/db';
import type { StepName } from '@holdfast/engine/rollups';
import type { TimeRange } from '@holdfast/protocol/time-window';
import { type CostSourceMix, getCostSourceMix } from './cost-source-mix';
import { stepExists } from '@holdfast/engine/core';
import { getStepDetail } from './step-detail';
import { getStepSources, type StepSource } from './step-sources';

/** What a step's page shows: its figures over the window, how its attempts reached Holdfast, where its costs came from. */
export interface StepPageView {
  detail: Awaited<ReturnType<typeof getStepDetail>>;
  sources: StepSource[];
  costMix: CostSourceMix;
}

/**
 * A step's page read model. A step nothing has ever named (no attempt, rollup
 * or pool) is undefined, not a step with an empty window: the page answers 404.
 * `rawFloor` is where the raw attempt log begins (the cost mix reads it alone).
 */
export async function getStepPage(
  db: Executor,
  names: StepName,
  range: TimeRange,
  rawFloor: Date,
): Promise<StepPageView | undefined> {
  if (!(await stepExists(db, names))) return undefined;
  const [detail, sources, costMix] = await Promise.all([
    getStepDetail(db, { ...range, ...names, minuteFloor: rawFloor }),
    getStepSources(db, [names]),
    getCostSourceMix(db, { ...range, ...names, rawFloor }),
  ]);
  return { detail, sources: sources.get(`${names.agent}/${names.step}`) ?? [], costMix };
}
