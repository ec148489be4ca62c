import type { NextRequest } from 'next/server';
import { METRICS_CONTENT_TYPE, scrapeMetrics } from '@holdfast/engine/metrics';
import { authenticateAgent } from '@/lib/server/api-auth';
import { getEnvironment } from '@holdfast/engine/env';
import { withDatabaseDeadline } from '@/lib/server/database-outage';
import { getClock, getDb } from '@/lib/server/db';
import { errorResponse } from '@/lib/server/problem';

export const dynamic = 'force-dynamic';

/**
 * The Prometheus scrape: every metric in packages/engine/src/metrics/catalog.ts, in the text
 * format, for a token with the metrics (or read) scope; 401 without one, 403
 * for a token lacking the scope, 503 with Retry-After while the database is
 * down (a scrape that fails is recorded by Prometheus as `up` 0, which is the
 * truth). The text is rendered at most every 10 s per process (and scope),
 * however many scrapers ask. A token limited to some agents (or queues) sees
 * only their series (packages/engine/src/metrics/metric-scope.ts).
 */
export async function GET(request: NextRequest): Promise<Response> {
  const agent = await authenticateAgent(request, 'metrics.read');
  if ('response' in agent) return agent.response;
  try {
    const { actor } = agent;
    const scope = actor.type === 'agent' ? { agents: actor.allowedAgents, queues: actor.allowedQueues } : undefined;
    const text = await withDatabaseDeadline(
      scrapeMetrics(getDb(), {
        clock: getClock(),
        maxStepsPerAgent: getEnvironment().HOLDFAST_METRICS_MAX_STEPS_PER_AGENT,
        scope,
      }),
    );
    return new Response(text, { headers: { 'content-type': METRICS_CONTENT_TYPE, 'cache-control': 'no-store' } });
  } catch (error) {
    return errorResponse(error);
  }
}
