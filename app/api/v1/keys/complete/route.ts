import { endpoints } from '@holdfast/protocol/api/endpoints';
import { completeKey } from '@holdfast/engine/core';
import { agentEndpoint } from '@/lib/server/agent-endpoint';

export const dynamic = 'force-dynamic';

export const POST = agentEndpoint(endpoints.completeKey, async (ctx, input) => {
  await completeKey(ctx, input);
  return { status: 200, body: { ok: true } };
});
