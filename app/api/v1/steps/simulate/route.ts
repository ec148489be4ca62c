import { simulateRetryPolicy } from '@holdfast/engine/core';
import { simulatePolicyQuery } from '@/lib/api/simulate-policy-query';
import { agentQueryEndpoint } from '@/lib/server/agent-endpoint';
import { getEnvironment } from '@holdfast/engine/env';

export const dynamic = 'force-dynamic';

/**
 * What a step's recorded attempts would have been under another retry policy
 * (token scope: read; a token limited to some agents replays only theirs).
 */
export const GET = agentQueryEndpoint({ action: 'console.read', query: simulatePolicyQuery }, (ctx, query) =>
  simulateRetryPolicy(ctx, query, { rawRetentionDays: getEnvironment().HOLDFAST_ATTEMPT_RETENTION_DAYS }),
);
