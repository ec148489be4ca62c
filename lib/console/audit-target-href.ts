import { keyHref } from './filter-forms/keys';

/**
 * Where an audit record's target is seen in the console: its own page where it
 * has one (a task's timeline, a key's detail, a dead letter, a step), else the
 * page that lists it.
 */
const targetHrefs: Partial<Record<string, (id: string) => string>> = {
  task: (id) => `/tasks/${encodeURIComponent(id)}`,
  key: keyHref,
  dead_letter: (id) => `/dead-letters/${encodeURIComponent(id)}`,
  hold: (id) => `/holds/${encodeURIComponent(id)}`,
  bulk_redrive: () => '/dead-letters',
  // A step's policy is audited under `agent/step` (agent and step names never hold a slash).
  step: (id) => {
    const [agent, step] = id.split('/');
    return agent && step ? `/steps/${encodeURIComponent(agent)}/${encodeURIComponent(step)}` : '/steps';
  },
  pause: () => '/pauses',
  breaker_settings: () => '/pauses',
  slot: () => '/locks',
  kill_switch: () => '/locks',
  retry_pool: () => '/settings/retry-pools',
  spend_budget: () => '/settings/budgets',
  price_override: () => '/settings/pricing',
  mcp_tool_control: () => '/mcp#tool-controls',
  pricing_rule: () => '/settings/pricing',
  alert_rule: () => '/alerts',
  alert: () => '/alerts?tab=history',
  alert_channel: () => '/alerts',
  alert_silence: () => '/alerts?tab=silences',
  api_token: () => '/settings/tokens',
  person: () => '/settings/people',
};

export function auditTargetHref(type: string, id: string): string | undefined {
  return targetHrefs[type]?.(id);
}
