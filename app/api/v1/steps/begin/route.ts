import { endpoints } from '@/lib/api/endpoints';
import { beginStep } from '@/lib/core';
import { agentEndpoint } from '@/lib/server/agent-endpoint';
import { replyForStepAnswer } from '@/lib/server/step-replies';

export const dynamic = 'force-dynamic';

/** Begin a step attempt: run, replay, wait (Retry-After) or stop. */
export const POST = agentEndpoint(endpoints.beginStep, async (ctx, input) =>
  replyForStepAnswer(await beginStep(ctx, input)),
);
