import { endpoints } from '@holdfast/protocol/api/endpoints';
import { failKey } from '@holdfast/engine/core';
import { agentEndpoint } from '@/lib/server/agent-endpoint';

export const dynamic = 'force-dynamic';

export const POST = agentEndpoint(endpoints.failKey, async (ctx, input) => {
  await failKey(ctx, input);
  return { status: 200, body: { ok: true } };
});
