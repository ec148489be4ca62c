import { endpoints } from '@holdfast/protocol/api/endpoints';
import { finishRun } from '@holdfast/engine/core';
import { agentEndpoint } from '@/lib/server/agent-endpoint';

export const dynamic = 'force-dynamic';

export const POST = agentEndpoint(endpoints.finishRun, async (ctx, input) => {
  await finishRun(ctx, input);
  return { status: 200, body: { ok: true } };
});
