import { endpoints } from '@/lib/api/endpoints';
import { deadLetterTask } from '@/lib/core';
import { agentEndpoint } from '@/lib/server/agent-endpoint';

export const dynamic = 'force-dynamic';

export const POST = agentEndpoint(endpoints.deadLetter, async (ctx, input) => ({
  status: 201,
  body: await deadLetterTask(ctx.db, ctx.actor, input),
}));
