import { eq } from 'drizzle-orm';
import { timeBucket, withLease, type LeaseOutcome } from '../core/leases/leases';
import { nowOf, type CoreContext } from '../core/kernel/context';
import type { Executor } from '../db/client';
import { alertInstances, alertRules, type AlertKind } from '../db/schema';
import {
  ALERT_EVALUATION_JOB,
  conditionReaders,
  routeToOwners,
  type AlertCondition,
  type ConditionReader,
} from './conditions';
import { fireInstance } from './fire-instance';
import { quietTimeFor } from './flap-damping';
import { markCleared, markReturned, markSeen, resolveInstance } from './instance-transitions';
import { releaseHeldNotifications } from './release-held';
import { COALESCED_KINDS, fireCoalesced } from './hold-digests';
import { thresholdsByKind, type Thresholds } from './rule-input';
import { trimAlertHistory, type TrimmedAlertHistory } from './trim-history';

/**
 * New instances one pass fires at most: a burst (a thousand holds opened by one
 * outage) goes out over a few passes instead of one enormous transaction
 * storm; what is left fires on the next pass, as the condition still holds.
 */
export const MAX_FIRED_PER_PASS = 500;

export interface AlertEvaluation {
  fired: number;
  resolved: number;
  /** Firing alerts whose condition came back within their quiet time: counted on them, not fired anew. */
  repeated: number;
  /** Notifications a silence held back, sent now that none matches and the alert still fires. */
  released: number;
  /** Outbox rows written with those (one per instance and matching channel). */
  queued: number;
  /** Enabled rules whose stored thresholds do not parse: neither fired nor resolved this pass. */
  unreadableRules: AlertKind[];
}

/**
 * One evaluation pass: for each enabled rule, the conditions holding at `now`;
 * a new one fires an instance, a firing instance whose condition is gone (or
 * whose rule was switched off) resolves, each with its outbox rows in the same
 * transaction. Safe to run twice at once: firing is an insert the partial
 * unique index (one firing per kind and identity) decides, and resolving an
 * UPDATE … WHERE status = 'firing', so a second pass finds nothing left to do.
 * Hold alerts are coalesced per team and window (hold-digests.ts): one
 * instance then stands for several holds and resolves when the last clears.
 * A condition that stops holding resolves its instance only after the quiet
 * time (flap-damping.ts); one that comes back before is the same instance
 * again (fire_count), never a second alert. Alerts a silence matched are
 * notified once no silence does, if they still fire (release-held.ts).
 */
export async function evaluateAlerts(
  ctx: CoreContext,
  options: { now?: Date; maxFired?: number } = {},
): Promise<AlertEvaluation> {
  const now = options.now ?? nowOf(ctx);
  const maxFired = options.maxFired ?? MAX_FIRED_PER_PASS;
  const rules = await ctx.db.select().from(alertRules);
  const holding = new Map<AlertKind, Map<string, AlertCondition>>();
  const unreadableRules: AlertKind[] = [];
  for (const rule of rules) {
    if (!rule.enabled) continue;
    const conditions = await readConditions(ctx.db, rule.kind, rule.thresholds, now);
    if (conditions === 'unreadable') unreadableRules.push(rule.kind);
    else holding.set(rule.kind, new Map(conditions.map((each) => [each.identity, each])));
  }

  const firing = await ctx.db
    .select({
      id: alertInstances.id,
      kind: alertInstances.kind,
      identity: alertInstances.identity,
      members: alertInstances.members,
      clearedAt: alertInstances.clearedAt,
    })
    .from(alertInstances)
    .where(eq(alertInstances.status, 'firing'));
  // What each firing instance stands for: its identity, or the members of a coalesced one.
  const standsFor = (instance: (typeof firing)[number]) => instance.members ?? [instance.identity];
  const result: AlertEvaluation = { fired: 0, resolved: 0, repeated: 0, released: 0, queued: 0, unreadableRules };
  const seen: number[] = [];

  for (const instance of firing) {
    // A rule whose thresholds cannot be read says nothing about its conditions: its instances stay as they are.
    if (unreadableRules.includes(instance.kind)) continue;
    const conditions = holding.get(instance.kind);
    // A coalesced instance holds while any of its members does: it resolves with the last.
    if (standsFor(instance).some((identity) => conditions?.has(identity))) {
      if (instance.clearedAt === null) seen.push(instance.id);
      else if (await markReturned(ctx.db, instance.id, now)) result.repeated += 1;
      continue;
    }
    const quietMs = quietTimeFor(instance.kind);
    // A rule switched off is a person's decision, not a flap: its alerts resolve at once.
    const damped = conditions !== undefined && quietMs > 0;
    if (damped && instance.clearedAt === null) {
      await markCleared(ctx.db, instance.id, now);
      continue;
    }
    if (damped && now.getTime() - instance.clearedAt!.getTime() < quietMs) continue;
    const queued = await resolveInstance(ctx.db, instance.id, now, damped ? instance.clearedAt! : undefined);
    if (queued === undefined) continue;
    result.resolved += 1;
    result.queued += queued;
  }
  await markSeen(ctx.db, seen, now);
  const released = await releaseHeldNotifications(ctx.db, now);
  result.released = released.released;
  result.queued += released.queued;

  const alreadyFiring = new Set(
    firing.flatMap((instance) => standsFor(instance).map((identity) => `${instance.kind}\u0000${identity}`)),
  );
  for (const [kind, conditions] of holding) {
    if (COALESCED_KINDS.has(kind)) {
      const fresh = [...conditions.values()].filter(
        (condition) => !alreadyFiring.has(`${kind}\u0000${condition.identity}`),
      );
      const coalesced = await fireCoalesced(ctx.db, kind, fresh, now, maxFired - result.fired);
      result.fired += coalesced.fired;
      result.queued += coalesced.queued;
      continue;
    }
    for (const condition of conditions.values()) {
      if (result.fired >= maxFired) return result;
      if (alreadyFiring.has(`${kind}\u0000${condition.identity}`)) continue;
      const queued = await fireInstance(ctx.db, kind, condition, now);
      if (queued === undefined) continue;
      result.fired += 1;
      result.queued += queued;
    }
  }
  return result;
}

async function readConditions<Kind extends AlertKind>(
  db: Executor,
  kind: Kind,
  thresholds: unknown,
  now: Date,
): Promise<AlertCondition[] | 'unreadable'> {
  const parsed = thresholdsByKind[kind].safeParse(thresholds);
  if (!parsed.success) return 'unreadable';
  const read = conditionReaders[kind] as ConditionReader<Kind>;
  return routeToOwners(db, await read(db, parsed.data as Thresholds<Kind>, now));
}

export type AlertSweep = { evaluation: AlertEvaluation; trimmed: TrimmedAlertHistory };

/**
 * The evaluation as the sweeper runs it: once per minute bucket under the
 * `alerts.evaluate` lease (two sweepers do one pass), then the history trim.
 * The lease saves work; correctness does not rest on it (see evaluateAlerts).
 */
export async function runAlertSweep(ctx: CoreContext, options: { now?: Date } = {}): Promise<LeaseOutcome<AlertSweep>> {
  const now = options.now ?? nowOf(ctx);
  return withLease(
    ctx,
    { job: ALERT_EVALUATION_JOB, bucket: timeBucket(now, 60_000), ttlMs: 5 * 60_000 },
    async () => ({
      evaluation: await evaluateAlerts(ctx, { now }),
      trimmed: await trimAlertHistory(ctx.db, { now }),
    }),
  );
}
