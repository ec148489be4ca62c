import { endpoints } from '@holdfast/protocol/api/endpoints';
import { recordAttempt } from '@holdfast/engine/core';
import { agentEndpoint } from '@/lib/server/agent-endpoint';

export const dynamic = 'force-dynamic';

/** Report one finished attempt of a step (token scope: ingest). A repeated report answers 200 with the stored attempt. */
export const POST = agentEndpoint(endpoints.recordAttempt, async (ctx, report) => {
  const { attempt, duplicate } = await recordAttempt(ctx, report);
  return { status: duplicate ? 200 : 201, body: { attempt, duplicate } };
});
