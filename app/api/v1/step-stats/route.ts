import { z } from 'zod';
import { getStepStatsView } from '@/lib/queries/step-stats';
import { agentQueryEndpoint } from '@/lib/server/agent-endpoint';
import { DEFAULT_TIME_WINDOW, timeWindowName } from '@holdfast/protocol/time-window';

export const dynamic = 'force-dynamic';

const stepStatsParams = z.strictObject({ window: timeWindowName.default(DEFAULT_TIME_WINDOW) });

/** Per-step retry figures for a window (token scope: read); a token limited to some agents sees only theirs. */
export const GET = agentQueryEndpoint({ action: 'console.read', query: stepStatsParams }, (ctx, { window }) =>
  getStepStatsView(ctx.db, window, ctx.clock?.() ?? new Date(), {
    agents: ctx.actor.type === 'agent' ? ctx.actor.allowedAgents : undefined,
  }),
);
