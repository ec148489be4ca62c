/** How the audit page shows a change, and how its CSV export writes a record. */

export interface FieldChange {
  field: string;
  before: string;
  after: string;
}

const show = (value: unknown): string =>
  value === undefined ? '—' : typeof value === 'string' ? value : JSON.stringify(value);

/**
 * Before and after as the fields that differ, each shown as text; nested values compared whole. When both sides
 * were recorded, a field only the before names is context the after did not record (a hold's owner beside its
 * clearing), not a field that was removed: it is left out rather than shown as "owner team:payments → —".
 */
export function diffRecord(before: unknown, after: unknown): FieldChange[] {
  const bothRecorded = before !== null && before !== undefined && after !== null && after !== undefined;
  const asObject = (value: unknown): Record<string, unknown> =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : value === null || value === undefined
        ? {}
        : { value };
  const old = asObject(before);
  const next = asObject(after);
  const fields = [...new Set([...Object.keys(old), ...Object.keys(next)])];
  return fields
    .filter((field) => !(bothRecorded && !(field in next)))
    .filter((field) => JSON.stringify(old[field]) !== JSON.stringify(next[field]))
    .map((field) => ({ field, before: show(old[field]), after: show(next[field]) }));
}

/**
 * One CSV cell (RFC 4180): quoted when it holds a comma, quote or line break.
 * A cell a spreadsheet would run as a formula (=, +, -, @ first) is prefixed with '.
 */
export function csvCell(value: unknown): string {
  let text =
    value === null || value === undefined
      ? ''
      : value instanceof Date
        ? value.toISOString()
        : typeof value === 'string'
          ? value
          : JSON.stringify(value);
  // Only text can be a formula: a negative number (a fall in spend) stays a number a spreadsheet can sum.
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvLine(values: unknown[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}
