import { endpoints } from '@holdfast/protocol/api/endpoints';
import { heartbeatRun } from '@holdfast/engine/core';
import { agentEndpoint } from '@/lib/server/agent-endpoint';

export const dynamic = 'force-dynamic';

export const POST = agentEndpoint(endpoints.heartbeatRun, async (ctx, input) => {
  await heartbeatRun(ctx, input);
  return { status: 200, body: { ok: true } };
});
