import { eq } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { breakerSettings } from '../../db/schema';
import { writeAudit } from '../audit/audit-log';
import { authorize } from '../identity/authorization';
import { actorLabel, type CoreContext } from '../kernel/context';
import { parseInput } from '@holdfast/protocol/validation';
import { breakerSettingsInput, type BreakerSettingsInput } from './breaker-settings-input';

export interface BreakerSettings {
  windowSeconds: number;
  /** 0 to 1. */
  failureShare: number;
  minimumVolume: number;
  coolDownSeconds: number;
  probes: number;
}

/**
 * The defaults (docs/runbooks/circuit-open.md): a step or downstream whose
 * attempts fail as the downstream failing half the time or more, over a
 * minute holding at least 20 attempts, is given 30 s of rest, then 3 probes.
 */
export const DEFAULT_BREAKER_SETTINGS: BreakerSettings = {
  windowSeconds: 60,
  failureShare: 0.5,
  minimumVolume: 20,
  coolDownSeconds: 30,
  probes: 3,
};

export async function readBreakerSettings(
  db: Executor,
): Promise<BreakerSettings & { updatedBy?: string; updatedAt?: Date }> {
  const [row] = await db.select().from(breakerSettings).where(eq(breakerSettings.id, 1));
  if (!row) return DEFAULT_BREAKER_SETTINGS;
  const { id: _id, ...settings } = row;
  return settings;
}

/** Admins change the settings, audited with before and after in the same transaction; the next finish and begin use them. */
export async function saveBreakerSettings(ctx: CoreContext, input: BreakerSettingsInput): Promise<BreakerSettings> {
  const actor = authorize(ctx, 'breaker.manage');
  const { reason, failurePercent, ...rest } = parseInput(breakerSettingsInput, input);
  const settings: BreakerSettings = { ...rest, failureShare: failurePercent / 100 };
  return ctx.db.transaction(async (tx) => {
    const before = await readBreakerSettings(tx);
    await tx
      .insert(breakerSettings)
      .values({ id: 1, ...settings, updatedBy: actorLabel(actor) })
      .onConflictDoUpdate({
        target: breakerSettings.id,
        set: { ...settings, updatedBy: actorLabel(actor), updatedAt: new Date() },
      });
    await writeAudit(tx, actor, {
      action: 'breaker_settings.save',
      targetType: 'breaker_settings',
      targetId: 'fleet',
      reason,
      before: {
        windowSeconds: before.windowSeconds,
        failureShare: before.failureShare,
        minimumVolume: before.minimumVolume,
        coolDownSeconds: before.coolDownSeconds,
        probes: before.probes,
      },
      after: { ...settings },
    });
    return settings;
  });
}

/** The settings as a one-row SQL source with the defaults filled in, for statements that read them inline. */
export const settingsRowSql = `(select
    coalesce(s.window_seconds, ${DEFAULT_BREAKER_SETTINGS.windowSeconds}) as window_seconds,
    coalesce(s.failure_share, ${DEFAULT_BREAKER_SETTINGS.failureShare}) as failure_share,
    coalesce(s.minimum_volume, ${DEFAULT_BREAKER_SETTINGS.minimumVolume}) as minimum_volume,
    coalesce(s.cool_down_seconds, ${DEFAULT_BREAKER_SETTINGS.coolDownSeconds}) as cool_down_seconds,
    coalesce(s.probes, ${DEFAULT_BREAKER_SETTINGS.probes}) as probes
  from (select 1) as one left join breaker_settings s on s.id = 1)`;
