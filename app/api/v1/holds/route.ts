import { endpoints } from '@holdfast/protocol/api/endpoints';
import { openHold } from '@holdfast/engine/core';
import { agentEndpoint } from '@/lib/server/agent-endpoint';

export const dynamic = 'force-dynamic';

export const POST = agentEndpoint(endpoints.openHold, async (ctx, input) => {
  const { hold, created } = await openHold(ctx, input);
  return { status: created ? 201 : 200, body: { hold, created } };
});
