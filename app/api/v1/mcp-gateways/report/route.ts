import { endpoints } from '@holdfast/protocol/api/endpoints';
import { recordMcpGatewayReport } from '@holdfast/engine/core';
import { agentEndpoint } from '@/lib/server/agent-endpoint';

export const dynamic = 'force-dynamic';

export const POST = agentEndpoint(endpoints.reportMcpGateway, async (ctx, input) => ({
  status: 200,
  body: await recordMcpGatewayReport(ctx, input),
}));
