import { visibleText } from '@/lib/console/visible-text';
import type { ErrorClassRuleInput } from '@holdfast/engine/traces';

/** USD per million tokens, as admins type them: cents at least, up to the six decimals stored. */
const perMillion = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  minimumFractionDigits: 2,
  maximumFractionDigits: 6,
});

export function formatPerMillion(value: number): string {
  return perMillion.format(value);
}

/** Toasts are narrow: a 200-character model is named by its start. */
const SHORT_NAME = 60;

/** An override's provider and model as people read them: "openai / gpt-4o", "any provider / gpt-4o". */
export function overrideName({ provider, model }: { provider: string; model: string }, short = false): string {
  const name = short && model.length > SHORT_NAME ? `${model.slice(0, SHORT_NAME - 1)}…` : model;
  return visibleText(`${provider === '' ? 'any provider' : provider} / ${name}`);
}

/** A rule's condition: "HTTP 429", "HTTP 500–599", "error.type contains …". */
export function ruleCondition(rule: ErrorClassRuleInput): string {
  if (rule.when === 'words') return `error.type contains ${rule.words.join(', ')}`;
  return rule.from === rule.to ? `HTTP ${rule.from}` : `HTTP ${rule.from}–${rule.to}`;
}

/** The failed-call rule's statuses as the form writes them. */
export function statusList(statuses: readonly number[]): string {
  return statuses.join(', ');
}
