import { endpoints } from '@holdfast/protocol/api/endpoints';
import { heartbeatSlot } from '@holdfast/engine/core';
import { agentEndpoint } from '@/lib/server/agent-endpoint';

export const dynamic = 'force-dynamic';

export const POST = agentEndpoint(endpoints.heartbeatSlot, async (ctx, input) => ({
  status: 200,
  body: { expiresAt: await heartbeatSlot(ctx, input) },
}));
