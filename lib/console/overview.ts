import 'server-only';
import type { Executor } from '../db/client';
import { getDemoSideEffects, type DemoSideEffects } from '../fleet/side-effects-view';
import { getOverview, type OverviewView } from '../queries/overview';
import type { TimeWindowName } from '../time-window';

/** What the Overview shows: the product's figures, and the demo fleet's side effects when there are any. */
export type ConsoleOverview = OverviewView & { sideEffects: DemoSideEffects };

export async function getConsoleOverview(db: Executor, window: TimeWindowName, now: Date): Promise<ConsoleOverview> {
  const [overview, sideEffects] = await Promise.all([getOverview(db, window, now), getDemoSideEffects(db)]);
  return { ...overview, sideEffects };
}
