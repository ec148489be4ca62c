/** When a budget's period runs out at the rate of its last hour: spent already, at a moment, or not this period. */
export type BudgetForecast = { kind: 'spent' } | { kind: 'at'; at: Date } | { kind: 'not-this-period' };

export function forecastAtRecentRate(
  budget: { limitMicros: number; spentMicros: number; reservedMicros: number; periodEnd: Date },
  recent: { since: Date; micros: number },
  now: Date,
): BudgetForecast {
  const used = budget.spentMicros + budget.reservedMicros;
  if (used >= budget.limitMicros) return { kind: 'spent' };
  const elapsed = now.getTime() - recent.since.getTime();
  if (recent.micros <= 0 || elapsed <= 0) return { kind: 'not-this-period' };
  const at = new Date(now.getTime() + ((budget.limitMicros - used) * elapsed) / recent.micros);
  return at < budget.periodEnd ? { kind: 'at', at } : { kind: 'not-this-period' };
}
