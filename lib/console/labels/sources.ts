import type { AttemptSource, CostSource } from '@holdfast/protocol/enums';

/** How each way an attempt reaches Holdfast is named on a badge. */
export const attemptSourceLabels: Record<AttemptSource, string> = {
  library: 'library',
  http: 'HTTP',
  traces: 'traces',
};

/** What each way means, for a badge's explanation. */
export const attemptSourceHelp: Record<AttemptSource, string> = {
  library: "reported by the Holdfast library in the agent's process",
  http: 'reported over the HTTP API (the step protocol or a client) with an agent token',
  traces: 'made from OpenTelemetry spans sent to /v1/traces',
};

/** A cost source as a page names it; null: the attempt recorded none. */
export function costSourceLabel(source: CostSource | null): string {
  return source ?? 'not recorded';
}

/** Where each cost source's cost came from (docs/agents/opentelemetry.md, Costs as providers bill them). */
export const costSourceHelp: Record<CostSource | 'unrecorded', string> = {
  reported: 'the cost the agent or its span stated',
  priced:
    "token counts times the price table's prices (or an admin's override) at the attempt's start: an estimate of what the provider bills",
  rule: 'a model call refused before it generated anything (HTTP 400, 401, 403, 404, 413, 422, 429): costs 0',
  none: 'nothing to price (no cost, no tokens, or a model the price table does not know): counted as 0',
  unrecorded: 'attempts recorded before cost sources were kept (or still running): their cost as reported',
};
