import type { Executor } from '../../db/client';
import type { ErrorClass } from '@holdfast/protocol/enums';
import type { ModelUsageReport } from '@holdfast/protocol/inputs/model-usage-input';
import { type PricedCost, priceCall } from './price-call';
import { storedPricingRules } from './pricing-rules';

export interface CostReport extends ModelUsageReport {
  /** A stated cost in micro-dollars: it is the cost. */
  costMicros?: number;
  outcome: 'succeeded' | 'failed';
  errorClass?: ErrorClass;
}

/**
 * The cost of an attempt reported through the library or the HTTP API: the stated cost
 * (`reported`); else its tokens and model priced as a span's are, with the failed-call rule and
 * admins' overrides (`priced`, `rule`, or `none` for a model the table does not know); else `none`.
 * The stored rules are read only when there is something to price.
 */
export async function costOfReport(db: Executor, report: CostReport, at: Date): Promise<PricedCost> {
  if (report.costMicros !== undefined) return { costMicros: report.costMicros, source: 'reported' };
  if (!report.usage && !report.model) return { costMicros: 0, source: 'none' };
  const failure =
    report.outcome === 'failed'
      ? { httpStatus: report.httpStatus, errorClass: report.errorClass ?? ('unknown' as const) }
      : undefined;
  return priceCall(
    { usage: report.usage, model: report.model, provider: report.provider, failure, at },
    await storedPricingRules.get(db),
  );
}
