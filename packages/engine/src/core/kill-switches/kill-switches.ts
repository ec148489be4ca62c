import { eq } from 'drizzle-orm';
import type { z } from 'zod';
import { killSwitches } from '../../db/schema';
import type { Executor } from '../../db/client';
import { writeAudit } from '../audit/audit-log';
import { authorize } from '../identity/authorization';
import { actorLabel, type CoreContext } from '../kernel/context';
import { parseInput } from '@holdfast/protocol/validation';
import { setKillSwitchInput, type KillSwitchName } from './kill-switches-input';

export { killSwitchNames, type KillSwitchName } from './kill-switches-input';

export async function isKillSwitchEngaged(db: Executor, name: KillSwitchName): Promise<boolean> {
  const [row] = await db
    .select({ engaged: killSwitches.engaged })
    .from(killSwitches)
    .where(eq(killSwitches.name, name));
  return row?.engaged ?? false;
}

/** Flips a kill switch, audit-logged in the same transaction. */
export async function setKillSwitch(ctx: CoreContext, input: z.input<typeof setKillSwitchInput>): Promise<void> {
  const actor = authorize(ctx, 'kill_switch.set');
  const { name, engaged, reason } = parseInput(setKillSwitchInput, input);
  await ctx.db.transaction(async (tx) => {
    const before = await isKillSwitchEngaged(tx, name);
    await tx
      .insert(killSwitches)
      .values({ name, engaged, reason, changedBy: actorLabel(actor) })
      .onConflictDoUpdate({
        target: killSwitches.name,
        set: { engaged, reason, changedBy: actorLabel(actor), changedAt: new Date() },
      });
    await writeAudit(tx, actor, {
      action: 'kill_switch.set',
      targetType: 'kill_switch',
      targetId: name,
      reason,
      before: { engaged: before },
      after: { engaged },
    });
  });
}
