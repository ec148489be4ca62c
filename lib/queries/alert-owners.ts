import 'server-only';
import type { Executor } from '@holdfast/engine/db';
import type { StepName } from '@holdfast/engine/rollups';
import { getStepOwners, type StepOwnerView } from './step-owners';

/**
 * The step an alert is about, read from its identity (packages/engine/src/alerts/conditions.ts): a step's retry share
 * or refusals (`step:agent/step`), a step's breaker (`breaker:step:agent/step`), or a downstream's breaker, which is
 * one agent's (`breaker:downstream:agent/name`: the agent's `*`). Agent names hold no slash, so the first one splits.
 */
export function stepOfAlert(identity: string): StepName | null {
  const named = /^(?:step:|breaker:step:)([^/]+)\/(.+)$/.exec(identity);
  if (named) return { agent: named[1]!, step: named[2]! };
  const downstream = /^breaker:downstream:([^/]+)\//.exec(identity);
  return downstream ? { agent: downstream[1]!, step: '*' } : null;
}

/** The owner of what each alert is about, keyed by the alert's id; alerts about no step are left out. */
export async function getAlertOwners(
  db: Executor,
  alerts: { id: number; identity: string }[],
): Promise<Map<number, StepOwnerView>> {
  const about = alerts.flatMap((alert) => {
    const step = stepOfAlert(alert.identity);
    return step ? [{ id: alert.id, step }] : [];
  });
  if (about.length === 0) return new Map();
  const owners = await getStepOwners(
    db,
    about.map((each) => each.step),
  );
  return new Map(
    about.flatMap(({ id, step }) => {
      const owner = owners.get(`${step.agent}/${step.step}`);
      return owner ? [[id, owner] as const] : [];
    }),
  );
}
