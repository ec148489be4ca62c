import type { AlertKind } from '@holdfast/protocol/enums';
import type { DeliveryOutcome } from '@/lib/queries/alerts';

/** Each alert kind's name and what it means, in a line. */
export const alertKindLabels: Record<AlertKind, { title: string; meaning: string }> = {
  retry_share_anomaly: {
    title: 'Retry share anomaly',
    meaning: "A step's retry share of spend jumped above its 7-day median (the Overview's anomaly rule).",
  },
  hold_opened: {
    title: 'Hold opened',
    meaning: "Work was parked for a person; sent to the hold owner's team channel, if it has one.",
  },
  dead_letters_waiting: {
    title: 'Dead letters waiting',
    meaning: 'A queue has more pending dead letters than the limit, or its oldest has waited too long.',
  },
  stale_lock: {
    title: 'Stale lock',
    meaning: 'A slot lock is past its TTL and no guarded release has freed it.',
  },
  uncertain_key: {
    title: 'Uncertain key',
    meaning: 'An idempotency key\u2019s outcome became uncertain: nobody knows whether its side effect ran.',
  },
  budget_refusals: {
    title: 'Budget refusals',
    meaning: 'A step is refused for want of budget faster than the rate, averaged over the last 5 minutes.',
  },
  sweep_failing: {
    title: 'Sweep failing',
    meaning: 'A background sweep has not finished a pass for too long.',
  },
  circuit_open: {
    title: 'Circuit open',
    meaning:
      "A step's or a downstream's circuit breaker opened: its begins wait while the downstream fails; resolves when it closes.",
  },
  spend_budget: {
    title: 'Spend budget',
    meaning:
      "A spend budget's period reached one of its warning thresholds (each alerts once a period); resolves when the period turns.",
  },
};

export interface ThresholdField {
  label: string;
  unit: string;
  /** The input's step: whole numbers, or any for a rate. */
  step: 1 | 'any';
  min: number;
  max: number;
}

/** Each threshold's label and unit (the shapes are packages/engine/src/alerts/rule-input.ts's thresholdsByKind). */
export const thresholdFields: Record<string, ThresholdField> = {
  maxWaiting: { label: 'More pending than', unit: 'dead letters', step: 1, min: 1, max: 1_000_000 },
  maxAgeMinutes: { label: 'Or oldest waiting longer than', unit: 'minutes', step: 1, min: 1, max: 7 * 24 * 60 },
  unreleasableMinutes: { label: 'Unreleased for longer than', unit: 'minutes', step: 1, min: 1, max: 24 * 60 },
  perMinute: { label: 'More refusals than', unit: 'per minute', step: 'any', min: 0, max: 1_000_000 },
  staleMinutes: { label: 'No finished pass for', unit: 'minutes', step: 1, min: 1, max: 24 * 60 },
};

/** A field the table does not know (added to a kind later) still shows, by its name. */
export const thresholdField = (name: string): ThresholdField =>
  thresholdFields[name] ?? { label: name, unit: '', step: 'any', min: 0, max: 1_000_000 };

/** The threshold names of a kind, in a stable order (a rule's stored thresholds give the names). */
export const thresholdNames = (thresholds: Record<string, number>) =>
  Object.keys(thresholdFields)
    .filter((name) => name in thresholds)
    .concat(Object.keys(thresholds).filter((name) => !(name in thresholdFields)));

/** A try's outcome in the words the History and Channels tabs show every role (lib/queries/alerts.ts). */
export const deliveryOutcomeLabels: Record<DeliveryOutcome, string> = {
  delivered: 'delivered',
  refused_by_receiver: 'refused by receiver (4xx)',
  receiver_error: 'receiver error (5xx)',
  unreachable: 'unreachable',
  refused_by_policy: 'refused by policy',
};
