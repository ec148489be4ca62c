import { endpoints } from '@holdfast/protocol/api/endpoints';
import { acknowledgeRedrive } from '@holdfast/engine/core';
import { agentEndpoint } from '@/lib/server/agent-endpoint';

export const dynamic = 'force-dynamic';

export const POST = agentEndpoint(endpoints.acknowledgeRedrive, async (ctx, input) => ({
  status: 200,
  body: await acknowledgeRedrive(ctx, input),
}));
