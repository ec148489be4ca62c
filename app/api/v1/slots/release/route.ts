import { endpoints } from '@holdfast/protocol/api/endpoints';
import { releaseSlot } from '@holdfast/engine/core';
import { agentEndpoint } from '@/lib/server/agent-endpoint';

export const dynamic = 'force-dynamic';

export const POST = agentEndpoint(endpoints.releaseSlot, async (ctx, input) => {
  await releaseSlot(ctx, input);
  return { status: 200, body: { ok: true } };
});
