import { formatMicros, formatPercent } from '@/lib/console/format';
import { type CostSourceMix, pricedRetryCostMicros } from '@/lib/queries/cost-source-mix';
import type { StepSource } from '@/lib/queries/step-sources';

/** Why a step's retry spend is labelled an estimate. */
export interface RetrySpendEstimate {
  why: string;
}

/**
 * The retry spend is an estimate where priced attempts are part of it: their cost is token counts times the
 * price table, not what the provider stated. Where the mix could not read the whole window (too many attempts,
 * or days past the raw retention) and the step has priced attempts or spans, priced retries may hide in the
 * part not read.
 */
export function retrySpendEstimate(mix: CostSourceMix, sources: StepSource[]): RetrySpendEstimate | null {
  const priced = pricedRetryCostMicros(mix);
  if (priced > 0) {
    const retrySpend = mix.shares.reduce((sum, share) => sum + share.retryCostMicros, 0);
    return {
      why:
        `Retry spend is an estimate: ${formatMicros(priced)} of the ${formatMicros(retrySpend)} counted here ` +
        `(${formatPercent(priced / retrySpend)}) was priced from token counts times the price table, not stated by the ` +
        "agent or its provider. A priced cost estimates what the provider bills; the provider's invoice wins.",
    };
  }
  const partlyRead = mix.cutAfter !== null || mix.clippedToRetention;
  const pricesSeen = mix.shares.some((share) => share.costSource === 'priced');
  if (partlyRead && (pricesSeen || sources.some(({ source }) => source === 'traces'))) {
    return {
      why:
        'Retry spend may be an estimate: no priced retry was counted here, but this step has attempts whose cost ' +
        'is priced from token counts (or sends spans, which are priced when they state no cost), and the part of ' +
        'the window not counted here was not checked.',
    };
  }
  return null;
}
