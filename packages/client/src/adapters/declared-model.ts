import { MODEL_NAME_PATTERN } from '@holdfast/protocol/inputs/spend-budget-input';

/**
 * The begin's `model` for a model call an adapter wraps, so that the model's spend budgets reserve its estimate:
 * the name when it is one the protocol takes, else nothing (a model named oddly must not fail the step; its
 * finish still reports it, and its spend is counted under the model's budgets, not reserved).
 */
export function declaredModel(name: string | undefined): { model?: string } {
  return name !== undefined && MODEL_NAME_PATTERN.test(name) ? { model: name } : {};
}
