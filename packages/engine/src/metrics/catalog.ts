/**
 * Every metric GET /metrics exports: its name, type, help and labels. The
 * scrape (packages/engine/src/metrics/scrape.ts), the Prometheus rules and the Grafana
 * dashboard (deploy/) use these names and nothing else; a test checks the
 * deploy files name only metrics listed here.
 *
 * Labels are bounded: agent, step, error class, hold reason, owner team, queue,
 * sweep, pool, budget (an admin's name for it): never a task id, key or person. An agent's steps past a cap
 * share the step label `other` (fold-steps.ts). Counters come from running
 * totals in the database that nothing decreases (see attempt_totals), so
 * `rate()` stays right across restarts and retention passes. Money is counted
 * in micro-dollars, the unit Holdfast stores.
 */
export const metricCatalog = {
  holdfast_attempts_total: {
    type: 'counter',
    help: 'Attempts recorded, first tries and retries.',
    labels: ['agent', 'step'],
  },
  holdfast_retries_total: {
    type: 'counter',
    help: 'Attempts after the first of their idempotency key.',
    labels: ['agent', 'step'],
  },
  holdfast_attempt_failures_total: {
    type: 'counter',
    help: 'Failed attempts by error class.',
    labels: ['agent', 'step', 'error_class'],
  },
  holdfast_spend_microdollars_total: {
    type: 'counter',
    help: 'Cost of all attempts, in micro-dollars.',
    labels: ['agent', 'step'],
  },
  holdfast_retry_spend_microdollars_total: {
    type: 'counter',
    help: 'Retry-attributable spend: what executions spent beyond what one try would have cost, in micro-dollars.',
    labels: ['agent', 'step'],
  },
  holdfast_budget_refusals_total: {
    type: 'counter',
    help: 'Step begins refused for want of budget (task retries, spend or time, or an empty retry pool).',
    labels: ['agent', 'step', 'reason'],
  },
  holdfast_trace_spans_total: {
    type: 'counter',
    help: 'Spans received at /v1/traces by what became of them: call, http_try, run, run_part, rejected, ignored_operation, ignored_unrecognised, other.',
    labels: ['service', 'outcome'],
  },
  holdfast_holds_open: {
    type: 'gauge',
    help: 'Open holds by reason and owner team (owner "person" for holds owned by a person).',
    labels: ['reason', 'owner_team'],
  },
  holdfast_dead_letters_pending: {
    type: 'gauge',
    help: 'Dead letters waiting for a person, per queue.',
    labels: ['queue'],
  },
  holdfast_dead_letters_oldest_age_seconds: {
    type: 'gauge',
    help: 'Age of the oldest pending dead letter, per queue.',
    labels: ['queue'],
  },
  holdfast_slot_locks_stale: {
    type: 'gauge',
    help: 'Slot locks past their time-to-live and not released.',
    labels: [],
  },
  holdfast_keys_uncertain: {
    type: 'gauge',
    help: 'Idempotency keys whose claim expired mid-flight on a downstream that is not idempotent.',
    labels: [],
  },
  holdfast_circuit_breakers_open: {
    type: 'gauge',
    help: "Circuit breakers open or half-open (begins wait), per scope (step, or downstream: one agent's calls to it).",
    labels: ['scope'],
  },
  holdfast_redrives_oldest_undelivered_age_seconds: {
    type: 'gauge',
    help: 'Age of the oldest redrive not yet handed to its queue (0 when none wait).',
    labels: [],
  },
  holdfast_sweep_last_success_timestamp_seconds: {
    type: 'gauge',
    help: 'When each sweep last finished a pass, as a Unix time.',
    labels: ['sweep'],
  },
  holdfast_sweep_last_duration_seconds: {
    type: 'gauge',
    help: 'How long the last finished pass of each sweep took.',
    labels: ['sweep'],
  },
  holdfast_retry_pool_available: {
    type: 'gauge',
    help: 'Retries a fleet retry pool can grant now.',
    labels: ['pool'],
  },
  holdfast_retry_pool_capacity: {
    type: 'gauge',
    help: "A fleet retry pool's size over its window at the current first-attempt rate.",
    labels: ['pool'],
  },
  holdfast_spend_budget_used_ratio: {
    type: 'gauge',
    help: "A fleet spend budget's use in its period under way (spent plus reserved) over its limit.",
    labels: ['budget'],
  },
  holdfast_spend_budget_spent_microdollars: {
    type: 'gauge',
    help: 'What the work under a fleet spend budget spent in its period under way, in micro-dollars.',
    labels: ['budget'],
  },
  holdfast_alerts_firing: {
    type: 'gauge',
    help: 'In-app alert instances firing now, per kind.',
    labels: ['kind'],
  },
  holdfast_metric_steps_folded: {
    type: 'gauge',
    help: 'Steps of an agent past HOLDFAST_METRICS_MAX_STEPS_PER_AGENT (its busiest keep their own series), counted under step "other".',
    labels: ['agent'],
  },
} as const satisfies Record<string, { type: 'counter' | 'gauge'; help: string; labels: readonly string[] }>;

export type MetricName = keyof typeof metricCatalog;
