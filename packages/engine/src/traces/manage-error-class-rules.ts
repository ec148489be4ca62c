import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { writeAudit } from '../core/audit/audit-log';
import { authorize } from '../core/identity/authorization';
import type { CoreContext } from '../core/kernel/context';
import { StateConflictError } from '@holdfast/protocol/errors';
import { parseInput } from '@holdfast/protocol/validation';
import { type ErrorClassRule, readErrorClassRules } from './error-class-rules';
import { saveErrorClassRulesInput, type SaveErrorClassRulesInput } from './manage-error-class-rules-input';
import { forgetStoredRules } from './mapping-rules';

/** Positions leave room between rules, as the seeded ones do. */
const POSITION_STEP = 10;

/** A short fingerprint of a rule table as stored: what an editor saw, to detect another admin's save. */
export function rulesFingerprint(rules: readonly ErrorClassRule[]): string {
  const plain = rules.map((rule) => [rule.httpStatusFrom, rule.httpStatusTo, rule.errorTypeContains, rule.errorClass]);
  return createHash('sha256').update(JSON.stringify(plain)).digest('hex').slice(0, 16);
}

/**
 * Replaces the span error class rules with the given table, in order; admins only, with a reason,
 * audited with both tables, in one transaction. The same table writes nothing. With `basedOn`, a
 * table changed by someone else since it was read is refused (STATE_CONFLICT) instead of overwritten.
 * Spans ingested from then on are classed by the new rules; attempts already stored keep their class.
 */
export async function saveErrorClassRules(
  ctx: CoreContext,
  input: SaveErrorClassRulesInput,
): Promise<{ changed: boolean; fingerprint: string }> {
  const actor = authorize(ctx, 'pricing.manage');
  const request = parseInput(saveErrorClassRulesInput, input);
  const rules: ErrorClassRule[] = request.rules.map((rule, index) => ({
    position: (index + 1) * POSITION_STEP,
    httpStatusFrom: rule.when === 'status' ? rule.from : null,
    httpStatusTo: rule.when === 'status' ? rule.to : null,
    errorTypeContains: rule.when === 'words' ? rule.words : null,
    errorClass: rule.errorClass,
  }));
  const result = await ctx.db.transaction(async (tx) => {
    await tx.execute(sql`lock table error_class_rules in share row exclusive mode`);
    const before = await readErrorClassRules(tx);
    const fingerprint = rulesFingerprint(rules);
    if (request.basedOn !== undefined && request.basedOn !== rulesFingerprint(before))
      throw new StateConflictError(
        'The error class rules were changed by someone else since you loaded them: reload the page and edit again',
      );
    if (rulesFingerprint(before) === fingerprint) return { changed: false, fingerprint };
    await tx.execute(sql`delete from error_class_rules`);
    if (rules.length > 0)
      await tx.execute(sql`
        insert into error_class_rules (position, http_status_from, http_status_to, error_type_contains, error_class)
        select position, http_status_from, http_status_to,
          (select array_agg(word) from jsonb_array_elements_text(error_type_contains) as word), error_class
        from jsonb_to_recordset(${JSON.stringify(
          rules.map((rule) => ({
            position: rule.position,
            http_status_from: rule.httpStatusFrom,
            http_status_to: rule.httpStatusTo,
            error_type_contains: rule.errorTypeContains,
            error_class: rule.errorClass,
          })),
        )}::jsonb) as r(position int, http_status_from int, http_status_to int, error_type_contains jsonb,
          error_class error_class)`);
    await writeAudit(tx, actor, {
      action: 'error_class_rules.save',
      targetType: 'pricing_rule',
      targetId: 'error_class_rules',
      reason: request.reason,
      before,
      after: rules,
    });
    return { changed: true, fingerprint };
  });
  if (result.changed) forgetStoredRules(ctx.db);
  return result;
}
