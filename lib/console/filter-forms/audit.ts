/** The audit filter as its page shows it: each field's label, and the URLs of a page and of its CSV export. */
import type { AuditFilter } from '../../filters/audit';

/** What each filter is called on the page. */
export const auditFilterLabels = {
  actor: 'Actor',
  action: 'Action (or its start)',
  targetType: 'Target type',
  targetId: 'Target id',
  from: 'From (UTC)',
  to: 'Until (UTC)',
  after: 'Page',
  before: 'Page',
} as const satisfies Record<keyof AuditFilter, string>;

/** The CSV export of the records the page shows: the kept parameters, as they were written. */
export function auditExportHref(accepted: Record<string, string>): string {
  const { after: _after, before: _before, ...filters } = accepted;
  const query = new URLSearchParams(filters).toString();
  return `/api/console/audit.csv${query ? `?${query}` : ''}`;
}

/** The audit page with the kept filters (as written) at the page beside a cursor, or at the first page. */
export function auditHref(
  accepted: Record<string, string>,
  page?: { side: 'after' | 'before'; cursor: string },
): string {
  const { after: _after, before: _before, ...filters } = accepted;
  const params = new URLSearchParams(filters);
  if (page) params.set(page.side, page.cursor);
  const query = params.toString();
  return `/audit${query ? `?${query}` : ''}`;
}
