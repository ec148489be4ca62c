import type { ErrorClassRule } from '@holdfast/engine/traces';
import type { ErrorClassRuleInput } from '@holdfast/engine/traces';

/** One change an admin makes to the error class rules; the whole edited table is then saved. */
export type RuleEdit =
  | { kind: 'move'; index: number; by: -1 | 1 }
  | { kind: 'delete'; index: number }
  | { kind: 'add'; rule: ErrorClassRuleInput; before: number | null }
  | { kind: 'reset' };

/** A stored rule as the save takes it. */
export function toRuleInput(rule: ErrorClassRule): ErrorClassRuleInput {
  return rule.errorTypeContains
    ? { when: 'words', words: rule.errorTypeContains, errorClass: rule.errorClass }
    : { when: 'status', from: rule.httpStatusFrom ?? 0, to: rule.httpStatusTo ?? 0, errorClass: rule.errorClass };
}

/**
 * The table after one edit, or undefined when the edit names a rule the table does not have
 * (it was made on another table: the caller refuses it).
 */
export function applyRuleEdit(
  rules: readonly ErrorClassRuleInput[],
  edit: RuleEdit,
  defaults: readonly ErrorClassRuleInput[],
): ErrorClassRuleInput[] | undefined {
  const within = (index: number) => Number.isInteger(index) && index >= 0 && index < rules.length;
  switch (edit.kind) {
    case 'reset':
      return [...defaults];
    case 'delete':
      return within(edit.index) ? rules.filter((_, index) => index !== edit.index) : undefined;
    case 'move': {
      const target = edit.index + edit.by;
      if (!within(edit.index) || !within(target)) return undefined;
      const moved = [...rules];
      [moved[edit.index], moved[target]] = [moved[target]!, moved[edit.index]!];
      return moved;
    }
    case 'add': {
      if (edit.before === null) return [...rules, edit.rule];
      if (!within(edit.before)) return undefined;
      return [...rules.slice(0, edit.before), edit.rule, ...rules.slice(edit.before)];
    }
  }
}
