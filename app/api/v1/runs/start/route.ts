import { endpoints } from '@holdfast/protocol/api/endpoints';
import { startRun } from '@holdfast/engine/core';
import { agentEndpoint } from '@/lib/server/agent-endpoint';

export const dynamic = 'force-dynamic';

export const POST = agentEndpoint(endpoints.startRun, async (ctx, input) => ({
  status: 200,
  body: { run: await startRun(ctx, input) },
}));
