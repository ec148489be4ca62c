// Kept for lib/queries/holds.ts until it imports lib/console/filters/holds directly.
export { holdsFilter, type HoldsFilter } from './console/filters/holds';
