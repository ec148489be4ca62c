import { z } from 'zod';
import { withoutNul } from '@holdfast/engine/core';
import { optionalText } from '@holdfast/protocol/validation';
import { keysetCursorParam } from './keyset-cursor';

/**
 * The audit page's filters, read from the URL and the CSV export's query
 * alike. Times are UTC, as `YYYY-MM-DDTHH:MM` (what a datetime-local field sends).
 */
const optionalMoment = z
  .string()
  .trim()
  .optional()
  .transform((value, context) => {
    if (!value) return undefined;
    const moment = new Date(/[zZ]|[+-]\d\d:\d\d$/.test(value) ? value : `${value}Z`);
    if (Number.isNaN(moment.getTime())) {
      context.addIssue({ code: 'custom', message: 'must be a date and time like 2026-11-30T08:00' });
      return z.NEVER;
    }
    return moment;
  });

export const auditFilter = z.strictObject({
  /** `person:ada@…`, `agent:…`, `system:sweeper`, or part of one. */
  actor: withoutNul(optionalText(300)),
  /** An action or its prefix: `hold.clear` finds `hold.clear.resume` and `hold.clear.discard`. */
  action: withoutNul(optionalText(300)),
  targetType: withoutNul(optionalText(300)),
  targetId: withoutNul(optionalText(300)),
  from: withoutNul(optionalMoment),
  to: withoutNul(optionalMoment),
  /** The page after this record, or before it (keyset paging, newest first); the export ignores them. */
  after: keysetCursorParam('bigint'),
  before: keysetCursorParam('bigint'),
});

export type AuditFilter = z.output<typeof auditFilter>;
