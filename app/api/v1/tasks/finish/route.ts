import { endpoints } from '@holdfast/protocol/api/endpoints';
import { finishTask } from '@holdfast/engine/core';
import { agentEndpoint } from '@/lib/server/agent-endpoint';

export const dynamic = 'force-dynamic';

/** End a task as completed, failed or discarded. */
export const POST = agentEndpoint(endpoints.finishTask, async (ctx, input) => ({
  status: 200,
  body: await finishTask(ctx, input),
}));
