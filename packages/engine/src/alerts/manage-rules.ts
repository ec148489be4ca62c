import { eq } from 'drizzle-orm';
import { auditTrail } from '../core/audit/audit-trail';
import { authorize } from '../core/identity/authorization';
import { actorLabel, nowOf, type CoreContext } from '../core/kernel/context';
import { NotFoundError } from '@holdfast/protocol/errors';
import { parseInput } from '@holdfast/protocol/validation';
import { alertRules, type AlertRule } from '../db/schema';
import { saveAlertRuleInput, type SaveAlertRuleInput } from './rule-input';

export interface SaveAlertRuleResult {
  /** False when the rule already had these values: nothing was written, no audit record. */
  changed: boolean;
  rule: AlertRule;
}

/** What an audit record keeps of a rule: the values a person sets. */
const ruleSettings = (rule: Pick<AlertRule, 'kind' | 'enabled' | 'thresholds'>) => ({
  kind: rule.kind,
  enabled: rule.enabled,
  thresholds: rule.thresholds,
});
const ruleAudit = auditTrail('alert_rule', (rule: AlertRule) => rule.kind, ruleSettings);

function sameThresholds(a: Record<string, number>, b: Record<string, number>): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) if (a[key] !== b[key]) return false;
  return true;
}

/**
 * Switches an alert rule on or off and sets its thresholds (checked against
 * its kind's shape); admins only, audit-logged with before and after in the
 * same transaction. As with retry pools, saving the values a rule already has
 * writes nothing and no audit record, so a double submit is harmless. The
 * rule's row is locked while it is compared and changed, so two admins' saves
 * each audit the before they replaced.
 */
export async function saveAlertRule(ctx: CoreContext, input: SaveAlertRuleInput): Promise<SaveAlertRuleResult> {
  const actor = authorize(ctx, 'alerts.manage');
  const request = parseInput(saveAlertRuleInput, input);
  const now = nowOf(ctx);
  return ctx.db.transaction(async (tx) => {
    const [before] = await tx.select().from(alertRules).where(eq(alertRules.kind, request.kind)).for('update');
    if (!before) throw new NotFoundError(`No alert rule of kind ${request.kind}`);
    if (before.enabled === request.enabled && sameThresholds(before.thresholds, request.thresholds)) {
      return { changed: false, rule: before };
    }
    const [updated] = await tx
      .update(alertRules)
      .set({ enabled: request.enabled, thresholds: request.thresholds, updatedAt: now, updatedBy: actorLabel(actor) })
      .where(eq(alertRules.kind, request.kind))
      .returning();
    if (!updated) throw new Error('saveAlertRule: update returned no row');
    await ruleAudit(tx, actor, 'alert_rule.save', { reason: request.reason, before, after: updated });
    return { changed: true, rule: updated };
  });
}
