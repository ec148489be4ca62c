import { and, eq } from 'drizzle-orm';
import { stepOwners, type StepOwner } from '../../db/schema';
import { auditTrail } from '../audit/audit-trail';
import { defaultOwnerOf, resolveOwner } from '../holds/known-owner';
import { authorize } from '../identity/authorization';
import { actorLabel, nowOf, type CoreContext } from '../kernel/context';
import { agentExists, stepExists } from '../kernel/known-step';
import { InvalidInputError, NotFoundError } from '@holdfast/protocol/errors';
import { ALL_STEPS } from '@holdfast/protocol/names';
import { parseInput } from '@holdfast/protocol/validation';
import {
  removeStepOwnerInput,
  saveStepOwnerInput,
  type RemoveStepOwnerInput,
  type SaveStepOwnerInput,
} from '@holdfast/protocol/inputs/owner-input';

/** What an audit record keeps of an owner row. */
const ownerView = (row: StepOwner) => ({ owner: row.owner, contact: row.contact, runbookUrl: row.runbookUrl });
const ownerAudit = auditTrail('step_owner', (row: StepOwner) => `${row.agent}/${row.step}`, ownerView);

const UNKNOWN_OWNER =
  'names no known team or person: add the team or person in Settings, People (or route an alert channel to the team) first';

/** Refuses a step or agent nothing has named: an owner for a typo would page nobody about nothing. */
async function requireKnown(ctx: CoreContext, agent: string, step: string) {
  const known = step === ALL_STEPS ? await agentExists(ctx.db, agent) : await stepExists(ctx.db, { agent, step });
  if (!known)
    throw new NotFoundError(
      step === ALL_STEPS ? `No agent "${agent}" is known` : `No step "${step}" of agent "${agent}" is known`,
    );
}

/**
 * Admins name who owns an agent's steps (step `*`) or one step: the owner, its on-call contact and runbook. The
 * owner must be a known team or person (an owner nobody is in would be paged for nothing). Audited in the same
 * transaction; saving what is stored already writes nothing.
 */
export async function saveStepOwner(
  ctx: CoreContext,
  input: SaveStepOwnerInput,
): Promise<{ changed: boolean; owner: StepOwner }> {
  const actor = authorize(ctx, 'owner.manage');
  const { reason, ...request } = parseInput(saveStepOwnerInput, input);
  await requireKnown(ctx, request.agent, request.step);
  const resolved = await resolveOwner(ctx.db, request.owner, defaultOwnerOf(ctx));
  if (resolved.unknownOwner !== undefined)
    throw new InvalidInputError(`Invalid input: owner: ${UNKNOWN_OWNER}`, { owner: [UNKNOWN_OWNER] });
  const values = {
    agent: request.agent,
    step: request.step,
    owner: resolved.owner,
    contact: request.contact ?? null,
    runbookUrl: request.runbookUrl ?? null,
  };
  return ctx.db.transaction(async (tx) => {
    const [before] = await tx
      .select()
      .from(stepOwners)
      .where(and(eq(stepOwners.agent, values.agent), eq(stepOwners.step, values.step)))
      .for('update');
    if (
      before &&
      before.owner === values.owner &&
      before.contact === values.contact &&
      before.runbookUrl === values.runbookUrl
    )
      return { changed: false, owner: before };
    const [after] = await tx
      .insert(stepOwners)
      .values({ ...values, updatedBy: actorLabel(actor), updatedAt: nowOf(ctx) })
      .onConflictDoUpdate({
        target: [stepOwners.agent, stepOwners.step],
        set: {
          owner: values.owner,
          contact: values.contact,
          runbookUrl: values.runbookUrl,
          updatedBy: actorLabel(actor),
          updatedAt: nowOf(ctx),
        },
      })
      .returning();
    if (!after) throw new Error('saveStepOwner: the upsert returned no row');
    await ownerAudit(tx, actor, 'owner.save', { reason, before, after });
    return { changed: true, owner: after };
  });
}

/** Admins remove a named owner: the step goes back to the agent's row, or to what the agent declares. Audited. */
export async function removeStepOwner(ctx: CoreContext, input: RemoveStepOwnerInput): Promise<{ removed: boolean }> {
  const actor = authorize(ctx, 'owner.manage');
  const { reason, agent, step } = parseInput(removeStepOwnerInput, input);
  return ctx.db.transaction(async (tx) => {
    const [removed] = await tx
      .delete(stepOwners)
      .where(and(eq(stepOwners.agent, agent), eq(stepOwners.step, step)))
      .returning();
    if (!removed) return { removed: false };
    await ownerAudit(tx, actor, 'owner.remove', { reason, before: removed });
    return { removed: true };
  });
}
