/** A row id from a URL segment (a bigserial, as digits): undefined for anything else, so the page answers 404. */
export function parseRowId(raw: string): number | undefined {
  if (!/^[1-9][0-9]{0,15}$/.test(raw)) return undefined;
  const id = Number(raw);
  return Number.isSafeInteger(id) ? id : undefined;
}
