import 'server-only';
import type { Executor } from '@holdfast/engine/db';
import { getDemoSideEffects, type DemoSideEffects } from '../fleet/side-effects-view';
import { getOverview, type OverviewView } from '../queries/overview';
import { getEnvironment } from '@holdfast/engine/env';
import { resolveTimeWindow, type TimeWindowName } from '@holdfast/protocol/time-window';
import { getFleetEvents, type StepEvent } from '../queries/step-events';

/** What the Overview shows: the product's figures, and the demo fleet's side effects when there are any. */
export type ConsoleOverview = OverviewView & {
  sideEffects: DemoSideEffects;
  /** The window's pauses, breakers and new versions, marked on the charts (lib/queries/step-events.ts). */
  events: StepEvent[];
};

export async function getConsoleOverview(db: Executor, window: TimeWindowName, now: Date): Promise<ConsoleOverview> {
  const { HOLDFAST_FROZEN_AFTER_DAYS: frozenAfterDays } = getEnvironment();
  const [overview, sideEffects, events] = await Promise.all([
    getOverview(db, window, now, { frozenAfterDays }),
    getDemoSideEffects(db),
    getFleetEvents(db, resolveTimeWindow(window, now)),
  ]);
  return { ...overview, sideEffects, events };
}
