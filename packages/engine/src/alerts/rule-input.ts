import { z } from 'zod';
import { alertKinds, type AlertKind } from '@holdfast/protocol/enums';

const minutes = (max: number) => z.number().int('must be whole minutes').min(1, 'must be at least 1').max(max);

/**
 * The thresholds each alert kind takes (stored in alert_rules.thresholds).
 * Kinds with none fire on the event itself (a hold opened, a key became
 * uncertain) or by a rule of their own (the retry-share anomaly, packages/engine/src/anomaly.ts).
 */
export const thresholdsByKind = {
  retry_share_anomaly: z.strictObject({}),
  hold_opened: z.strictObject({}),
  dead_letters_waiting: z.strictObject({
    /** Fires for a queue with more pending dead letters than this... */
    maxWaiting: z.number().int('must be a whole number').min(1, 'must be at least 1').max(1_000_000),
    /** ...or whose oldest pending one has waited longer than this. */
    maxAgeMinutes: minutes(7 * 24 * 60),
  }),
  stale_lock: z.strictObject({
    /** Fires for a lock past its TTL that no guarded release has freed for this long. */
    unreleasableMinutes: minutes(24 * 60),
  }),
  uncertain_key: z.strictObject({}),
  budget_refusals: z.strictObject({
    /** Fires for a step refused for want of budget more often than this, per minute over the last 5 minutes. */
    perMinute: z.number().positive('must be above 0').max(1_000_000),
  }),
  sweep_failing: z.strictObject({
    /** Fires for a sweep with no finished pass for this long. */
    staleMinutes: minutes(24 * 60),
  }),
  /** Fires while a breaker is open or half-open (its own settings say when: Pauses page, Circuit breakers). */
  circuit_open: z.strictObject({}),
  /** Fires as a spend budget's period reaches each of its warning thresholds (set on the budget: Spend budgets). */
  spend_budget: z.strictObject({}),
} satisfies Record<AlertKind, z.ZodType>;

export type Thresholds<Kind extends AlertKind> = z.output<(typeof thresholdsByKind)[Kind]>;

/** An admin's change to one rule: its kind, on or off, and its thresholds (checked against the kind's shape). */
export const saveAlertRuleInput = z
  .strictObject({
    kind: z.enum(alertKinds),
    enabled: z.boolean(),
    thresholds: z.record(z.string(), z.number()),
    reason: z.string().trim().max(500).optional(),
  })
  .superRefine((rule, context) => {
    const parsed = thresholdsByKind[rule.kind].safeParse(rule.thresholds);
    if (parsed.success) return;
    for (const issue of parsed.error.issues) {
      context.addIssue({ code: 'custom', path: ['thresholds', ...issue.path], message: issue.message });
    }
  });

export type SaveAlertRuleInput = z.input<typeof saveAlertRuleInput>;
