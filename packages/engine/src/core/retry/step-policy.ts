import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { stepPolicies, type ErrorClass, type StepPolicy } from '../../db/schema';
import { writeAudit } from '../audit/audit-log';
import { authorize } from '../identity/authorization';
import { actorLabel, type CoreContext } from '../kernel/context';
import { NotFoundError } from '@holdfast/protocol/errors';
import { parseInput } from '@holdfast/protocol/validation';
import { stepExists } from '../kernel/known-step';
import type { RetryPolicy } from './decide-retry';
import {
  removeStepPolicyInput,
  saveStepPolicyInput,
  type RemoveStepPolicyInput,
  type SaveStepPolicyInput,
} from '@holdfast/protocol/inputs/step-policy-input';

/** The parts of an override, as the audit record keeps them (null: as the agent sends it). */
function overrideOf(policy: StepPolicy | undefined) {
  return {
    maxAttempts: policy?.maxAttempts ?? null,
    retriedClasses: policy?.retriedClasses ?? null,
    baseDelayMs: policy?.baseDelayMs ?? null,
    maxDelayMs: policy?.maxDelayMs ?? null,
    retryAllowance: policy?.retryAllowance ?? null,
  };
}

export async function readStepPolicy(
  db: Executor,
  names: { agent: string; step: string },
): Promise<StepPolicy | undefined> {
  const [policy] = await db
    .select()
    .from(stepPolicies)
    .where(and(eq(stepPolicies.agent, names.agent), eq(stepPolicies.step, names.step)));
  return policy;
}

/**
 * Admins override a step's retry policy; the next begin and finish of the
 * step use it. Audited with before and after in the same transaction; saving
 * the same override again writes nothing.
 */
export async function saveStepPolicy(
  ctx: CoreContext,
  input: SaveStepPolicyInput,
): Promise<{ changed: boolean; policy: StepPolicy }> {
  const actor = authorize(ctx, 'retry_policy.manage');
  const { reason, agent, step, ...parts } = parseInput(saveStepPolicyInput, input);
  if (!(await stepExists(ctx.db, { agent, step })))
    throw new NotFoundError(`No step "${step}" of agent "${agent}" is known`);
  const values = {
    maxAttempts: parts.maxAttempts ?? null,
    retriedClasses: (parts.retriedClasses as ErrorClass[] | undefined) ?? null,
    baseDelayMs: parts.baseDelayMs ?? null,
    maxDelayMs: parts.maxDelayMs ?? null,
    retryAllowance: parts.retryAllowance ?? null,
  };
  return ctx.db.transaction(async (tx) => {
    const before = await readStepPolicy(tx, { agent, step });
    if (before && JSON.stringify(overrideOf(before)) === JSON.stringify(values))
      return { changed: false, policy: before };
    const [policy] = await tx
      .insert(stepPolicies)
      .values({ agent, step, ...values, updatedBy: actorLabel(actor) })
      .onConflictDoUpdate({
        target: [stepPolicies.agent, stepPolicies.step],
        set: { ...values, updatedBy: actorLabel(actor), updatedAt: new Date() },
      })
      .returning();
    await writeAudit(tx, actor, {
      action: 'step_policy.save',
      targetType: 'step',
      targetId: `${agent}/${step}`,
      reason,
      before: overrideOf(before),
      after: values,
    });
    return { changed: true, policy: policy as StepPolicy };
  });
}

/** Admins remove a step's override: the policy is again the agent's. A step with none: a no-op, no audit. */
export async function removeStepPolicy(ctx: CoreContext, input: RemoveStepPolicyInput): Promise<{ removed: boolean }> {
  const actor = authorize(ctx, 'retry_policy.manage');
  const { agent, step, reason } = parseInput(removeStepPolicyInput, input);
  return ctx.db.transaction(async (tx) => {
    const [removed] = await tx
      .delete(stepPolicies)
      .where(and(eq(stepPolicies.agent, agent), eq(stepPolicies.step, step)))
      .returning();
    if (!removed) return { removed: false };
    await writeAudit(tx, actor, {
      action: 'step_policy.remove',
      targetType: 'step',
      targetId: `${agent}/${step}`,
      reason,
      before: overrideOf(removed),
      after: overrideOf(undefined),
    });
    return { removed: true };
  });
}

/** The backoff a step's override makes of the policy in force. */
export function backoffWith(policy: RetryPolicy, override: StepPolicy | undefined): RetryPolicy {
  const baseDelayMs = override?.baseDelayMs ?? policy.baseDelayMs;
  return { baseDelayMs, maxDelayMs: Math.max(baseDelayMs, override?.maxDelayMs ?? policy.maxDelayMs) };
}
