import { endpoints } from '@holdfast/protocol/api/endpoints';
import { claimRedrives } from '@holdfast/engine/core';
import { agentEndpoint } from '@/lib/server/agent-endpoint';

export const dynamic = 'force-dynamic';

export const POST = agentEndpoint(endpoints.claimRedrives, async (ctx, input) => ({
  status: 200,
  body: { redrives: await claimRedrives(ctx, input) },
}));
