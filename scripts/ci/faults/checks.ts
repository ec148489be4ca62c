/** One named assertion of the fault suite, with what was seen when it failed. */
export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

/** Checks under one heading: `[what should hold, whether it did, what was seen]`. */
export function runChecks(heading: string, items: [string, boolean, unknown][]): Check[] {
  return items.map(([name, ok, seen]) => ({
    name: `${heading}: ${name}`,
    ok,
    detail: typeof seen === 'string' ? seen : JSON.stringify(seen),
  }));
}
