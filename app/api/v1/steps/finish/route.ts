import { endpoints } from '@/lib/api/endpoints';
import { finishStep } from '@/lib/core';
import { agentEndpoint } from '@/lib/server/agent-endpoint';
import { replyForStepAnswer } from '@/lib/server/step-replies';

export const dynamic = 'force-dynamic';

/** Finish a begun attempt: completed, retry after a delay, or stop. */
export const POST = agentEndpoint(endpoints.finishStep, async (ctx, input) =>
  replyForStepAnswer(await finishStep(ctx, input)),
);
