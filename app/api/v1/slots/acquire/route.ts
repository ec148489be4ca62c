import { endpoints } from '@holdfast/protocol/api/endpoints';
import { acquireSlot } from '@holdfast/engine/core';
import { agentEndpoint } from '@/lib/server/agent-endpoint';

export const dynamic = 'force-dynamic';

/** Take a slot; held by another run: try later, when its lock expires. */
export const POST = agentEndpoint(endpoints.acquireSlot, async (ctx, input) => {
  const outcome = await acquireSlot(ctx, input);
  if (outcome.outcome === 'acquired') return { status: 200, body: outcome };
  const retryAfterSeconds = Math.max(1, Math.ceil((outcome.expiresAt.getTime() - Date.now()) / 1_000));
  return {
    status: 409,
    body: {
      code: 'SLOT_HELD',
      detail: `Slot ${outcome.slot} is held by run ${outcome.holderRunKey} until ${outcome.expiresAt.toISOString()}`,
      holderRunKey: outcome.holderRunKey,
      retryAfterSeconds,
    },
  };
});
