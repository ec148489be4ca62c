import 'server-only';
import type { Executor } from '@holdfast/engine/db';
import { getDemoSideEffects, type DemoSideEffects } from '../fleet/side-effects-view';
import { getOverview, type OverviewView } from '../queries/overview';
import { getEnvironment } from '@holdfast/engine/env';
import type { TimeWindowName } from '@holdfast/protocol/time-window';

/** What the Overview shows: the product's figures, and the demo fleet's side effects when there are any. */
export type ConsoleOverview = OverviewView & { sideEffects: DemoSideEffects };

export async function getConsoleOverview(db: Executor, window: TimeWindowName, now: Date): Promise<ConsoleOverview> {
  const { HOLDFAST_FROZEN_AFTER_DAYS: frozenAfterDays } = getEnvironment();
  const [overview, sideEffects] = await Promise.all([
    getOverview(db, window, now, { frozenAfterDays }),
    getDemoSideEffects(db),
  ]);
  return { ...overview, sideEffects };
}
