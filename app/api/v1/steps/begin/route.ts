import { endpoints } from '@holdfast/protocol/api/endpoints';
import { beginStep } from '@holdfast/engine/core';
import { agentEndpoint } from '@/lib/server/agent-endpoint';
import { withHostCheck } from '@/lib/server/host-check';
import { replyForStepAnswer } from '@/lib/server/step-replies';

export const dynamic = 'force-dynamic';

// proxy.ts skips this route (it is the busiest agents call): its one check that applies is made here.
/** Begin a step attempt: run, replay, wait (Retry-After) or stop. */
export const POST = withHostCheck(
  agentEndpoint(endpoints.beginStep, async (ctx, input) => replyForStepAnswer(await beginStep(ctx, input))),
);
