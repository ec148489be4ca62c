import type { Hold } from '@holdfast/engine/db/schema';

/** A human label for each machine-readable hold reason; pages show the code beside it. */
export const holdReasonLabels: Record<Hold['reason'], string> = {
  retry_ceiling: 'Retries ran out',
  budget_exhausted: 'Budget exhausted',
  permanent_error: 'Permanent error',
  payload_mismatch: 'Payload mismatch',
  uncertain_outcome: 'Outcome uncertain',
  needs_approval: 'Needs approval',
  needs_secret: 'Needs a secret',
  policy_blocked: 'Blocked by policy',
  frozen: 'Frozen (idle)',
  stale_lock: 'Stale lock kept',
  manual: 'Parked by hand',
};
