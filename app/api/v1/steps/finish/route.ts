import { endpoints } from '@holdfast/protocol/api/endpoints';
import { finishStep } from '@holdfast/engine/core';
import { agentEndpoint } from '@/lib/server/agent-endpoint';
import { withHostCheck } from '@/lib/server/host-check';
import { replyForStepAnswer } from '@/lib/server/step-replies';

export const dynamic = 'force-dynamic';

// proxy.ts skips this route (it is the busiest agents call): its one check that applies is made here.
/** Finish a begun attempt: completed, retry after a delay, or stop. */
export const POST = withHostCheck(
  agentEndpoint(endpoints.finishStep, async (ctx, input) => replyForStepAnswer(await finishStep(ctx, input))),
);
