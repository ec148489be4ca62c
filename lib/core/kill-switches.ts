import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { killSwitches } from '../db/schema';
import type { Executor } from '../db/client';
import { writeAudit } from './audit';
import { authorize } from './authorization';
import { actorLabel, type CoreContext } from './context';
import { parseInput } from './validation';

/** The switches Holdfast knows; engaged means the behaviour is stopped. */
export const killSwitchNames = ['stale_lock_release'] as const;
export type KillSwitchName = (typeof killSwitchNames)[number];

export async function isKillSwitchEngaged(db: Executor, name: KillSwitchName): Promise<boolean> {
  const [row] = await db.select({ engaged: killSwitches.engaged }).from(killSwitches).where(eq(killSwitches.name, name));
  return row?.engaged ?? false;
}

const setKillSwitchInput = z.strictObject({
  name: z.enum(killSwitchNames),
  engaged: z.boolean(),
  reason: z.string().trim().min(1, 'say why the switch is flipped').max(2_000),
});

/** Flips a kill switch, audit-logged in the same transaction. */
export async function setKillSwitch(ctx: CoreContext, input: z.input<typeof setKillSwitchInput>): Promise<void> {
  const actor = authorize(ctx, 'kill_switch.set');
  const { name, engaged, reason } = parseInput(setKillSwitchInput, input);
  await ctx.db.transaction(async (tx) => {
    const before = await isKillSwitchEngaged(tx, name);
    await tx
      .insert(killSwitches)
      .values({ name, engaged, reason, changedBy: actorLabel(actor) })
      .onConflictDoUpdate({ target: killSwitches.name, set: { engaged, reason, changedBy: actorLabel(actor), changedAt: new Date() } });
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
