import { countPoolUsage } from '../../retry-pools/pool-usage';
import { takeRetryFromPools } from '../../retry-pools/take-retry';
import { countBudgetRefusal } from './budget-refusals';
import type { GateInClaim } from './gate';

/**
 * A retry of the task's allowance takes one from each of the fleet's retry pools covering the step, or waits
 * for the pools to refill. A redriven step's first attempt is a retry in the log (attempt 2+) but not of this
 * allowance: no pool is asked. A first attempt was counted in its pools' usage by the task gate's write.
 */
export const retryPoolGate: GateInClaim = {
  name: 'retry pool',
  async take({ tx, request, budget }, { now }) {
    if (!budget?.charged_retry) return undefined;
    const grant = await takeRetryFromPools(tx, request.agent, request.step, now);
    if (grant.granted) return undefined;
    return {
      gate: 'retry pool',
      async answer({ ctx }) {
        await countBudgetRefusal(ctx, request.agent, request.step, 'pool', now);
        await countPoolUsage(ctx.db, request.agent, request.step, now, 'refusals');
        return {
          decision: 'wait',
          code: 'RETRY_BUDGET_EXHAUSTED',
          retryAfterMs: grant.retryAfterMs,
          detail: grant.detail,
        };
      },
    };
  },
};
