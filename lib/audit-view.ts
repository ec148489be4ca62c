// Kept for lib/queries/audit.ts and app/api/console/audit.csv until they import lib/console directly.
export { auditFilter, type AuditFilter } from './console/filters/audit';
export { csvLine } from './console/audit-view';
